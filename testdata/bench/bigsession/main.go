// Command bigsession writes a large session file in pi's format for
// resume.sh: one long path (no compaction) of user prompts, assistant
// replies with thinking, text and a tool call, tool results with code,
// and answers, about 1.3 KB an entry (the session BenchmarkResumeLarge in
// e2e_pi_scale_test.go resumes).
//
//	bigsession -n ENTRIES -api openai-completions|anthropic-messages -model PROVIDER/ID -cwd DIR FILE
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
)

func main() {
	n := flag.Int("n", 100_000, "entries")
	api := flag.String("api", "openai-completions", "the assistant messages' api")
	model := flag.String("model", "big/big-model", "the session's provider/model")
	cwd := flag.String("cwd", "/tmp", "the header's cwd")
	flag.Parse()
	provider, id, ok := strings.Cut(*model, "/")
	if flag.NArg() != 1 || !ok {
		fmt.Fprintln(os.Stderr, "usage: bigsession [-n ENTRIES] [-api API] [-model PROVIDER/ID] [-cwd DIR] FILE")
		os.Exit(2)
	}
	if err := write(flag.Arg(0), *cwd, *n, *api, provider, id); err != nil {
		fmt.Fprintln(os.Stderr, "bigsession:", err)
		os.Exit(1)
	}
}

func write(path, cwd string, n int, api, provider, model string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	q := strconv.Quote // the texts below need no escapes JSON and Go quote differently
	code := strings.Repeat(`func (s *Server) handle(w http.ResponseWriter, r *http.Request) {\n\tif err := s.check(r); err != nil {\n\t\thttp.Error(w, \"bad <request>\", 400)\n\t}\n}\n`, 11)
	prose := strings.Repeat("The handler validates the request before dispatching it; errors are reported with a 400 status. ", 8)
	sig := "reasoning_content"
	if api == "anthropic-messages" {
		sig = "EqQBCkYIBRgCKkC"
	}
	fmt.Fprintf(w, `{"type":"session","version":3,"id":"019a0000-0000-7000-8000-000000000000","timestamp":"2025-06-01T00:00:00.000Z","cwd":%s}`+"\n", q(cwd))
	fmt.Fprintf(w, `{"type":"model_change","id":"00000000","parentId":null,"timestamp":"2025-06-01T00:00:00.000Z","provider":%s,"modelId":%s}`+"\n", q(provider), q(model))
	usage := `"usage":{"input":1200,"output":300,"cacheRead":40000,"cacheWrite":0,"totalTokens":41500,"cost":{"input":0.0036,"output":0.0045,"cacheRead":0.012,"cacheWrite":0,"total":0.0201}}`
	head := fmt.Sprintf(`"api":%s,"provider":%s,"model":%s,%s`, q(api), q(provider), q(model), usage)
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
		fmt.Fprintf(w, `{"type":"message","id":"%s","parentId":"%s","timestamp":"2025-06-01T00:00:00.000Z","message":%s}`+"\n", id, parent, m)
		parent = id
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
