package compaction

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/session/sessiontest"
)

// benchPath is a path of n entries shaped like a long agent session: turns
// of a user message and assistant messages with read/edit/bash calls, each
// followed by its result (a few hundred bytes to a few KB), usage on every
// reply, and no compaction, so everything before the cut is summarised.
func benchPath(n int) []*session.Entry {
	path := make([]*session.Entry, 0, n)
	add := func(m *session.Message) {
		id := fmt.Sprintf("%08x", len(path)+1)
		parent := ""
		if len(path) > 0 {
			parent = path[len(path)-1].ID
		}
		path = append(path, &session.Entry{Type: session.TypeMessage, ID: id, ParentID: parent,
			Timestamp: "2025-06-01T10:00:00.000Z", Message: m})
	}
	result := strings.Repeat("line of tool output\n", 60)
	for i := 0; len(path) < n; i++ {
		if i%10 == 0 {
			add(userMsg(fmt.Sprintf("task %d: %s", i, strings.Repeat("details ", 20))))
			continue
		}
		name, args := "read", fmt.Sprintf(`{"path":"src/file%d.go"}`, i%500)
		switch i % 3 {
		case 1:
			name, args = "edit", fmt.Sprintf(`{"path":"src/file%d.go","edits":[{"oldText":"a","newText":"b"}]}`, i%500)
		case 2:
			name, args = "bash", `{"command":"go test ./..."}`
		}
		m := assistantMsg("working on it", session.ContentBlock{Type: session.BlockToolCall, ID: "c", Name: name, Arguments: json.RawMessage(args)})
		m.StopReason, m.Usage = session.StopToolUse, &session.Usage{Input: 90000, Output: 200, TotalTokens: 90200}
		add(m)
		if len(path) < n {
			add(&session.Message{Role: session.RoleToolResult, ToolCallID: "c", ToolName: name,
				Content: []session.ContentBlock{{Type: session.BlockText, Text: result}}})
		}
	}
	return path
}

// BenchmarkPrepare runs Prepare over a 100,000-entry path (the target is
// under 100 ms): "uncompacted" summarises all of it, the worst case;
// "compacted" has a compaction every 2,000 entries, as a session that long
// has, so only the entries since the last one are summarised. cpu-ns/op is
// the CPU time the process spent (garbage collection included), which a
// busy machine disturbs less than the wall-clock ns/op.
func BenchmarkPrepare(b *testing.B) {
	s := DefaultSettings()
	compacted := func(path []*session.Entry) []*session.Entry {
		for i := 2000; i < len(path); i += 2000 {
			e := path[i]
			*e = session.Entry{Type: session.TypeCompaction, ID: e.ID, ParentID: e.ParentID, Timestamp: e.Timestamp,
				Fields: &session.EntryFields{Summary: "## Goal\nwork", FirstKeptEntryID: path[i-300].ID, TokensBefore: 150000, Details: json.RawMessage(`{"readFiles":["a.go"],"modifiedFiles":["b.go"]}`)}}
		}
		return path
	}
	for _, c := range []struct {
		name       string
		path       func() []*session.Entry
		summarised int
	}{
		{"uncompacted", func() []*session.Entry { return benchPath(100_000) }, 99_000},
		{"compacted", func() []*session.Entry { return compacted(benchPath(100_000)) }, 1000},
	} {
		b.Run(c.name, func(b *testing.B) {
			// One path at a time: a process holds one session.
			path := c.path()
			p, err := Prepare(path, s)
			require.NoError(b, err)
			require.Greater(b, len(p.MessagesToSummarize), c.summarised)
			b.ReportAllocs()
			reportCPU := sessiontest.CPUPerOp(b)
			for b.Loop() {
				if _, err := Prepare(path, s); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU()
		})
	}
}
