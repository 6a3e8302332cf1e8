package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/session/sessiontest"
)

// benchSession is an in-memory session of turns tool-using turns: the
// user asks, the model calls bash, the tool answers ~2 KB, the model
// answers.
func benchSession(b *testing.B, turns int, api string) *session.Session {
	b.Helper()
	s := session.CreateInMemory("/tmp/bench")
	out := strings.Repeat("some tool output line\n", 100)
	add := func(m session.Message) {
		m.Timestamp = time.Now().UnixMilli()
		if _, err := s.AppendMessage(&m); err != nil {
			b.Fatal(err)
		}
	}
	for i := range turns {
		add(session.Message{Role: session.RoleUser, Content: []session.ContentBlock{{Type: session.BlockText, Text: fmt.Sprintf("question %d: what does the build say?", i)}}})
		id := fmt.Sprintf("call_%d", i)
		add(session.Message{Role: session.RoleAssistant, API: api, Provider: "bench", Model: "m", StopReason: session.StopToolUse,
			Usage: &session.Usage{Input: 1000 + i*600, Output: 40, TotalTokens: 1040 + i*600},
			Content: []session.ContentBlock{{Type: session.BlockText, Text: "Let me run it."},
				{Type: session.BlockToolCall, ID: id, Name: "bash", Arguments: json.RawMessage(`{"command":"go build ./..."}`)}}})
		add(session.Message{Role: session.RoleToolResult, ToolCallID: id, ToolName: "bash",
			Content: []session.ContentBlock{{Type: session.BlockText, Text: out}}})
		add(session.Message{Role: session.RoleAssistant, API: api, Provider: "bench", Model: "m", StopReason: session.StopStop,
			Usage:   &session.Usage{Input: 1600 + i*600, Output: 80, TotalTokens: 1680 + i*600},
			Content: []session.ContentBlock{{Type: session.BlockText, Text: "The build passes; nothing to fix."}}})
	}
	return s
}

// BenchmarkTurnRequest is the per-turn cost of preparing a model call in
// a session of 100 and of 250 turns (400 and 1,000 messages): the context
// from the session, the hook pass, the provider's request and its JSON
// body. (Issue 9's target: under 2 ms for 1,000 messages.)
func BenchmarkTurnRequest(b *testing.B) {
	for _, bc := range []struct {
		api   string
		turns int
	}{{APIOpenAICompletions, 100}, {APIAnthropicMessages, 100}, {APIOpenAICompletions, 250}, {APIAnthropicMessages, 250}} {
		api := bc.api
		b.Run(fmt.Sprintf("%s/%d-messages", api, 4*bc.turns), func(b *testing.B) {
			s := benchSession(b, bc.turns, api)
			tools := []*Tool{{Name: "bash", Description: "Run a command", Parameters: llmTools[0].Parameters}}
			a := &agent{Session: s, Model: Model{Provider: "bench", ID: "m", API: api, BaseURL: "http://127.0.0.1:1/v1", MaxTokens: 8192},
				SystemPrompt: strings.Repeat("You are a coding assistant. ", 40), Tools: tools,
				NewProvider: func(Model) (Provider, error) { return nil, nil }}
			r := &run{a: a, ctx: context.Background(), systemPrompt: a.SystemPrompt}
			var size int
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				size = len(benchBody(b, r, api).bytes())
			}
			b.ReportMetric(float64(size)/1024, "body-KiB")
		})
	}
}

// BenchmarkResumeRequest100k is the first request after resuming a
// session of 100,000 messages (25,000 tool-using turns): the context from
// the session, the provider's request and its JSON body, streamed in
// chunks as it is sent (issue #27 item 3). cpu-ns/op is the process's CPU
// time per op.
func BenchmarkResumeRequest100k(b *testing.B) {
	for _, api := range []string{APIOpenAICompletions, APIAnthropicMessages} {
		b.Run(api, func(b *testing.B) {
			s := benchSession(b, 25_000, api)
			a := &agent{Session: s, Model: Model{Provider: "bench", ID: "m", API: api, BaseURL: "http://127.0.0.1:1/v1", MaxTokens: 8192},
				SystemPrompt: "You are a coding assistant.", NewProvider: func(Model) (Provider, error) { return nil, nil }}
			r := &run{a: a, ctx: context.Background(), systemPrompt: a.SystemPrompt}
			var size int64
			reportCPU := sessiontest.CPUPerOp(b)
			b.ResetTimer()
			for b.Loop() {
				rb := benchBody(b, r, api)
				if !rb.stream() {
					b.Fatal("a body this large is streamed")
				}
				body := rb.reader()
				var err error
				if size, err = io.Copy(io.Discard, body); err != nil {
					b.Fatal(err)
				}
				body.Close()
			}
			reportCPU()
			b.ReportMetric(float64(size)/(1<<20), "body-MiB")
		})
	}
}

// benchBody builds r's next request and its body for api.
func benchBody(b *testing.B, r *run, api string) *requestBody {
	req, _, err := r.request()
	if err != nil {
		b.Fatal(err)
	}
	var rb *requestBody
	if api == APIOpenAICompletions {
		rb, _, err = openAIRequest(req)
	} else {
		rb, _, err = anthropicRequest(req)
	}
	if err != nil {
		b.Fatal(err)
	}
	return rb
}
