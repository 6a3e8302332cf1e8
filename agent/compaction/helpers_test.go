package compaction

// Hand-built sessions for the table tests and the differential test.

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/session"
)

// builder appends entries to a new session with timestamps one second
// apart, so messages and entries have predictable times.
type builder struct {
	t    testing.TB
	s    *session.Session
	at   time.Time
	call int
}

func newBuilder(t testing.TB, dir string) *builder {
	t.Helper()
	s, err := session.Create(dir, "/home/test/proj")
	require.NoError(t, err)
	return &builder{t: t, s: s, at: time.Date(2025, 7, 1, 9, 0, 0, 0, time.UTC)}
}

func (b *builder) add(e *session.Entry) string {
	b.t.Helper()
	b.at = b.at.Add(time.Second)
	e.Timestamp = b.at.Format("2006-01-02T15:04:05.000Z")
	if e.Message != nil {
		e.Message.Timestamp = b.at.UnixMilli()
	}
	id, err := b.s.Append(e)
	require.NoError(b.t, err)
	return id
}

func (b *builder) user(text string) string {
	return b.add(&session.Entry{Type: session.TypeMessage, Message: &session.Message{Role: session.RoleUser,
		Content: []session.ContentBlock{{Type: session.BlockText, Text: text}}}})
}

// assistant appends an assistant message with text and tool calls given
// as "name path" (a read, write or edit of path) or "bash" strings, and
// usage of total tokens (0: none reported).
func (b *builder) assistant(text string, total int, calls ...string) string {
	m := &session.Message{Role: session.RoleAssistant, API: "openai-completions", Provider: "openai", Model: "gpt-4.1",
		StopReason: session.StopStop, Usage: &session.Usage{TotalTokens: total}}
	if text != "" {
		m.Content = append(m.Content, session.ContentBlock{Type: session.BlockText, Text: text})
	}
	for _, c := range calls {
		b.call++
		name, path, _ := strings.Cut(c, " ")
		args, _ := json.Marshal(map[string]string{"path": path})
		if name == "bash" {
			args = json.RawMessage(`{"command":"make"}`)
		}
		m.Content = append(m.Content, session.ContentBlock{Type: session.BlockToolCall, ID: fmt.Sprintf("call_%d", b.call), Name: name, Arguments: args})
		m.StopReason = session.StopToolUse
	}
	return b.add(&session.Entry{Type: session.TypeMessage, Message: m})
}

func (b *builder) result(text string) string {
	return b.add(&session.Entry{Type: session.TypeMessage, Message: &session.Message{Role: session.RoleToolResult,
		ToolCallID: fmt.Sprintf("call_%d", b.call), ToolName: "read", Content: []session.ContentBlock{{Type: session.BlockText, Text: text}}}})
}

func (b *builder) bash(command, output string) string {
	code := 0
	return b.add(&session.Entry{Type: session.TypeMessage, Message: &session.Message{Role: session.RoleBashExecution,
		Extra: &session.MessageExtra{Command: command, Output: output, ExitCode: &code}}})
}

func (b *builder) compaction(summary, firstKept, details string, fromHook bool) string {
	var d json.RawMessage
	if details != "" {
		d = json.RawMessage(details)
	}
	return b.add(&session.Entry{Type: session.TypeCompaction,
		Fields: &session.EntryFields{Summary: summary, FirstKeptEntryID: firstKept, TokensBefore: 90000, Details: d, FromHook: fromHook}})
}

func (b *builder) customMessage(text string) string {
	return b.add(&session.Entry{Type: session.TypeCustomMessage,
		Fields: &session.EntryFields{CustomType: "note", Content: []session.ContentBlock{{Type: session.BlockText, Text: text}}, Display: true}})
}

func (b *builder) branchSummary(target, summary, details string) string {
	b.t.Helper()
	b.at = b.at.Add(time.Second)
	id, err := b.s.BranchWithSummary(target, summary, json.RawMessage(details), false)
	require.NoError(b.t, err)
	return id
}

func (b *builder) entry(e *session.Entry) string { return b.add(e) }

// done writes the session and returns its file.
func (b *builder) done() string {
	b.t.Helper()
	require.NoError(b.t, b.s.Persist())
	file := b.s.File()
	require.NoError(b.t, b.s.Close())
	return file
}

// words is n characters of text (n/4 tokens in pi's estimate).
func words(n int) string { return strings.Repeat("abcd", n/4) + strings.Repeat("x", n%4) }

// crafted are sessions built for one situation each.
func crafted(t testing.TB) map[string]string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "crafted")
	files := map[string]string{}

	// A compaction kept the turn's user message; the turn went on and
	// is cut again: nothing of history is left to summarise, only the
	// previous summary (which pi drops).
	b := newBuilder(t, dir)
	b.user("first task")
	b.assistant("done", 100)
	u := b.user("second task " + words(400))
	b.assistant("", 0, "read a.go")
	b.result(words(4000))
	b.compaction("## Goal\nearlier work\n\n<read-files>\nold.go\n</read-files>", u, `{"readFiles":["old.go"],"modifiedFiles":[]}`, false)
	for i := range 6 {
		b.assistant(words(800), 0, fmt.Sprintf("edit f%d.go", i))
		b.result(words(4000))
	}
	files[b.done()] = "split-after-compaction"

	// One huge turn and nothing before it.
	b = newBuilder(t, dir)
	b.user("do it all")
	for i := range 8 {
		b.assistant(words(400), 0, fmt.Sprintf("write w%d.go", i))
		b.result(words(6000))
	}
	files[b.done()] = "single-huge-turn"

	// Turns started by a bash command, a custom message and a branch
	// summary; model and label entries before a cut.
	b = newBuilder(t, dir)
	first := b.user("start " + words(3000))
	b.assistant(words(2000), 500, "read r.go")
	b.result(words(3000))
	b.bash("make test", words(5000))
	b.assistant(words(2000), 0, "edit r.go")
	b.result(words(1000))
	b.customMessage("note " + words(4000))
	b.entry(&session.Entry{Type: session.TypeModelChange, Fields: &session.EntryFields{Provider: "anthropic", ModelID: "claude-sonnet-4-5"}})
	b.assistant(words(3000), 0)
	b.branchSummary(b.s.LeafID(), BranchSummaryPreamble+"explored", `{"readFiles":["x.go"],"modifiedFiles":["y.go"]}`)
	b.entry(&session.Entry{Type: session.TypeLabel, Fields: &session.EntryFields{TargetID: first, Label: "start"}})
	b.assistant(words(5000), 0, "write z.go")
	b.result(words(2000))
	files[b.done()] = "turn-starts"

	return files
}
