package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/session/sessiontest"
)

// benchEntries builds n entries of a realistic mix (user prompt,
// assistant with thinking, text and a tool call, tool result with code
// output) averaging about 1.5 KB per line.
func benchEntries(n int) []*Entry {
	code := strings.Repeat("func (s *Server) handle(w http.ResponseWriter, r *http.Request) {\n\tif err := s.check(r); err != nil {\n\t\thttp.Error(w, \"bad <request>\", 400)\n\t}\n}\n", 11)
	prose := strings.Repeat("The handler validates the request before dispatching it; errors are reported with a 400 status. ", 8)
	out := make([]*Entry, n)
	parent := ""
	ts := int64(1750000000000)
	for i := range out {
		var m *Message
		ts += 1000
		switch i % 4 {
		case 0:
			m = &Message{Role: RoleUser, Content: []ContentBlock{{Type: BlockText, Text: fmt.Sprintf("Step %d: please review server.go and fix the error handling.", i)}}, Timestamp: ts}
		case 1:
			args, _ := json.Marshal(map[string]any{"path": "internal/server/server.go", "offset": i, "limit": 200})
			m = &Message{Role: RoleAssistant, Content: []ContentBlock{
				{Type: BlockThinking, Thinking: prose[:300], ThinkingSignature: "EqQBCkYIBRgCKkC"},
				{Type: BlockText, Text: prose},
				{Type: BlockToolCall, ID: fmt.Sprintf("toolu_%08d", i), Name: "read", Arguments: args},
			}, API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-5",
				Usage:      &Usage{Input: 1200 + i, Output: 300, CacheRead: 40000, TotalTokens: 41500 + i, Cost: Cost{Input: 0.0036, Output: 0.0045, CacheRead: 0.012, Total: 0.0201}},
				StopReason: StopToolUse, Timestamp: ts}
		case 2:
			m = &Message{Role: RoleToolResult, ToolCallID: fmt.Sprintf("toolu_%08d", i-1), ToolName: "read",
				Content: []ContentBlock{{Type: BlockText, Text: code}}, IsError: false, Timestamp: ts}
		default:
			m = &Message{Role: RoleAssistant, Content: []ContentBlock{{Type: BlockText, Text: prose + prose[:200]}},
				API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-5",
				Usage:      &Usage{Input: 900, Output: 250, TotalTokens: 1150, Cost: Cost{Input: 0.0027, Output: 0.00375, Total: 0.00645}},
				StopReason: StopStop, Timestamp: ts}
		}
		id := fmt.Sprintf("%08x", i+1)
		out[i] = &Entry{Type: TypeMessage, ID: id, ParentID: parent, Timestamp: formatISO(nowFunc()), Message: m}
		parent = id
	}
	return out
}

// writeBenchSession writes a session of n entries and returns its path
// and size.
func writeBenchSession(tb testing.TB, dir string, n int) (string, int64) {
	h := Header{Type: TypeSession, Version: CurrentVersion, ID: newUUIDv7(nowFunc()), Timestamp: formatISO(nowFunc()), Cwd: "/home/bench"}
	buf := appendHeader(nil, &h)
	buf = append(buf, '\n')
	for _, e := range benchEntries(n) {
		var err error
		buf, err = appendEntry(buf, e)
		require.NoError(tb, err)
		buf = append(buf, '\n')
	}
	path := filepath.Join(dir, "bench.jsonl")
	require.NoError(tb, os.WriteFile(path, buf, 0o600))
	return path, int64(len(buf))
}

// BenchmarkLoad100k loads a 100k-entry session; alloc/file is the bytes
// allocated per load divided by the file size, cpu-ns/op the process's
// CPU time per load (both decoding workers and the garbage collector).
func BenchmarkLoad100k(b *testing.B) { benchLoad(b, 100_000) }

// BenchmarkLoad1k is BenchmarkLoad100k on 1,000 entries (one decoding
// worker).
func BenchmarkLoad1k(b *testing.B) { benchLoad(b, 1000) }

func benchLoad(b *testing.B, n int) {
	path, size := writeBenchSession(b, b.TempDir(), n)
	b.SetBytes(size)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	reportCPU := sessiontest.CPUPerOp(b)
	b.ResetTimer()
	for b.Loop() {
		s, err := Load(path)
		if err != nil || len(s.Entries()) != n {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportCPU()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(size), "alloc/file")
	b.ReportMetric(float64(size)/float64(n), "B/entry")

	// The heap a loaded session keeps, relative to the file size.
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := Load(path)
	require.NoError(b, err)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(s)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(size), "heap/file")
}

// BenchmarkBuildContext100k builds the context over a 100k-entry path.
func BenchmarkBuildContext100k(b *testing.B) {
	path, _ := writeBenchSession(b, b.TempDir(), 100_000)
	s, err := Load(path)
	require.NoError(b, err)
	b.ResetTimer()
	for b.Loop() {
		if c := s.BuildContext(); len(c.Messages) != 100_000 {
			b.Fatal(len(c.Messages))
		}
	}
}

// BenchmarkAppend10k appends 10k entries (about 1.5 KB each) to a
// session on disk, one write per line; one op is all 10k appends.
func BenchmarkAppend10k(b *testing.B) {
	entries := benchEntries(10_000)
	dir := b.TempDir()
	b.ResetTimer()
	for b.Loop() {
		s, err := Create(dir, "/home/bench")
		require.NoError(b, err)
		require.NoError(b, s.Persist())
		for _, e := range entries {
			if _, err := s.AppendMessage(e.Message); err != nil {
				b.Fatal(err)
			}
		}
		require.NoError(b, s.Close())
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10_000, "ns/entry")
}
