// Package mcptest is an MCP server for lunar's tests, built with the same
// SDK as the client: it produces what the npm reference servers cannot
// (slow tools, huge results, a malformed schema, a crash, a server that
// never answers initialize). Tests run it over stdio from their own test
// binary (Main, switched on by an environment variable) or over
// streamable HTTP in-process (Handler).
package mcptest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// EnvMode switches a test binary into a server (see Main): "serve" runs
// the server on stdio, "hang" reads stdin and never answers.
const EnvMode = "LUNAR_MCPTEST"

// EnvPIDFile, when set, names a file the server writes its process id to
// on start (tests check that no server outlives lunar).
const EnvPIDFile = "LUNAR_MCPTEST_PIDFILE"

// EnvStay, when set, keeps the server running after its stdin closes,
// as a badly behaved server (or one whose child holds on) does: only a
// kill ends it.
const EnvStay = "LUNAR_MCPTEST_STAY"

// TinyPNG is the image the image tool returns: a 1×1 PNG.
var TinyPNG = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0x0d, 'I', 'H', 'D', 'R', 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89}

// Main runs the server the environment asks for and reports whether it
// did: a test binary calls it first thing (from init) and exits when it
// returns true.
func Main() bool {
	mode := os.Getenv(EnvMode)
	if mode == "" {
		return false
	}
	if f := os.Getenv(EnvPIDFile); f != "" {
		_ = os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	fmt.Fprintf(os.Stderr, "mcptest: %s mode\n", mode) // goes to lunar's log, never the terminal
	switch mode {
	case "hang":
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
		}
		select {} // even after stdin closes: lunar must kill it
	default:
		_ = New().Run(context.Background(), &sdk.StdioTransport{})
		if os.Getenv(EnvStay) != "" {
			select {}
		}
	}
	return true
}

// Handler serves New over streamable HTTP; it answers 401 to requests
// without the header "Authorization: Bearer <token>" when token is set.
func Handler(token string) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return New() }, nil)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func text(s string) []sdk.Content { return []sdk.Content{&sdk.TextContent{Text: s}} }

func args(req *sdk.CallToolRequest) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(req.Params.Arguments, &m)
	return m
}

func schema(props string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	if required == nil {
		req = []byte("[]")
	}
	return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `}`)
}

// New is the test server: tools echo (read-only), fail (isError), huge,
// image, structured, slow, crash and bad_schema (a schema no validator
// accepts), and the prompt greet.
func New() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "lunar-mcptest", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echoes the message back.", InputSchema: schema(`"message":{"type":"string"}`, "message"),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: text(fmt.Sprintf("echo: %v", args(req)["message"]))}, nil
		})
	s.AddTool(&sdk.Tool{Name: "fail", Description: "Always fails.", InputSchema: schema(``)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: text("the database is on fire"), IsError: true}, nil
		})
	s.AddTool(&sdk.Tool{Name: "huge", Description: "Returns n lines.", InputSchema: schema(`"lines":{"type":"integer"}`, "lines")},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			n, _ := args(req)["lines"].(float64)
			var b strings.Builder
			for i := range int(n) {
				fmt.Fprintf(&b, "line %d of the huge result\n", i+1)
			}
			return &sdk.CallToolResult{Content: text(b.String())}, nil
		})
	s.AddTool(&sdk.Tool{Name: "image", Description: "Returns a tiny image.", InputSchema: schema(``)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a pixel:"}, &sdk.ImageContent{Data: TinyPNG, MIMEType: "image/png"}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "structured", Description: "Returns structured content only.", InputSchema: schema(``)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]any{"temperature": 21.5, "unit": "C"}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "slow", Description: "Waits ms milliseconds, or until cancelled.", InputSchema: schema(`"ms":{"type":"integer"}`, "ms")},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			ms, _ := args(req)["ms"].(float64)
			select {
			case <-time.After(time.Duration(ms) * time.Millisecond):
				return &sdk.CallToolResult{Content: text("slept")}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	s.AddTool(&sdk.Tool{Name: "crash", Description: "Exits the server.", InputSchema: schema(``)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(&sdk.Tool{Name: "bad_schema", Description: "Declares a schema no validator accepts.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"no-such-type"}}}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: text("should not run")}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []*sdk.PromptArgument{{Name: "name", Required: true}, {Name: "style"}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			style := req.Params.Arguments["style"]
			if style == "" {
				style = "plainly"
			}
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user",
				Content: &sdk.TextContent{Text: fmt.Sprintf("Greet %s %s.", req.Params.Arguments["name"], style)}}}}, nil
		})
	return s
}
