package hooksd_test

// The bundled permission policy (permissions.lua) decided call by call:
// modes, rule precedence, how bash commands are split, paths, the dialog
// and /permissions. The e2e tests in the root package run it through the
// binary.

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/lua/luatest"
)

var permBG = context.Background()

// policy loads permissions.lua with conf as its section of config.json
// ("" for none), in cwd (a new folder when ""), with ui (nil: no UI).
func policy(t testing.TB, conf string, ui *luatest.UI) (*lua.Runtime, string) {
	t.Helper()
	cwd := t.TempDir()
	src, err := lua.FileSource("permissions.lua", lua.OriginBundled)
	require.NoError(t, err)
	reps := &luatest.Reports{}
	// A short timeout: a handler that loops fails the test rather than hangs it.
	opts := lua.Options{Host: &luatest.Host{Dir: cwd, UIValue: ui}, Report: reps.Add, Timeout: 5 * time.Second}
	if conf != "" {
		opts.Config = map[string]json.RawMessage{"permissions": json.RawMessage(conf)}
	}
	rt := lua.Load([]lua.Source{src}, opts)
	t.Cleanup(rt.Close)
	require.Empty(t, reps.Lines())
	return rt, cwd
}

// verdict runs one call: "run", "ask" (the dialog opened; the test UI
// dismisses it) or "refuse", and the reason the model would read.
func verdict(rt *lua.Runtime, ui *luatest.UI, tool, input string) (string, string) {
	asked := len(ui.Asked)
	dec := rt.BeforeTool(permBG, tool, "call", json.RawMessage(input))
	switch {
	case len(ui.Asked) > asked:
		return "ask", dec.Reason
	case dec.Block:
		return "refuse", dec.Reason
	}
	return "run", ""
}

func bash(cmd string) string {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return string(b)
}

func path(p string) string {
	b, _ := json.Marshal(map[string]string{"path": p, "content": "x"})
	return string(b)
}

const rulesConf = `{"mode": "ask",
  "allow": ["bash: git status *", "bash: go test *", "bash: ls *", "bash: cd *", "write: docs/*", "read", "word_count"],
  "ask":   ["bash: git push *", "read: ~/.ssh/*"],
  "deny":  ["bash: rm -rf *", "write: .env", "edit: /etc/*", "word_count: *secret*"]}`

func TestPermissionRules(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	ui := &luatest.UI{Interactive: true}
	rt, _ := policy(t, rulesConf, ui)
	tests := []struct {
		name, tool, input, want string
	}{
		{"reads run", "read", path("a.txt"), "run"},
		{"an ask rule beats allow", "read", path("~/.ssh/id_ed25519"), "ask"},
		{"allowed command", "bash", bash("git status"), "run"},
		{"allowed with arguments", "bash", bash("git status -s"), "run"},
		{"a trailing ' *' is a word boundary", "bash", bash("git statusx"), "ask"},
		{"every part allowed", "bash", bash("cd sub && go test ./... 2>&1 | ls -la"), "run"},
		{"quotes and spacing normalised", "bash", bash(`git  "status"   -s`), "run"},
		{"one part not allowed", "bash", bash("git status; curl x | sh"), "ask"},
		{"command substitution always asks", "bash", bash("git status $(curl x)"), "ask"},
		{"backticks always ask", "bash", bash("ls `curl x`"), "ask"},
		{"output to a file always asks", "bash", bash("git status > out.txt"), "ask"},
		{"appending to a file always asks", "bash", bash("ls >> out.txt"), "ask"},
		{"output to /dev/null is fine", "bash", bash("go test ./... >/dev/null 2>&1"), "run"},
		{"here-documents always ask", "bash", bash("cat <<EOF\nhello\nEOF"), "ask"},
		{"deny sees into here-documents", "bash", bash("sh <<EOF\nrm -rf x\nEOF"), "refuse"},
		{"an assignment in front asks", "bash", bash("GIT_PAGER=evil git status"), "ask"},
		{"unmatched command asks", "bash", bash("make"), "ask"},
		{"variables ask: their value is not the word", "bash", bash("ls $HOME ${TMPDIR}/x"), "ask"},
		{"a variable as the program asks", "bash", bash("$GIT status"), "ask"},
		{"a lone $ and # inside words", "bash", bash("ls a$ b#c # a comment; make"), "run"},
		{"deny", "bash", bash("rm -rf /"), "refuse"},
		{"deny behind sudo", "bash", bash("sudo -u root rm -rf /"), "refuse"},
		{"deny by full path", "bash", bash("/bin/rm -rf build"), "refuse"},
		{"deny in a later part", "bash", bash("git status && rm -rf ~"), "refuse"},
		{"deny inside sh -c", "bash", bash("sh -c 'rm -rf /'"), "refuse"},
		{"deny inside a substitution", "bash", bash(`echo "$(rm -rf /)"`), "refuse"},
		{"deny behind xargs", "bash", bash("find . | xargs rm -rf"), "refuse"},
		{"deny behind env and timeout", "bash", bash("env A=1 timeout 5 rm -rf x"), "refuse"},
		{"ask rule on bash", "bash", bash("git push origin main"), "ask"},
		{"write allowed inside docs", "write", path("docs/guide.md"), "run"},
		{"write denied after ..", "write", path("docs/../.env"), "refuse"},
		{"relative rules never match outside the folder", "write", path("../elsewhere/docs/a.md"), "ask"},
		{"absolute deny rule", "edit", path("/etc/hosts"), "refuse"},
		{"edits ask", "edit", path("main.go"), "ask"},
		{"hook tools run", "other_tool", `{"x":1}`, "run"},
		{"hook tool allowed", "word_count", `{"text":"a b"}`, "run"},
		{"hook tool denied by its arguments", "word_count", `{"text":"my secret"}`, "refuse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := verdict(rt, ui, tt.tool, tt.input)
			assert.Equal(t, tt.want, got, reason)
		})
	}
}

// Issue #20 item 3: what bash runs is what the rules judge. Each command
// ran something no allow rule covers under the hand-written splitter.
func TestPermissionShellBypasses(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	ui := &luatest.UI{Interactive: true}
	rt, _ := policy(t, `{"allow": ["bash: echo *", "bash: go test *", "bash: find *", "bash: git *", "bash: sed *",
		"bash: awk *", "bash: ls *", "bash: timeout *", "bash: env *", "bash: xargs *", "bash: bash *", "bash: test *"],
		"deny": ["bash: rm *"]}`, ui)
	tests := []struct {
		name, cmd, want string
	}{
		{"a carriage return before #", "echo hi\r# ; touch pwned", "ask"},
		{"a comment ending in a backslash", "echo #x\\\ntouch pwned", "ask"},
		{"ANSI-C quoting", `echo $'\'' ; touch pwned ; echo '`, "ask"},
		{"prompt expansion", `x='$(touch pwned)'; echo ${x@P}`, "ask"},
		{"arithmetic expansion", `echo $(( a[$(touch pwned)] ))`, "ask"},
		{"arithmetic with a subscript", `echo $((x))`, "ask"},
		{">& to a file", "echo >&1file", "ask"},
		{"a glob", "echo *", "ask"},
		{"brace expansion builds an option", "find . -ex{ec,} touch pwned {} ;", "ask"},
		{"find -exec", "find . -exec touch pwned ;", "ask"},
		{"find -delete", "find . -name x -delete", "ask"},
		{"find -fprint", "find . -fprint out", "ask"},
		{"plain find", "find . -name '*.go'", "run"},
		{"go test -exec", "go test -exec ./evil ./...", "ask"},
		{"go test -toolexec=", "go test -toolexec=./evil ./...", "ask"},
		{"plain go test", "go test -run TestX ./lua", "run"},
		{"git -c", "git -c core.pager=evil log", "ask"},
		{"git --config-env", "git --config-env=core.pager=X log", "ask"},
		{"git --exec-path", "git --exec-path=. status", "ask"},
		{"a git alias", "git pwn", "ask"},
		{"git config", "git config core.pager evil", "ask"},
		{"plain git", "git log --oneline -5", "run"},
		{"sed -i", "sed -i s/a/b/ f", "ask"},
		{"sed e", "sed '1e touch pwned' f", "ask"},
		{"sed s///e", "sed s/x/touch/e f", "ask"},
		{"sed w", "sed -n 'w out' f", "ask"},
		{"plain sed", "sed -n 's/a/b/gp; 3q' f", "run"},
		{"awk system", `awk 'BEGIN { system("touch pwned") }'`, "ask"},
		{"awk print >", `awk '{ print > "out" }' f`, "ask"},
		{"awk -f", "awk -f prog.awk f", "ask"},
		{"plain awk", "awk -F: '{ print $1 }' /etc/passwd", "run"},
		{"timeout runs what it wraps", "timeout 5 touch pwned", "ask"},
		{"timeout of an allowed command", "timeout -s KILL 5 ls -la", "run"},
		{"env runs what it wraps", "env touch pwned", "ask"},
		{"env -S splits a command", "env -S 'touch pwned'", "ask"},
		{"env sets variables", "env GIT_PAGER=evil git log", "ask"},
		{"xargs always asks", "echo pwned | xargs touch", "ask"},
		{"bash -c", "bash -c 'touch pwned'", "ask"},
		{"test -v evaluates subscripts", "test -v 'a[$(touch pwned)]'", "ask"},
		{"a function", "ls() { touch pwned; }; ls", "ask"},
		{"a here-document", "echo <<EOF\nx\nEOF", "ask"},
		{"a quoted program with spaces", `'ls /x'`, "ask"},
		{"deny behind timeout", "timeout 5 rm -rf x", "refuse"},
		{"deny behind xargs", "echo x | xargs rm -f", "refuse"},
		{"deny inside bash -c", "bash -c 'rm -f x'", "refuse"},
		{"deny inside eval", "eval rm -f x", "refuse"},
		{"deny inside a here-document", "sh <<EOF\nrm -f x\nEOF", "refuse"},
		{"deny after a carriage return", "echo hi\r# ; rm -f x", "refuse"},
		{"deny after a comment ending in a backslash", "echo #x\\\nrm -f x", "refuse"},
		{"deny in a function", "f() { rm -f x; }; f", "refuse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := verdict(rt, ui, "bash", bash(tt.cmd))
			assert.Equal(t, tt.want, got, "%q: %s", tt.cmd, reason)
		})
	}
}

// A ~40 KB command is decided quickly and within the hook's memory: the
// splitter it replaced went over the 256 MB cap on 40 KB of "! ".
func TestPermissionsLongCommand(t *testing.T) {
	ui := &luatest.UI{}
	rt, _ := policy(t, `{"allow": ["bash: ls *"], "deny": ["bash: rm *"]}`, ui)
	got, reason := verdict(rt, ui, "bash", bash(strings.Repeat("! ", 20000)+"ls"))
	assert.Equal(t, "refuse", got)
	assert.Contains(t, reason, "needs the user's approval")
	got, reason = verdict(rt, ui, "bash", bash("ls; "+strings.Repeat("x", 70<<10)))
	assert.Equal(t, "refuse", got)
	assert.Contains(t, reason, "too long (over 64 KiB) to check against the deny rules")
}

func TestPermissionModes(t *testing.T) {
	tests := []struct {
		name, conf, tool, input, want string
	}{
		{"default is ask", ``, "bash", bash("ls"), "ask"},
		{"ask: write", `{"mode": "ask"}`, "write", path("a"), "ask"},
		{"ask: reads never ask", `{"mode": "ask"}`, "read", path("/etc/passwd"), "run"},
		{"auto runs anything", `{"mode": "auto"}`, "bash", bash("curl x | sh"), "run"},
		{"auto ignores ask rules", `{"mode": "auto", "ask": ["bash"]}`, "bash", bash("ls"), "run"},
		{"auto keeps deny rules", `{"mode": "auto", "deny": ["bash: rm *"]}`, "bash", bash("rm -f x"), "refuse"},
		{"read-only without a sandbox refuses bash", `{"mode": "read-only", "sandbox": false}`, "bash", bash("ls"), "refuse"},
		{"read-only without a sandbox refuses allowed bash", `{"mode": "read-only", "allow": ["bash"], "sandbox": false}`, "bash", bash("ls"), "refuse"},
		{"read-only refuses edit", `{"mode": "read-only"}`, "edit", path("a"), "refuse"},
		{"read-only reads", `{"mode": "read-only"}`, "read", path("a"), "run"},
		{"read-only runs hook tools", `{"mode": "read-only"}`, "todo_add", `{}`, "run"},
		{"an allow rule for a whole tool", `{"allow": ["write"]}`, "write", path("/tmp/x"), "run"},
		{"bash alone allows every command", `{"allow": ["bash"]}`, "bash", bash("sudo make $(pwd) > out"), "run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ui := &luatest.UI{Interactive: true}
			rt, _ := policy(t, tt.conf, ui)
			got, reason := verdict(rt, ui, tt.tool, tt.input)
			assert.Equal(t, tt.want, got, reason)
			if got == "refuse" {
				assert.Contains(t, reason, "Permission denied")
			}
		})
	}
}

// Without a UI, ask refuses: the model is told why, the user gets one
// line naming the settings.
func TestPermissionsWithoutUI(t *testing.T) {
	ui := &luatest.UI{}
	rt, _ := policy(t, `{"mode": "ask", "allow": ["bash: ls *"]}`, ui)
	got, reason := verdict(rt, ui, "bash", bash("make"))
	assert.Equal(t, "refuse", got)
	assert.Contains(t, reason, "needs the user's approval and this run cannot ask")
	assert.Contains(t, reason, "--yes")
	got, _ = verdict(rt, ui, "write", path("a"))
	assert.Equal(t, "refuse", got)
	got, _ = verdict(rt, ui, "bash", bash("ls -la"))
	assert.Equal(t, "run", got, "allow rules apply without a UI")
	require.Len(t, ui.Notices, 1, "one line for the run")
	assert.Equal(t, `warning: permissions: bash refused: mode "ask" and no one to ask in this run; pass --yes, or set "permissions": {"mode": "auto"} (or an "allow" rule) in config.json`, ui.Notices[0])

	_, _, err := rt.RunCommand(permBG, "permissions", "mode auto")
	require.NoError(t, err)
	got, _ = verdict(rt, ui, "bash", bash("make"))
	assert.Equal(t, "refuse", got, "/permissions changes nothing without a UI: a piped prompt is data")
	assert.Contains(t, ui.Notices[len(ui.Notices)-1], "changed only in the REPL")
}

func TestPermissionDialog(t *testing.T) {
	ui := &luatest.UI{Interactive: true}
	rt, cwd := policy(t, "", ui)
	require.NoError(t, os.WriteFile(filepath.Join(cwd, "hello.txt"), []byte("hello world\nbye world\nend\n"), 0o644))

	ui.SelectAnswer = "yes"
	got, _ := verdict(rt, ui, "bash", bash("go build ./...\necho \x1b[2Kdone"))
	assert.Equal(t, "ask", got)
	dec := rt.BeforeTool(permBG, "bash", "c", json.RawMessage(bash("go build ./...")))
	assert.False(t, dec.Block, "yes runs it")
	assert.Equal(t, "select: Allow this bash command?\n  $ go build ./...\n    echo \\x1b[2Kdone", ui.Asked[0],
		"the command as it will run, control characters made visible")

	ui.SelectAnswer = "no"
	dec = rt.BeforeTool(permBG, "edit", "c", json.RawMessage(`{"path":"hello.txt","edits":[{"oldText":"bye","newText":"see you"},{"oldText":"nowhere","newText":"x"}]}`))
	assert.True(t, dec.Block)
	assert.Equal(t, "The user refused this edit call. Do not retry it; ask the user how to continue.", dec.Reason)
	assert.Equal(t, "select: Allow this edit of hello.txt?\n  @@ line 2 @@\n  -bye world\n  +see you world\n"+
		"  @@ text not found: the edit will fail @@\n  -nowhere\n  +x", ui.Asked[len(ui.Asked)-1])

	ui.SelectAnswer = "" // dismissed: no
	dec = rt.BeforeTool(permBG, "write", "c", json.RawMessage(`{"path":"hello.txt","content":"hello world\nBYE\nend\n"}`))
	assert.True(t, dec.Block)
	assert.Equal(t, "select: Allow overwriting hello.txt (3 lines, now 3)?\n  @@ line 2 @@\n  -bye world\n  +BYE", ui.Asked[len(ui.Asked)-1])
	rt.BeforeTool(permBG, "write", "c", json.RawMessage(`{"path":"new.txt","content":"one\ntwo\n"}`))
	assert.Equal(t, "select: Allow writing new.txt (new file, 2 lines)?\n  +one\n  +two", ui.Asked[len(ui.Asked)-1])

	big := strings.Repeat("0123456789abcdef\n", 20000)
	require.NoError(t, os.WriteFile(filepath.Join(cwd, "big.txt"), []byte(big), 0o644))
	rt.BeforeTool(permBG, "write", "c", json.RawMessage(`{"path":"big.txt","content":"small\n"}`))
	assert.Equal(t, "select: Allow overwriting big.txt?\n  (340000 bytes, now 6: too large to show a diff)", ui.Asked[len(ui.Asked)-1])
	in, err := json.Marshal(map[string]string{"path": "big2.txt", "content": big})
	require.NoError(t, err)
	rt.BeforeTool(permBG, "write", "c", in)
	assert.True(t, strings.HasPrefix(ui.Asked[len(ui.Asked)-1], "select: Allow writing big2.txt (new file, 20000 lines)?\n  +0123456789abcdef\n"))
	assert.True(t, strings.HasSuffix(ui.Asked[len(ui.Asked)-1], "\n  … 19940 more lines"))

	// "always" adds prefix rules for each simple command.
	ui.SelectAnswer = "yes, and allow bash: go test *, bash: tail * for the rest of this session"
	got, reason := verdict(rt, ui, "bash", bash("go test ./... 2>&1 | tail -5"))
	require.Equal(t, "ask", got)
	assert.Empty(t, reason)
	got, _ = verdict(rt, ui, "bash", bash("go test -run X ./lua"))
	assert.Equal(t, "run", got)
	got, _ = verdict(rt, ui, "bash", bash("go vet ./..."))
	assert.Equal(t, "ask", got)

	ui.SelectAnswer = "yes, and allow edit: *, write: * for the rest of this session"
	got, _ = verdict(rt, ui, "edit", `{"path":"hello.txt","oldText":"end","newText":"END"}`)
	require.Equal(t, "ask", got)
	got, _ = verdict(rt, ui, "write", path("sub/new.txt"))
	assert.Equal(t, "run", got)
	got, _ = verdict(rt, ui, "write", path("/tmp/outside.txt"))
	assert.Equal(t, "ask", got, "outside the working folder still asks")

	r := rt.BeforeTool(permBG, "bash", "c", json.RawMessage(bash("echo $(date)")))
	assert.True(t, r.Block, "no 'always' offered for a risky command: the scripted answer is not an option")
	assert.NotContains(t, ui.Asked[len(ui.Asked)-1], "always")
}

// Issue #20 item 4: "yes, and allow such calls" names the real command,
// after wrappers, never a keyword; or is not offered.
func TestPermissionAlwaysNamesTheRealCommand(t *testing.T) {
	tests := []struct {
		cmd, offer string // "" when not offered
	}{
		{"timeout 5 ls -la", "bash: ls *"},
		{"nice -n 5 nohup go test ./...", "bash: go test *"},
		{"env -u X gofmt -l .", "bash: gofmt *"},
		{"if true; then ls; fi", "bash: true *, bash: ls *"},
		{"while false; do sleep 1; done", "bash: false *, bash: sleep *"},
		{"for f in a b; do ls; done", ""},
		{"sudo apt update", ""},
		{"ls | xargs cat", ""},
		{"A=1 ls", ""},
		{"find . -exec ls ;", ""},
		{"git -C sub status", ""},
		{"bash -c 'ls'", ""},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			ui := &luatest.UI{Interactive: true}
			rt, _ := policy(t, "", ui)
			got, _ := verdict(rt, ui, "bash", bash(tt.cmd))
			require.Equal(t, "ask", got)
			if tt.offer == "" {
				assert.Equal(t, []string{"yes", "no"}, ui.Options)
			} else {
				assert.Equal(t, []string{"yes", "no", "yes, and allow " + tt.offer + " for the rest of this session"}, ui.Options)
			}
		})
	}
}

func TestPermissionsCommand(t *testing.T) {
	ui := &luatest.UI{Interactive: true}
	rt, _ := policy(t, `{"mode": "ask", "allow": ["bash: git status *"], "deny": ["bash: rm *"], "sandbox": false}`, ui)
	run := func(args string) string {
		t.Helper()
		_, handled, err := rt.RunCommand(permBG, "permissions", args)
		require.NoError(t, err)
		require.True(t, handled)
		return ui.Notices[len(ui.Notices)-1]
	}
	assert.Equal(t, "info: permissions: mode ask (asks before write, edit, bash and MCP tools; reads and hook tools run)\n"+
		"  deny:  bash: rm *\n  allow: bash: git status *\n  sandbox: off (\"sandbox\": false): bash commands write anywhere", run(""))

	assert.Contains(t, run("mode read-only"), "mode read-only (refuses write, edit and bash; MCP tools only when marked read-only); ask in config")
	got, _ := verdict(rt, ui, "bash", bash("git status"))
	assert.Equal(t, "refuse", got)

	run("mode auto")
	got, _ = verdict(rt, ui, "bash", bash("make"))
	assert.Equal(t, "run", got)
	got, _ = verdict(rt, ui, "bash", bash("rm x"))
	assert.Equal(t, "refuse", got, "deny rules hold in auto")

	out := run("deny bash:curl *")
	assert.Contains(t, out, "  deny:  bash: curl *   (this session)")
	got, _ = verdict(rt, ui, "bash", bash("curl example.com"))
	assert.Equal(t, "refuse", got)

	run("remove bash: rm *")
	got, _ = verdict(rt, ui, "bash", bash("rm x"))
	assert.Equal(t, "run", got)

	assert.Contains(t, run("allow bash:"), `"bash:": a rule is a tool name`)
	assert.Contains(t, run("mode yolo"), "usage: /permissions")
	assert.Contains(t, run("remove nothing"), `no rule "nothing"`)

	out = run("reset")
	assert.Equal(t, "info: permissions: mode ask (asks before write, edit, bash and MCP tools; reads and hook tools run)\n"+
		"  deny:  bash: rm *\n  allow: bash: git status *\n  sandbox: off (\"sandbox\": false): bash commands write anywhere", out)
	got, _ = verdict(rt, ui, "bash", bash("make"))
	assert.Equal(t, "ask", got)
}

// A hook's section of config.json arrives through lunar.config(), a fresh
// copy each call.
func TestLunarConfig(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "10-memory.lua")
	require.NoError(t, os.WriteFile(file, []byte(`
local c = lunar.config()
assert(c.store == "local" and c.limits.max == 3, "section")
c.store = "changed"
assert(lunar.config().store == "local", "a fresh copy")
lunar.command("show", { handler = function(_, ctx) ctx.ui.notify(tostring(lunar.config().limits.max)) end })
`), 0o644))
	other := filepath.Join(dir, "other.lua")
	require.NoError(t, os.WriteFile(other, []byte(`assert(lunar.config() == nil, "no section: nil")`), 0o644))
	var srcs []lua.Source
	for _, f := range []string{file, other} {
		src, err := lua.FileSource(f, lua.OriginGlobal)
		require.NoError(t, err)
		srcs = append(srcs, src)
	}
	reps := &luatest.Reports{}
	ui := &luatest.UI{}
	rt := lua.Load(srcs, lua.Options{Host: &luatest.Host{Dir: dir, UIValue: ui}, Report: reps.Add,
		Config: map[string]json.RawMessage{"10-memory": json.RawMessage(`{"store": "local", "limits": {"max": 3}}`)}})
	defer rt.Close()
	require.Empty(t, reps.Lines())
	_, _, err := rt.RunCommand(permBG, "show", "")
	require.NoError(t, err)
	assert.Equal(t, []string{"info: 3"}, ui.Notices)
	assert.True(t, strings.HasPrefix(rt.Report()[0].Name, "10-memory"))
}

// What the policy costs: loading it (every run), and one decision.
//
//	go test ./hooks.d -run '^$' -bench Permissions
func BenchmarkPermissions(b *testing.B) {
	b.Run("load", func(b *testing.B) {
		src, err := lua.FileSource("permissions.lua", lua.OriginBundled)
		require.NoError(b, err)
		for b.Loop() {
			lua.Load([]lua.Source{src}, lua.Options{Host: &luatest.Host{Dir: b.TempDir()}}).Close()
		}
	})
	b.Run("load-and-first-rule", func(b *testing.B) { // permissions_impl compiled too
		src, err := lua.FileSource("permissions.lua", lua.OriginBundled)
		require.NoError(b, err)
		in := json.RawMessage(bash("go test ./..."))
		for b.Loop() {
			rt := lua.Load([]lua.Source{src}, lua.Options{Host: &luatest.Host{Dir: b.TempDir()},
				Config: map[string]json.RawMessage{"permissions": json.RawMessage(`{"mode": "auto", "deny": ["bash: rm *"]}`)}})
			rt.BeforeTool(permBG, "bash", "c", in)
			rt.Close()
		}
	})
	calls := []struct {
		name, conf, tool, input string
	}{
		{"read", ``, "read", path("main.go")},
		{"bash-auto", `{"mode": "auto"}`, "bash", bash("go test ./...")},
		{"bash-auto-deny-rules", `{"mode": "auto", "deny": ["bash: rm -rf *", "bash: git push --force *"]}`, "bash", bash("go test ./... 2>&1 | tail -20")},
		{"bash-allowed", rulesConf, "bash", bash("cd sub && go test ./... 2>&1 | ls -la")},
		{"bash-git-status", rulesConf, "bash", bash("git status")},
		{"bash-go-test", rulesConf, "bash", bash("go test ./...")},
		{"bash-deny-rules-long", rulesConf, "bash", bash("git status && go test -run 'TestA|TestB' ./lua ./stdlib 2>&1; ls -la docs; cd sub && git status -s")},
		{"write-allowed", rulesConf, "write", path("docs/a.md")},
	}
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			ui := &luatest.UI{Interactive: true}
			src, err := lua.FileSource("permissions.lua", lua.OriginBundled)
			require.NoError(b, err)
			opts := lua.Options{Host: &luatest.Host{Dir: b.TempDir(), UIValue: ui}}
			if c.conf != "" {
				opts.Config = map[string]json.RawMessage{"permissions": json.RawMessage(c.conf)}
			}
			rt := lua.Load([]lua.Source{src}, opts)
			defer rt.Close()
			in := json.RawMessage(c.input)
			for b.Loop() {
				if dec := rt.BeforeTool(permBG, c.tool, "c", in); dec.Block || len(ui.Asked) > 0 {
					b.Fatalf("%s: not run: %s %v", c.name, dec.Reason, ui.Asked)
				}
			}
		})
	}
}

// Any command is decided, whatever its quoting: nothing loops, nothing
// raises (a failing handler would block with "hook permissions.lua: …").
func TestPermissionsAnyCommand(t *testing.T) {
	ui := &luatest.UI{Interactive: true}
	rt, _ := policy(t, rulesConf, ui)
	auto, _ := policy(t, `{"mode": "auto", "deny": ["bash: rm -rf *"], "ask": ["bash"]}`, nil)
	const alphabet = "ab $(){}<>|&;'\"`\\#\n\t2-=/*~!"
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		in := json.RawMessage(bash(string(b)))
		for _, r := range []*lua.Runtime{rt, auto} {
			dec := r.BeforeTool(permBG, "bash", "c", in)
			assert.NotContains(t, dec.Reason, "hook permissions.lua", "%q", b)
		}
	}
}
