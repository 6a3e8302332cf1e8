package hooksd_test

// Fuzzing the bash rule matcher against bash itself: whatever the policy
// lets run under "bash: lunarprobe *" is run by bash, in a temporary
// folder, with a PATH holding only a lunarprobe that logs its arguments
// and a DEBUG trap that logs every simple command bash runs. Each logged
// call must be one that shell.parse reported, bash must start no program
// shell.parse did not name (timeout, not on PATH, is tried and fails), and
// no file may appear.
//
//	go test ./hooks.d -run '^$' -fuzz FuzzShellRuleMatcher -fuzztime 5m

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/lua/luatest"
	"github.com/lunar-cli/lunar/stdlib"
)

const probeScript = `#!/bin/sh
printf '%s\0' "$#" "$@" >> "$PROBE_LOG"
`

// bashEnv is read by bash before the command (BASH_ENV): it logs each
// simple command, in subshells too (set -T).
const bashEnv = `set -T
trap 'printf "%s\0" "$BASH_COMMAND" >> "$TRACE_LOG"' DEBUG
`

func FuzzShellRuleMatcher(f *testing.F) {
	bash, err := exec.LookPath("bash")
	if err != nil || runtime.GOOS == "windows" {
		f.Skip("needs bash")
	}
	for _, seed := range []string{
		"lunarprobe a b", "lunarprobe 'a b' \"c d\" e\\ f", "lunarprobe a; lunarprobe b && lunarprobe c || lunarprobe d",
		"lunarprobe a | lunarprobe b", "(lunarprobe a) && { lunarprobe b; }", "! lunarprobe x", "time lunarprobe x",
		"if lunarprobe a; then lunarprobe b; fi", "lunarprobe ~ ~/x", "lunarprobe a >/dev/null 2>&1 <&-",
		"lunarprobe hi\r# ; touch pwned", "lunarprobe $'\\'' ; touch pwned ; lunarprobe \\'", "lunarprobe >&1pwned",
		"lunarprobe a\\ # b", "lunarprobe $ a$ \"$\" '$' \\$x", "lunarprobe \"\\$x\" \"\\`\" \"\\\\\" \"\\a\"", "lunarprobe {} {a} ] [ a[ [a x~",
		"lunarprobe = a=b - -- --x ! '!'", "lunarprobe 2>&1 1>&2 0<&- &>/dev/null", "lunarprobe & lunarprobe b", "{ lunarprobe; }",
		"lunarprobe \"a\"'b'c $'ab' \"x\"$'y'", "lunarprobe if then } { fi", "lunarprobe x|&lunarprobe y", "lunarprobe é\ta\vb\fc\u00a0d",
		"lunarprobe <<< 'a b'", "time -p lunarprobe", "lunarprobe \\\n\\\nx", "lunarprobe a\\\n#b", "lunarprobe \\#a #b",
		"lunarprobe 'a'\\''b'", "lunarprobe \"a\\\"b\"", "lunarprobe ;lunarprobe", "lunarprobe;;", "lunarprobe --x=~/y",
		"lunarprobe ${x@P}", "lunarprobe $((1+1))", "lunarprobe {a,b}", "lunarprobe *", "lunarprobe a#b # c",
		"lunarprobe a\\\nb", "exec lunarprobe x", "command lunarprobe x", "lunarprobe $'a' \"x\\$y\\z\"",
		"lunarprobe 'x' ; echo pwned > f", "lunarprobe #x\\\nlunarprobe y", "lunarprobe 'a\\\nb' \"a\\\nb\" a\\", "lunarprobe \"$(touch pwned)\"", "lunarprobe <<<word", "lunarprobe a &",
	} {
		f.Add(seed)
	}
	ui := &luatest.UI{}
	rt, _ := policy(f, `{"allow": ["bash: lunarprobe *"]}`, ui)
	f.Fuzz(func(t *testing.T, cmd string) {
		in, err := json.Marshal(map[string]string{"command": cmd})
		if err != nil {
			return
		}
		// What the tool runs: the JSON value (invalid UTF-8 became U+FFFD).
		var args struct{ Command string }
		require.NoError(t, json.Unmarshal(in, &args))
		cmd = args.Command
		if dec := rt.BeforeTool(permBG, "bash", "c", in); dec.Block {
			return // refused (it would have asked): nothing to check
		}
		reported, err := stdlib.ParseShell(cmd)
		require.NoError(t, err, "allowed, yet shell.parse refuses it")
		dir := t.TempDir()
		bin, work, home := filepath.Join(dir, "bin"), filepath.Join(dir, "work"), filepath.Join(dir, "home")
		for _, d := range []string{bin, work, home} {
			require.NoError(t, os.Mkdir(d, 0o755))
		}
		require.NoError(t, os.WriteFile(filepath.Join(bin, "lunarprobe"), []byte(probeScript), 0o755))
		envFile, probeLog, traceLog := filepath.Join(dir, "env.sh"), filepath.Join(dir, "probe.log"), filepath.Join(dir, "trace.log")
		require.NoError(t, os.WriteFile(envFile, []byte(bashEnv), 0o644))

		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		c := exec.CommandContext(ctx, bash, "-c", cmd)
		c.Dir = work
		c.Env = []string{"PATH=" + bin, "HOME=" + os.Getenv("HOME"), "BASH_ENV=" + envFile, "PROBE_LOG=" + probeLog, "TRACE_LOG=" + traceLog}
		out, _ := c.CombinedOutput()
		if ctx.Err() != nil {
			t.Skipf("%q: bash did not finish (a loop)", cmd)
		}

		var want [][]string
		for _, r := range reported {
			want = append(want, r.Words)
		}
		for _, call := range probeCalls(t, probeLog) {
			require.True(t, slices.ContainsFunc(want, func(w []string) bool { return ranAs(w, call) }),
				"%q ran lunarprobe %q; the policy saw %q\n%s", cmd, call, want, out)
		}
		programs := map[string]bool{}
		for _, w := range want {
			if len(w) > 0 {
				programs[w[0]] = true
			}
		}
		trace, _ := os.ReadFile(traceLog)
		for _, ran := range strings.Split(strings.TrimSuffix(string(trace), "\x00"), "\x00") {
			bare := strings.Fields(strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(ran))
			if len(bare) == 0 || strings.HasPrefix(bashEnv, "set -T\n"+ran) || isRedirection(bare[0]) {
				continue // the trap itself (after time alone), or redirections alone: no program
			}
			require.True(t, programs[bare[0]], "%q made bash run %q; the policy saw %q", cmd, ran, want)
		}
		left, err := os.ReadDir(work)
		require.NoError(t, err)
		require.Empty(t, left, "%q wrote a file", cmd)
		all, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range all {
			require.Contains(t, []string{"bin", "work", "home", "env.sh", "probe.log", "trace.log"}, e.Name(), "%q wrote a file", cmd)
		}
	})
}

// isRedirection reports whether a traced command starts with a
// redirection (2>x, <f): a statement of redirections alone runs nothing.
func isRedirection(word string) bool {
	rest := strings.TrimLeft(word, "0123456789")
	return rest != "" && strings.IndexByte("<>&", rest[0]) >= 0
}

// ranAs reports whether the reported words w run lunarprobe with args:
// lunarprobe first, or after exec or command (wrappers bash runs itself;
// no other program is on PATH).
func ranAs(w, args []string) bool {
	for i, word := range w {
		if word == "lunarprobe" {
			return slices.Equal(w[i+1:], args)
		}
		if word != "exec" && word != "command" && word != "--" {
			return false
		}
	}
	return false
}

// probeCalls reads lunarprobe's log: each call's arguments.
func probeCalls(t *testing.T, log string) [][]string {
	data, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	fields := bytes.Split(bytes.TrimSuffix(data, []byte{0}), []byte{0})
	var calls [][]string
	for i := 0; i < len(fields); {
		n := 0
		for _, c := range fields[i] {
			n = n*10 + int(c-'0')
		}
		i++
		var call []string
		for k := 0; k < n && i < len(fields); k++ {
			call = append(call, string(fields[i]))
			i++
		}
		calls = append(calls, call)
	}
	return calls
}
