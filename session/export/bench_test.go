package export

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/session"
)

// largeSession builds an in-memory session of n entries shaped like real
// work: turns of a user prompt, a reply calling a tool, its output and a
// markdown answer with code; every branchEvery entries the conversation
// goes back a few turns and goes on from there (0: never).
func largeSession(tb testing.TB, n, branchEvery int) *session.Session {
	tb.Helper()
	s := session.CreateInMemory("/home/ana/code/big")
	text := func(s string) []session.ContentBlock {
		return []session.ContentBlock{{Type: session.BlockText, Text: s}}
	}
	usage := &session.Usage{Input: 12000, Output: 800, CacheRead: 9000, TotalTokens: 21800, Cost: session.Cost{Total: 0.0123}}
	var users []string
	count := 0 // entries so far
	for turn := 0; count < n; turn++ {
		if branchEvery > 0 && turn > 4 && count/branchEvery != (count-4)/branchEvery {
			require.NoError(tb, s.Branch(users[len(users)-3]))
		}
		if turn%25 == 0 {
			_, err := s.AppendModelChange("anthropic", fmt.Sprintf("claude-sonnet-4-%d", turn%3))
			require.NoError(tb, err)
			count++
		}
		id, err := s.AppendMessage(&session.Message{Role: session.RoleUser, Content: text(fmt.Sprintf(
			"Turn %d: please look at `internal/parse/lexer_%d.go` and make the tokenizer handle **nested** comments. It fails on:\n\n    /* a /* b */ c */\n\nKeep the public API as it is.", turn, turn%40))})
		require.NoError(tb, err)
		count++
		users = append(users, id)
		args, _ := json.Marshal(map[string]any{"command": fmt.Sprintf("go test ./internal/parse/ -run TestLexer%d -count=1", turn)})
		_, err = s.AppendMessage(&session.Message{Role: session.RoleAssistant, Provider: "anthropic", Model: "claude-sonnet-4-5", Usage: usage, StopReason: session.StopToolUse,
			Content: []session.ContentBlock{
				{Type: session.BlockThinking, Thinking: "The lexer consumes the first `*/` it sees; it needs a depth counter."},
				{Type: session.BlockText, Text: "Let me run the failing test first."},
				{Type: session.BlockToolCall, ID: fmt.Sprintf("call_%d", turn), Name: "bash", Arguments: args}}})
		require.NoError(tb, err)
		count++
		var out strings.Builder
		for l := range 12 {
			fmt.Fprintf(&out, "=== RUN   TestLexer%d/case_%d\n    lexer_test.go:%d: got %q, want %q\n", turn, l, 40+l, "c */", "")
		}
		out.WriteString("FAIL\nFAIL\tgithub.com/x/big/internal/parse\t0.012s\n")
		_, err = s.AppendMessage(&session.Message{Role: session.RoleToolResult, ToolCallID: fmt.Sprintf("call_%d", turn), ToolName: "bash", Content: text(out.String()), IsError: true})
		require.NoError(tb, err)
		count++
		_, err = s.AppendMessage(&session.Message{Role: session.RoleAssistant, Provider: "anthropic", Model: "claude-sonnet-4-5", Usage: usage, StopReason: session.StopStop,
			Content: text(fmt.Sprintf("## Fix %d\n\nThe lexer stops at the first `*/`. Track the depth:\n\n```go\nfunc (l *lexer) comment() {\n\tdepth := 1\n\tfor depth > 0 && !l.eof() {\n\t\tswitch {\n\t\tcase l.accept(\"/*\"):\n\t\t\tdepth++\n\t\tcase l.accept(\"*/\"):\n\t\t\tdepth--\n\t\tdefault:\n\t\t\tl.next()\n\t\t}\n\t}\n}\n```\n\n| case | before | after |\n|---|---|---|\n| nested | fails | passes |\n| flat | passes | passes |\n\nRun `go test ./...` to check.", turn))})
		require.NoError(tb, err)
		count++
	}
	return s
}

// BenchmarkHTML100k exports a 100,000-entry session (about 25,000 turns,
// with a branch every 500 entries).
func BenchmarkHTML100k(b *testing.B) {
	s := largeSession(b, 100_000, 500)
	var size int64
	b.ResetTimer()
	for b.Loop() {
		w := &countingWriter{}
		require.NoError(b, HTML(w, s, Options{}))
		size = w.n
	}
	b.ReportMetric(float64(size)/1e6, "MB")
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

var _ io.Writer = (*countingWriter)(nil)
