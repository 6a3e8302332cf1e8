package export

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/session"
)

// tinyPNG is a 2×2 PNG.
const tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg=="

// Hostile content: each must reach the page as text, never as markup or
// script.
const (
	hostileUser      = "Look: <script>alert('user')</script> and <img src=x onerror=alert(1)> and a\u2028line\u2029sep"
	hostileMarkdown  = "[click me](javascript:alert(2)) [tab](java\tscript:alert(3)) [ok](https://example.com/a?b=1&c=2) ![remote](https://example.com/t.png) ![inline](data:image/png;base64," + tinyPNG + ")\n\n<div onclick=\"alert(4)\">block html</div>\n\n<!-- a comment -->"
	hostileToolArgs  = `{"query":"</script><script>alert(5)</script>","note":"\u2028<!--"}`
	hostileLabel     = "</script></noscript><b>label</b>"
	hostileSessionNm = "Fix <the> parser & \u2028 stuff"
)

// hostileEnds would end an article or the <noscript> holding it, were it
// not escaped.
const hostileEnds = "</noscript></article>\n</ARTICLE >\n</noscript >"

// richSession is a session with every entry type and role, branches,
// labels, a compaction and hostile content. It returns the session
// (loaded back from its file, as an export reads it) and ids by name.
func richSession(t testing.TB) (*session.Session, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	s, err := session.Create(dir, "/home/ana/code/<proj>")
	require.NoError(t, err)
	require.NoError(t, s.Persist())
	ids := map[string]string{}
	must := func(name string, id string, err error) {
		t.Helper()
		require.NoError(t, err)
		if name != "" {
			ids[name] = id
		}
	}
	text := func(s string) []session.ContentBlock {
		return []session.ContentBlock{{Type: session.BlockText, Text: s}}
	}
	usage := &session.Usage{Input: 1523, Output: 312, CacheRead: 20480, TotalTokens: 22315,
		Cost: session.Cost{Input: 0.004569, Output: 0.00468, CacheRead: 0.006144, Total: 0.015393}}
	assistant := func(content ...session.ContentBlock) *session.Message {
		return &session.Message{Role: session.RoleAssistant, Content: content, API: "anthropic-messages",
			Provider: "anthropic", Model: "claude-sonnet-4-5", Usage: usage, StopReason: session.StopToolUse}
	}
	call := func(id, name, args string) session.ContentBlock {
		return session.ContentBlock{Type: session.BlockToolCall, ID: id, Name: name, Arguments: json.RawMessage(args)}
	}
	result := func(callID, name, out string, isErr bool, details string) *session.Message {
		m := &session.Message{Role: session.RoleToolResult, ToolCallID: callID, ToolName: name, Content: text(out), IsError: isErr}
		if details != "" {
			m.Details = json.RawMessage(details)
		}
		return m
	}

	id, err := s.AppendModelChange("anthropic", "claude-sonnet-4-5")
	must("model", id, err)
	id, err = s.AppendThinkingLevel("high")
	must("thinking", id, err)
	id, err = s.AppendMessage(&session.Message{Role: session.RoleUser, Content: []session.ContentBlock{
		{Type: session.BlockText, Text: hostileUser + "\n\n" + hostileEnds}, {Type: session.BlockImage, Extra: &session.BlockExtra{Data: tinyPNG, MimeType: "image/png"}}}})
	must("user1", id, err)
	// A first answer, abandoned: the conversation goes back to the user's
	// message with a summary of it.
	id, err = s.AppendMessage(&session.Message{Role: session.RoleAssistant, Content: text("Another way: **rewrite** it."),
		Provider: "openai", Model: "gpt-4.1", API: "openai-completions", StopReason: session.StopAborted})
	must("alt", id, err)
	id, err = s.BranchWithSummary(ids["user1"], "Tried a rewrite; abandoned <it>.", nil, true)
	must("branch_summary", id, err)
	id, err = s.AppendMessage(assistant(
		session.ContentBlock{Type: session.BlockThinking, Thinking: "Let me *think* about <tags>.", ThinkingSignature: "sig"},
		session.ContentBlock{Type: session.BlockText, Text: "## Plan\n\n1. read\n2. fix\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```go\nfunc main() { fmt.Println(\"</script>\") }\n```\n\n" + hostileMarkdown},
		call("call_read", "read", `{"path":"src/parse.go","offset":10,"limit":20}`),
		call("call_bash", "bash", `{"command":"go test ./... | grep -v '<ok>'","timeout":60}`),
	))
	must("assistant1", id, err)
	id, err = s.AppendMessage(result("call_read", "read", "package parse\n\n// Parse parses.\nfunc Parse(s string) error { return nil }\n", false, ""))
	must("read", id, err)
	long := strings.Repeat("ok  \x1b[32mgithub.com/x/pkg\x1b[0m 0.01s\n", 40) + "\x1b[1;31mFAIL\x1b[0m <pkg>"
	id, err = s.AppendMessage(result("call_bash", "bash", long, true, ""))
	must("bash", id, err)
	id, err = s.AppendMessage(assistant(
		call("call_edit", "edit", `{"path":"src/parse.go","edits":[{"oldText":"return nil","newText":"return errors.New(\"<bad>\")"}]}`),
		call("call_write", "write", `{"path":"notes.md","content":"# Notes\n\n- one\n"}`),
		call("call_hostile", "search_web", hostileToolArgs),
	))
	must("assistant2", id, err)
	id, err = s.AppendMessage(result("call_edit", "edit", "Successfully replaced 1 block(s) in src/parse.go.", false,
		`{"diff":" 3 // Parse parses.\n-4 func Parse(s string) error { return nil }\n+4 func Parse(s string) error { return errors.New(\"<bad>\") }","firstChangedLine":4}`))
	must("edit", id, err)
	id, err = s.AppendMessage(result("call_write", "write", "Wrote 18 bytes to notes.md", false, ""))
	must("write", id, err)
	img := &session.Message{Role: session.RoleToolResult, ToolCallID: "call_hostile", ToolName: "search_web", IsError: true,
		Content: []session.ContentBlock{{Type: session.BlockText, Text: "no results for </script>\n" + hostileEnds}, {Type: session.BlockImage, Extra: &session.BlockExtra{Data: tinyPNG, MimeType: "image/png"}}}}
	id, err = s.AppendMessage(img)
	must("hostile_result", id, err)
	code := 2
	id, err = s.AppendMessage(&session.Message{Role: session.RoleBashExecution, Extra: &session.MessageExtra{Command: "make test", Output: "FAIL <x>\n", ExitCode: &code}})
	must("shell", id, err)
	id, err = s.AppendMessage(&session.Message{Role: session.RoleBashExecution, Extra: &session.MessageExtra{Command: "ls", Output: "a\nb\n", ExitCode: new(int), ExcludeFromContext: true}})
	must("shell_excluded", id, err)
	id, err = s.AppendCustomMessage("memory", text("The user prefers tabs."), true, nil)
	must("custom_shown", id, err)
	id, err = s.AppendCustomMessage("memory", text("secret context <b>"), false, json.RawMessage(`{"k":1}`))
	must("custom_hidden", id, err)
	id, err = s.AppendMessage(&session.Message{Role: session.RoleCustom, Content: text("old hook message"), Extra: &session.MessageExtra{CustomType: "legacy", Display: true}})
	must("custom_role", id, err)
	id, err = s.AppendCustom("todo", json.RawMessage(`{"items":["a","</script>"]}`))
	must("state", id, err)
	id, err = s.SetLabel(ids["user1"], hostileLabel)
	must("label", id, err)
	id, err = s.SetName(hostileSessionNm)
	must("name", id, err)
	id, err = s.AppendCompaction("## Goal\nFix the parser.", ids["assistant2"], 123456, json.RawMessage(`{"readFiles":["src/a.go"],"modifiedFiles":["src/parse.go"]}`), false)
	must("compaction", id, err)
	id, err = s.AppendMessage(&session.Message{Role: session.RoleUser, Content: text("after compaction"), ContentIsString: true})
	must("user2", id, err)
	id, err = s.AppendMessage(&session.Message{Role: session.RoleAssistant, Content: text("partial"), Provider: "openai", Model: "gpt-4.1",
		API: "openai-completions", StopReason: session.StopError,
		Extra: &session.MessageExtra{ErrorMessage: "429 rate limited <retry>"}})
	must("error", id, err)

	id, err = s.AppendMessage(assistant(session.ContentBlock{Type: session.BlockText, Text: "Done. Costs 0.000123 $."}))
	must("leaf", id, err)
	file := s.File()
	require.NoError(t, s.Close())

	// An entry of a type this version does not know, as a newer lunar or a
	// hook could write it.
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"type":"stack_pop","id":"ffff0001","parentId":"` + ids["leaf"] + `","timestamp":"2025-06-01T10:00:40.000Z","what":"</script>"}` + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	ids["unknown"] = "ffff0001"

	loaded, err := session.Load(file)
	require.NoError(t, err)
	return loaded, ids
}

// export renders s to a string.
func export(t testing.TB, s *session.Session, opts Options) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, HTML(&b, s, opts))
	return b.String()
}

// artifactDir is where the browser test leaves its screenshots and pages
// (LUNAR_EXPORT_ARTIFACTS, else a folder in the system's temp dir).
func artifactDir(t testing.TB) string {
	dir := os.Getenv("LUNAR_EXPORT_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "lunar-export-artifacts")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}
