package compaction

// Synthetic, tool-heavy session trees for the tests: long turns (split
// turns), earlier compactions (with and without details, from hooks,
// pointing at missing entries), branches with and without summaries,
// custom messages, bashExecution, images, labels, and text with
// characters outside the BMP around the 2000-character cut of tool
// results.

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/session"
)

// genPaths are the files the generated tool calls touch: spaces, HTML
// characters, non-ASCII, a character above U+FFFF and one in the private
// use area (JavaScript sorts those two the other way round from Go).
var genPaths = []string{
	"main.go", "src/a b.ts", "docs/ünï.md", "z/😀.go", "z/\ue000.go", "<tag>&.go", "lib/util.go",
	"README.md", "cmd/x/main.go", "internal/a.go", "internal/b.go", "web/index.html",
}

var genWords = strings.Fields(`the a fix bug parser read file line test run go build error nil
	func return value map slice index tree leaf branch summary token model call tool result
	naïve café 日本語 😀 "quoted" <tag> & \path\ tab	done`)

type generator struct {
	r    *rand.Rand
	s    *session.Session
	t    time.Time
	last int64
}

// generateSession writes a synthetic session of about steps turns and
// other events into dir and returns its file.
func generateSession(t testing.TB, dir string, seed uint64, steps int) string {
	t.Helper()
	s, err := session.Create(dir, "/home/test/proj")
	require.NoError(t, err)
	g := &generator{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), s: s,
		t: time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)}
	g.add(&session.Entry{Type: session.TypeModelChange, Fields: &session.EntryFields{Provider: "anthropic", ModelID: "claude-sonnet-4-5"}})
	g.add(&session.Entry{Type: session.TypeThinkingLevelChange, Fields: &session.EntryFields{ThinkingLevel: "medium"}})
	for range steps {
		g.step()
	}
	require.NoError(t, s.Persist())
	file := s.File()
	require.NoError(t, s.Close())
	return file
}

func (g *generator) ts() string {
	g.t = g.t.Add(time.Duration(1+g.r.IntN(4000)) * time.Millisecond)
	return g.t.Format("2006-01-02T15:04:05.000Z")
}

func (g *generator) ms() int64 {
	g.last = g.t.UnixMilli() + int64(g.r.IntN(50))
	return g.last
}

func (g *generator) add(e *session.Entry) string {
	e.Timestamp = g.ts()
	id, err := g.s.Append(e)
	if err != nil {
		panic(err)
	}
	return id
}

func (g *generator) msg(m *session.Message) string {
	return g.add(&session.Entry{Type: session.TypeMessage, Message: m})
}

// text is about n characters of words.
func (g *generator) text(n int) string {
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			if g.r.IntN(12) == 0 {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(genWords[g.r.IntN(len(genWords))])
	}
	return b.String()
}

// size picks a text length: mostly short, sometimes long, rarely huge.
func (g *generator) size() int {
	switch n := g.r.IntN(20); {
	case n < 12:
		return 5 + g.r.IntN(300)
	case n < 18:
		return 300 + g.r.IntN(3000)
	default:
		return 3000 + g.r.IntN(20000)
	}
}

func (g *generator) path() string { return genPaths[g.r.IntN(len(genPaths))] }

func (g *generator) ids() []string {
	var ids []string
	for _, e := range g.s.Path("") {
		ids = append(ids, e.ID)
	}
	return ids
}

func (g *generator) step() {
	switch n := g.r.IntN(100); {
	case n < 55:
		g.turn()
	case n < 60:
		code := g.r.IntN(3)
		m := &session.Message{Role: session.RoleBashExecution, Timestamp: g.ms(),
			Extra: &session.MessageExtra{Command: "ls " + g.path(), Output: g.text(g.size()), ExitCode: &code, Cancelled: g.r.IntN(8) == 0, Truncated: g.r.IntN(5) == 0}}
		if m.Truncated() {
			m.Extra.FullOutputPath = "/tmp/out.txt"
		}
		if g.r.IntN(6) == 0 {
			m.Extra.ExitCode = nil
		}
		m.Extra.ExcludeFromContext = g.r.IntN(5) == 0
		g.msg(m)
	case n < 65:
		content := []session.ContentBlock{{Type: session.BlockText, Text: g.text(g.size())}}
		if g.r.IntN(3) == 0 {
			content = append(content, session.ContentBlock{Type: session.BlockImage, Extra: &session.BlockExtra{Data: "iVBORw0KGgo=", MimeType: "image/png"}})
		}
		e := &session.Entry{Type: session.TypeCustomMessage, Fields: &session.EntryFields{CustomType: "note", Content: content, Display: g.r.IntN(2) == 0}}
		if g.r.IntN(2) == 0 && len(content) == 1 {
			e.Fields.ContentIsString = true
		}
		g.add(e)
	case n < 70:
		g.add(&session.Entry{Type: session.TypeCustom, Fields: &session.EntryFields{CustomType: "state", Data: json.RawMessage(`{"n":1}`)}})
	case n < 74:
		ids := g.ids()
		if len(ids) > 0 {
			g.add(&session.Entry{Type: session.TypeLabel, Fields: &session.EntryFields{TargetID: ids[g.r.IntN(len(ids))], Label: "mark"}})
		}
	case n < 76:
		g.add(&session.Entry{Type: session.TypeSessionInfo, Fields: &session.EntryFields{Name: "synthetic " + g.text(10)}})
	case n < 78:
		g.add(&session.Entry{Type: session.TypeModelChange, Fields: &session.EntryFields{Provider: "openai", ModelID: "gpt-4.1"}})
	case n < 80:
		g.add(&session.Entry{Type: session.TypeThinkingLevelChange, Fields: &session.EntryFields{ThinkingLevel: "high"}})
	case n < 88:
		g.compaction()
	default:
		g.branch()
	}
}

// turn is a user (or custom) message and an agent run of several
// assistant messages with tool calls and results.
func (g *generator) turn() {
	user := &session.Message{Role: session.RoleUser, Timestamp: g.ms(),
		Content: []session.ContentBlock{{Type: session.BlockText, Text: g.text(g.size())}}}
	switch g.r.IntN(6) {
	case 0:
		user.ContentIsString = true
	case 1:
		user.Content = append(user.Content, session.ContentBlock{Type: session.BlockImage, Extra: &session.BlockExtra{Data: "iVBORw0KGgo=", MimeType: "image/jpeg"}})
	}
	g.msg(user)
	for range 1 + g.r.IntN(8) {
		calls := g.assistant()
		for _, c := range calls {
			g.toolResult(c)
		}
		if len(calls) == 0 {
			break
		}
	}
}

func (g *generator) assistant() []session.ContentBlock {
	m := &session.Message{Role: session.RoleAssistant, API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-5",
		StopReason: session.StopStop, Timestamp: g.ms()}
	if g.r.IntN(3) == 0 {
		m.Content = append(m.Content, session.ContentBlock{Type: session.BlockThinking, Thinking: g.text(g.size())})
	}
	if g.r.IntN(3) > 0 {
		m.Content = append(m.Content, session.ContentBlock{Type: session.BlockText, Text: g.text(g.size())})
	}
	var calls []session.ContentBlock
	for i := range g.r.IntN(4) {
		c := session.ContentBlock{Type: session.BlockToolCall, ID: fmt.Sprintf("call_%d_%d", g.last, i)}
		switch g.r.IntN(9) {
		case 0, 1:
			c.Name, c.Arguments = "read", g.args(map[string]any{"path": g.path(), "offset": g.r.IntN(100)})
		case 2:
			c.Name, c.Arguments = "write", g.args(map[string]any{"path": g.path(), "content": g.text(g.size())})
		case 3, 4:
			c.Name, c.Arguments = "edit", g.args(map[string]any{"path": g.path(),
				"edits": []any{map[string]any{"oldText": g.text(20), "newText": g.text(30)}}})
		case 5:
			c.Name, c.Arguments = "bash", g.args(map[string]any{"command": "go test ./... " + g.text(10), "timeout": 1.5})
		case 6:
			// Not a file operation: a path that is not a string, an empty
			// one, a differently cased key.
			bad := []string{`{"path":7}`, `{"path":""}`, `{"Path":"main.go"}`, `{"path":null}`}
			c.Name, c.Arguments = []string{"read", "edit", "write"}[g.r.IntN(3)], json.RawMessage(bad[g.r.IntN(len(bad))])
		case 7:
			c.Name, c.Arguments = "grep", json.RawMessage(`{"pattern":"a\"b","2":"two","1":[1,2.5,{"b":1,"a":"\u00e9"}],"path":"src"}`)
		default:
			c.Name, c.Arguments = "ls", json.RawMessage(`{}`)
		}
		m.Content = append(m.Content, c)
		calls = append(calls, c)
	}
	if len(calls) > 0 {
		m.StopReason = session.StopToolUse
	}
	total := 0
	u := &session.Usage{Input: 1000 + g.r.IntN(150000), Output: g.r.IntN(4000), CacheRead: g.r.IntN(50000), CacheWrite: g.r.IntN(2000)}
	if g.r.IntN(3) > 0 {
		total = u.Input + u.Output + u.CacheRead + u.CacheWrite
	}
	u.TotalTokens = total
	m.Usage = u
	switch g.r.IntN(15) {
	case 0:
		m.StopReason = session.StopAborted
		m.SetErrorMessage("Request was aborted")
	case 1:
		m.StopReason = session.StopError
		m.SetErrorMessage("overloaded")
	case 2:
		m.StopReason = session.StopLength
	}
	g.msg(m)
	return calls
}

func (g *generator) args(v map[string]any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func (g *generator) toolResult(c session.ContentBlock) {
	text := g.text(g.size())
	if g.r.IntN(3) == 0 {
		// Put a character above U+FFFF across the 2000-unit cut.
		pad := 1998 + g.r.IntN(3)
		text = strings.Repeat("x", pad) + "😀😀" + text
	}
	m := &session.Message{Role: session.RoleToolResult, ToolCallID: c.ID, ToolName: c.Name, IsError: g.r.IntN(10) == 0,
		Content: []session.ContentBlock{{Type: session.BlockText, Text: text}}, Timestamp: g.ms()}
	if g.r.IntN(10) == 0 {
		m.Content = append(m.Content, session.ContentBlock{Type: session.BlockImage, Extra: &session.BlockExtra{Data: "iVBORw0KGgo=", MimeType: "image/png"}})
	}
	g.msg(m)
}

// compaction appends a compaction like one lunar or pi writes, or a
// damaged one.
func (g *generator) compaction() {
	ids := g.ids()
	if len(ids) < 4 {
		return
	}
	kept := ids[len(ids)/3+g.r.IntN(len(ids)-len(ids)/3)]
	switch g.r.IntN(10) {
	case 0:
		kept = "deadbeef"
	case 1:
		kept = ""
	}
	summary := "## Goal\n" + g.text(200)
	var details json.RawMessage
	switch g.r.IntN(5) {
	case 0:
	case 1:
		details = json.RawMessage(`{"readFiles":"main.go","modifiedFiles":["a.go","b.go"],"other":{"readFiles":["x.go"]}}`)
	default:
		var read, mod []string
		for range g.r.IntN(4) {
			read = append(read, g.path())
		}
		for range g.r.IntN(3) {
			mod = append(mod, g.path())
		}
		details = fileDetails(read, mod)
		summary += FormatFileOps(read, mod)
	}
	if g.r.IntN(10) == 0 {
		summary = ""
	}
	g.add(&session.Entry{Type: session.TypeCompaction,
		Fields: &session.EntryFields{Summary: summary, FirstKeptEntryID: kept, TokensBefore: 50000 + g.r.IntN(100000), Details: details, FromHook: g.r.IntN(5) == 0}})
}

// branch moves the leaf back, with a branch summary or without.
func (g *generator) branch() {
	all := g.s.Entries()
	if len(all) < 3 {
		return
	}
	target := all[g.r.IntN(len(all))].ID
	if g.r.IntN(20) == 0 {
		target = ""
	}
	if g.r.IntN(2) == 0 {
		if err := g.s.Branch(target); err != nil {
			panic(err)
		}
		return
	}
	read := []string{g.path()}
	summary := BranchSummaryPreamble + g.text(300) + FormatFileOps(read, nil)
	if g.r.IntN(8) == 0 {
		summary = ""
	}
	_, err := g.s.BranchWithSummary(target, summary, fileDetails(read, []string{g.path()}), g.r.IntN(4) == 0)
	if err != nil {
		panic(err)
	}
}

// generated returns the files of a few synthetic sessions in a new folder.
func generated(t testing.TB) []string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sessions")
	var files []string
	for seed := range uint64(3) {
		files = append(files, generateSession(t, dir, seed+1, 220))
	}
	return files
}
