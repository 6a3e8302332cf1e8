package session

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var (
	hex8Re   = regexp.MustCompile(`^[0-9a-f]{8}$`)
	uuidv7Re = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	isoRe    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)
)

// fakeClock makes nowFunc return start, start+1s, start+2s, ... for the
// rest of the test.
func fakeClock(t *testing.T, start time.Time) {
	t.Helper()
	old := nowFunc
	n := 0
	nowFunc = func() time.Time {
		n++
		return start.Add(time.Duration(n-1) * time.Second)
	}
	t.Cleanup(func() { nowFunc = old })
}

// seqIDs makes migration ids deterministic: 00000001, 00000002, ... as
// testdata/gen/migrate.js draws them.
func seqIDs(t *testing.T) {
	t.Helper()
	old := migrationID
	n := 0
	migrationID = func(func(string) bool) string {
		n++
		return fmt.Sprintf("%08x", n)
	}
	t.Cleanup(func() { migrationID = old })
}

// copyFixture copies a testdata file into a fresh folder and returns the
// copy's path.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), filepath.Base(name))
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

// writeLines writes lines (each followed by a newline) to a new file.
func writeLines(t *testing.T, lines ...string) string {
	t.Helper()
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	return path
}

// fileLines returns a file's lines without their newlines.
func fileLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, len(data) == 0 || data[len(data)-1] == '\n', "file does not end with a newline")
	var out []string
	for _, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		out = append(out, string(l))
	}
	return out
}

const testHeader = `{"type":"session","version":3,"id":"0197a3c4-5e6f-7a8b-9c0d-1e2f3a4b5c6d","timestamp":"2025-06-01T10:00:00.000Z","cwd":"/w"}`

// userLine is a v3 message entry line with a user text message.
func userLine(id, parent, ts, text string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":%q,"message":{"role":"user","content":[{"type":"text","text":%q}],"timestamp":1748772000000}}`, id, p, ts, text)
}

func userMsg(text string) *Message {
	return &Message{Role: RoleUser, Content: []ContentBlock{{Type: BlockText, Text: text}}, Timestamp: 1748772000000}
}

func assistantMsg(text string) *Message {
	return &Message{Role: RoleAssistant, Content: []ContentBlock{{Type: BlockText, Text: text}},
		API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-5",
		Usage: &Usage{Input: 10, Output: 5, TotalTokens: 15}, StopReason: StopStop, Timestamp: 1748772000001}
}

// texts returns the role and text of each context message, for compact
// comparisons.
func texts(msgs []ContextMessage) []string {
	var out []string
	for _, m := range msgs {
		switch m.Message.Role {
		case RoleBranchSummary, RoleCompactionSummary:
			out = append(out, m.Message.Role+":"+m.Message.Summary())
		case RoleBashExecution:
			out = append(out, m.Message.Role+":"+m.Message.Command())
		default:
			out = append(out, m.Message.Role+":"+m.Message.Text())
		}
	}
	return out
}

func mustAppend(t *testing.T, s *Session, m *Message) string {
	t.Helper()
	id, err := s.AppendMessage(m)
	require.NoError(t, err)
	return id
}
