// Package sessiontest writes session files for tests and benchmarks.
package sessiontest

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

var (
	// LargeCode is the text of WriteLarge's tool results as JSON.stringify
	// writes it (escaped), LargeProse that of its replies: a request that
	// carries the session carries each of them once per entry.
	LargeCode  = strings.Repeat(`func (s *Server) handle(w http.ResponseWriter, r *http.Request) {\n\tif err := s.check(r); err != nil {\n\t\thttp.Error(w, \"bad <request>\", 400)\n\t}\n}\n`, 11)
	LargeProse = strings.Repeat("The handler validates the request before dispatching it; errors are reported with a 400 status. ", 8)
)

// WriteLarge writes a session of n entries in pi's format to w, one long
// path (no compaction) whose own model is provider/model of api: user
// prompts, assistant replies with thinking, text and a tool call, tool
// results with code, and answers, about 1.3 KB an entry.
func WriteLarge(w io.Writer, cwd string, n int, api, provider, model string) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	q := strconv.Quote // the texts below need no escapes JSON and Go quote differently
	sig := "reasoning_content"
	if api == "anthropic-messages" {
		sig = "EqQBCkYIBRgCKkC"
	}
	fmt.Fprintf(bw, `{"type":"session","version":3,"id":"019a0000-0000-7000-8000-000000000000","timestamp":"2025-06-01T00:00:00.000Z","cwd":%s}`+"\n", q(cwd))
	fmt.Fprintf(bw, `{"type":"model_change","id":"00000000","parentId":null,"timestamp":"2025-06-01T00:00:00.000Z","provider":%s,"modelId":%s}`+"\n", q(provider), q(model))
	usage := `"usage":{"input":1200,"output":300,"cacheRead":40000,"cacheWrite":0,"totalTokens":41500,"cost":{"input":0.0036,"output":0.0045,"cacheRead":0.012,"cacheWrite":0,"total":0.0201}}`
	head := fmt.Sprintf(`"api":%s,"provider":%s,"model":%s,%s`, q(api), q(provider), q(model), usage)
	code, prose := LargeCode, LargeProse
	ts := int64(1750000000000)
	parent := "00000000"
	for i := 1; i < n; i++ {
		ts += 1000
		var m string
		switch i % 4 {
		case 1:
			m = fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":"Step %d: please review server.go and fix the error handling."}],"timestamp":%d}`, i, ts)
		case 2:
			m = fmt.Sprintf(`{"role":"assistant","content":[{"type":"thinking","thinking":%s,"thinkingSignature":%s},{"type":"text","text":%s},`+
				`{"type":"toolCall","id":"call_%08d","name":"read","arguments":{"path":"internal/server/server.go","offset":%d,"limit":200}}],%s,"stopReason":"toolUse","timestamp":%d}`,
				q(prose[:300]), q(sig), q(prose), i, i, head, ts)
		case 3:
			m = fmt.Sprintf(`{"role":"toolResult","toolCallId":"call_%08d","toolName":"read","content":[{"type":"text","text":"%s"}],"isError":false,"timestamp":%d}`, i-1, code, ts)
		default:
			m = fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":%s}],%s,"stopReason":"stop","timestamp":%d}`, q(prose+prose[:200]), head, ts)
		}
		id := fmt.Sprintf("%08x", i)
		fmt.Fprintf(bw, `{"type":"message","id":"%s","parentId":"%s","timestamp":"2025-06-01T00:00:00.000Z","message":%s}`+"\n", id, parent, m)
		parent = id
	}
	return bw.Flush()
}
