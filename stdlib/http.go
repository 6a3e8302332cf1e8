package stdlib

// The http module: one blocking request, bounded by its timeout and by the
// hook call's context (the hook timeout, Ctrl+C).

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	glua "github.com/yuin/gopher-lua"
)

// maxHTTPBody bounds the response body a hook can read into memory.
const maxHTTPBody = 64 << 20

func httpModule(env *Env) *Module {
	return &Module{
		Name: "http",
		Doc:  "HTTP client. Requests are cancelled by their timeout, the hook timeout and Ctrl+C.",
		Funcs: []Func{
			{Name: "request", Fn: env.httpRequest, Returns: "http.Response?, string?",
				Params: []Param{{Name: "req", Type: "http.Request|string", Doc: "a request table, or a URL to GET"}},
				Doc:    "Makes one request. Any status is a response; nil and a message only when no response arrived (bad URL, network error, timeout)."},
		},
		Classes: []Class{
			{Name: "http.Request", Fields: []Field{
				{Name: "url", Type: "string"},
				{Name: "method", Type: "string?", Doc: `default "GET"`},
				{Name: "headers", Type: "table<string,string>?"},
				{Name: "body", Type: "string?"},
				{Name: "timeout_ms", Type: "integer?", Doc: "default 30000"},
			}},
			{Name: "http.Response", Fields: []Field{
				{Name: "status", Type: "integer"},
				{Name: "headers", Type: "table<string,string>", Doc: "lower-case names; repeated headers joined with \", \""},
				{Name: "body", Type: "string"},
			}},
		},
	}
}

func (env *Env) httpRequest(L *glua.LState) int {
	var method, url, body string
	var headers *glua.LTable
	timeout := env.HTTPTimeout
	if timeout <= 0 {
		timeout = DefaultHTTPTimeout
	}
	switch a := L.Get(1).(type) {
	case glua.LString:
		url = string(a)
	case *glua.LTable:
		url = optString(L, a, "url")
		method = optString(L, a, "method")
		body = optString(L, a, "body")
		if h, ok := a.RawGetString("headers").(*glua.LTable); ok {
			headers = h
		} else if a.RawGetString("headers") != glua.LNil {
			L.ArgError(1, "headers must be a table")
		}
		if v := a.RawGetString("timeout_ms"); v != glua.LNil {
			n, ok := v.(glua.LNumber)
			if !ok || n <= 0 {
				L.ArgError(1, "timeout_ms must be a positive number")
			}
			timeout = time.Duration(float64(n) * float64(time.Millisecond))
		}
	default:
		L.ArgError(1, "request table or URL expected")
	}
	if url == "" {
		L.ArgError(1, "url is required")
	}
	if method == "" {
		method = http.MethodGet
	}
	parent := L.Context()
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, strings.ToUpper(method), url, rd)
	if err != nil {
		return pushErr(L, err)
	}
	if headers != nil {
		var herr error
		headers.ForEach(func(k, v glua.LValue) {
			ks, ok1 := k.(glua.LString)
			if !ok1 || (v.Type() != glua.LTString && v.Type() != glua.LTNumber) {
				herr = fmt.Errorf("headers must map names to strings")
				return
			}
			req.Header.Set(string(ks), v.String())
		})
		if herr != nil {
			L.ArgError(1, herr.Error())
		}
	}
	client := env.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	res, err := client.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded && parent.Err() == nil {
			return pushErr(L, fmt.Errorf("%s %s: timed out after %s", req.Method, url, timeout))
		}
		return pushErr(L, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxHTTPBody+1))
	if err != nil {
		return pushErr(L, fmt.Errorf("%s %s: reading the body: %w", req.Method, url, err))
	}
	if len(data) > maxHTTPBody {
		return pushErr(L, fmt.Errorf("%s %s: response body larger than %d MB", req.Method, url, maxHTTPBody>>20))
	}
	holding(L, "http.request", int64(len(data)))
	t := L.CreateTable(0, 3)
	t.RawSetString("status", glua.LNumber(res.StatusCode))
	names := make([]string, 0, len(res.Header))
	for k := range res.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	ht := L.CreateTable(0, len(names))
	for _, k := range names {
		ht.RawSetString(strings.ToLower(k), glua.LString(strings.Join(res.Header.Values(k), ", ")))
	}
	t.RawSetString("headers", ht)
	t.RawSetString("body", glua.LString(data))
	L.Push(t)
	return 1
}

// optString reads an optional string field of t, raising an argument error
// for any other type.
func optString(L *glua.LState, t *glua.LTable, key string) string {
	switch v := t.RawGetString(key).(type) {
	case *glua.LNilType:
		return ""
	case glua.LString:
		return string(v)
	case glua.LNumber:
		return v.String()
	default:
		L.ArgError(1, key+" must be a string")
		return ""
	}
}
