package stdlib_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/stdlib"
)

// newState returns a state with the base libraries and lunar's modules.
func newState(t *testing.T, env *stdlib.Env) *glua.LState {
	t.Helper()
	L := glua.NewState()
	t.Cleanup(L.Close)
	stdlib.Preload(L, stdlib.Modules(env))
	return L
}

// eval runs code (which must return one value) and returns it as a string.
func eval(t *testing.T, L *glua.LState, code string) string {
	t.Helper()
	require.NoError(t, L.DoString(code))
	v := L.Get(-1)
	L.Pop(1)
	return v.String()
}

func TestJSONRoundTripsByteForByte(t *testing.T) {
	L := newState(t, nil)
	c := stdlib.NewCodec(L)
	for _, doc := range []string{
		`{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1700000000000}`,
		`{"a":[],"b":{},"c":null,"d":[null,true,false],"e":-0.5,"f":1e-7,"g":1.5e+300,"h":123456789012345}`,
		`{"z":1,"y":2,"x":{"w":[1,[2,[3,[]]]]}}`,
		`{"text":"line\nbreak\ttab \"quoted\" back\\slash \u0001 é 😀 ` + "\u2028\u2029" + ` <b>&amp;</b>"}`,
		`[1,"two",{"three":3}]`,
		`"just a string"`, `42`, `true`, `null`, `[]`, `{}`,
	} {
		v, err := c.Decode([]byte(doc))
		require.NoError(t, err, doc)
		out, err := c.Encode(nil, v, stdlib.EncodeOptions{})
		require.NoError(t, err, doc)
		assert.Equal(t, doc, string(out))
	}
}

func TestJSONDecodeErrorsHavePositions(t *testing.T) {
	L := newState(t, nil)
	c := stdlib.NewCodec(L)
	tests := []struct{ in, want string }{
		{`{"a": }`, `unexpected '}' at line 1, column 7`},
		{"{\n  \"a\": 1,\n  \"b\" 2\n}", `expected ':' after object key, found '2' at line 3, column 7`},
		{`[1, 2`, `unexpected end of input in array at line 1, column 6`},
		{`{"a":1} x`, `unexpected 'x' after the JSON value at line 1, column 9`},
		{`"abc`, `unterminated string at line 1, column 5`},
		{`"\q"`, `invalid escape '\q' in string at line 1, column 2`},
		{`01`, `invalid number: leading zero at line 1, column 2`},
		{`{1:2}`, `expected a string key, found '1' at line 1, column 2`},
		{`nul`, `unexpected 'n' at line 1, column 1`},
		{strings.Repeat("[", 600), `nested too deeply at line 1, column 514`},
	}
	for _, tt := range tests {
		_, err := c.Decode([]byte(tt.in))
		require.Error(t, err, tt.in)
		assert.Equal(t, tt.want, err.Error(), tt.in)
	}
	// the Lua function returns nil and the message
	assert.Equal(t, `json.decode: unexpected '}' at line 1, column 7`, eval(t, L, `local v, err = require("json").decode('{"a": }') return err`))
}

func TestJSONModule(t *testing.T) {
	L := newState(t, nil)
	tests := []struct{ name, code, want string }{
		{"empty table is an object", `return json.encode({})`, `{}`},
		{"marked empty array", `return json.encode(json.array())`, `[]`},
		{"marked array", `return json.encode(json.array({1, 2}))`, `[1,2]`},
		{"sequence", `return json.encode({1, "a", true})`, `[1,"a",true]`},
		{"sparse is an object", `return json.encode({[1] = "a", [3] = "c"})`, `{"1":"a","3":"c"}`},
		{"mixed is an object", `return json.encode({10, x = 1})`, `{"1":10,"x":1}`},
		{"decoded empty array stays an array", `return json.encode(json.decode('{"a":[],"b":{}}'))`, `{"a":[],"b":{}}`},
		{"is_array", `return tostring(json.is_array(json.decode("[]"))) .. tostring(json.is_array({}))`, `truefalse`},
		{"null sentinel", `return tostring(json.decode("null") == json.null) .. tostring(json.null)`, `truenull`},
		{"null in arrays", `return json.encode({json.null, 1})`, `[null,1]`},
		{"key order kept", `local t = {} t.z = 1 t.a = 2 t.m = 3 return json.encode(t)`, `{"z":1,"a":2,"m":3}`},
		{"numbers", `return json.encode({1, 1.5, -3, 1e21, 2^53})`, `[1,1.5,-3,1e+21,9007199254740992]`},
		{"indent", `return json.encode({a = {1, 2}, b = {}}, {indent = "  "})`, "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}"},
		{"invalid utf-8", `return json.encode("a\255b")`, "\"a\ufffdb\""},
		{"surrogates", `return json.decode('"\\ud83d\\ude00 \\ud800x"')`, "😀 \ufffdx"},
		{"unicode escapes", `return json.decode('"\\u00e9\\u0041"')`, "éA"},
	}
	require.NoError(t, L.DoString(`json = require("json")`))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, eval(t, L, tt.code))
		})
	}
	for _, bad := range []struct{ code, want string }{
		{`json.encode({f = print})`, "json.encode: cannot encode a function value at .f"},
		{`local t = {} t.self = t json.encode(t)`, "table nested too deeply (cyclic?)"},
		{`json.encode({0/0})`, "json.encode: cannot encode NaN at [1]"},
		{`json.encode({[true] = 1})`, "cannot encode a table key of type boolean"},
	} {
		err := L.DoString(bad.code)
		require.Error(t, err, bad.code)
		assert.Contains(t, err.Error(), bad.want)
	}
}

func TestFS(t *testing.T) {
	root := t.TempDir()
	work := filepath.Join(root, "work")
	data := filepath.Join(root, "data")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{work, data, outside} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(outside, "readme.txt"), []byte("readable"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(work, "link")))
	env := &stdlib.Env{Cwd: work, WriteRoots: func() []string { return []string{work, data} }}
	L := newState(t, env)
	require.NoError(t, L.DoString(`fs = require("fs") json = require("json")`))
	out := func(code string) string { return eval(t, L, code) }

	assert.Equal(t, "true", out(`return tostring(fs.write("a.txt", "one"))`))
	assert.Equal(t, "true", out(`return tostring(fs.write("a.txt", "+two", { append = true }))`))
	assert.Equal(t, "one+two", out(`return fs.read("a.txt")`))
	assert.Equal(t, "readable", out(`return fs.read("`+filepath.Join(outside, "readme.txt")+`")`), "reads anywhere")
	assert.Equal(t, "true", out(`return tostring(fs.mkdir("`+filepath.Join(data, "x", "y")+`"))`))
	assert.Equal(t, "true", out(`return tostring(fs.write("`+filepath.Join(data, "x", "y", "f")+`", ""))`))
	assert.Equal(t, `["a.txt","link"]`, out(`return json.encode(fs.list("."))`))
	assert.Equal(t, "truefalse", out(`return tostring(fs.exists("a.txt")) .. tostring(fs.exists("nope"))`))
	assert.Equal(t, `7 false -rw-r--r--`, out(`local s = fs.stat("a.txt") return s.size .. " " .. tostring(s.is_dir) .. " " .. s.mode`))
	assert.Equal(t, "true", out(`return tostring(fs.stat(".").is_dir and fs.stat("a.txt").mtime_ms > 0)`))

	for _, target := range []string{
		filepath.Join(outside, "x.txt"),
		"../outside/x.txt",
		"link/x.txt",
		filepath.Join(work, "..", "outside", "x.txt"),
		"/etc/lunar-test",
	} {
		msg := out(`local ok, err = fs.write("` + target + `", "x") return tostring(ok) .. " " .. err`)
		assert.True(t, strings.HasPrefix(msg, "nil "+target+": writing outside"), "%s: %s", target, msg)
		msg = out(`local ok, err = fs.mkdir("` + target + `") return tostring(ok)`)
		assert.Equal(t, "nil", msg, target)
	}
	assert.NoFileExists(t, filepath.Join(outside, "x.txt"))
	assert.Equal(t, "nil", out(`return tostring(fs.read("missing.txt"))`))
	assert.Contains(t, out(`return select(2, fs.read("missing.txt"))`), "no such file")
}

func TestHTTP(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/echo":
			body, _ := io.ReadAll(r.Body)
			w.Header().Set("X-Method", r.Method)
			w.Header().Add("X-Multi", "a")
			w.Header().Add("X-Multi", "b")
			w.WriteHeader(201)
			io.WriteString(w, r.Header.Get("Authorization")+"|"+string(body))
		case "/missing":
			http.NotFound(w, r)
		case "/slow":
			select {
			case arrived <- struct{}{}:
			default:
			}
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	}))
	defer srv.Close()
	defer close(release)
	L := newState(t, &stdlib.Env{HTTPClient: srv.Client()})
	require.NoError(t, L.DoString(`http = require("http")`))

	got := eval(t, L, `local r = http.request({ method = "post", url = "`+srv.URL+`/echo", headers = { Authorization = "Bearer k" }, body = "payload" })
return r.status .. " " .. r.headers["x-method"] .. " " .. r.headers["x-multi"] .. " " .. r.body`)
	assert.Equal(t, "201 POST a, b Bearer k|payload", got)
	assert.Equal(t, "404", eval(t, L, `return http.request("`+srv.URL+`/missing").status`), "any status is a response")

	start := time.Now()
	got = eval(t, L, `local r, err = http.request({ url = "`+srv.URL+`/slow", timeout_ms = 50 }) return tostring(r) .. " " .. err`)
	assert.Equal(t, "nil GET "+srv.URL+"/slow: timed out after 50ms", got)
	assert.Less(t, time.Since(start), 5*time.Second)
	<-arrived // that request's arrival

	// Ctrl+C while waiting: the request stops, and so does the handler
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	L.SetContext(ctx)
	start = time.Now()
	err := L.DoString(`http.request("` + srv.URL + `/slow")`)
	assert.ErrorContains(t, err, "context canceled")
	assert.Less(t, time.Since(start), 5*time.Second)
	L.RemoveContext()

	assert.Contains(t, eval(t, L, `return select(2, http.request("http://127.0.0.1:1/"))`), "connection refused")
	err = L.DoString(`http.request({ method = "GET" })`)
	assert.ErrorContains(t, err, "url is required")
	err = L.DoString(`http.request({ url = "x", headers = "nope" })`)
	assert.ErrorContains(t, err, "headers must be a table")
}

func TestText(t *testing.T) {
	L := newState(t, nil)
	require.NoError(t, L.DoString(`text = require("text") json = require("json")`))
	tests := []struct{ code, want string }{
		{`return json.encode(text.split("a,b,,c", ","))`, `["a","b","","c"]`},
		{`return json.encode(text.split("  a  b\tc\n"))`, `["a","b","c"]`},
		{`return json.encode(text.split("", ","))`, `[""]`},
		{`return json.encode(text.split("   "))`, `[]`},
		{`return text.trim("  \t hi \n")`, `hi`},
		{`return tostring(text.starts_with("lunar", "lu")) .. tostring(text.starts_with("lunar", "x"))`, `truefalse`},
		{`return tostring(text.ends_with("hook.lua", ".lua")) .. tostring(text.ends_with("a", "abc"))`, `truefalse`},
		{`return text.truncate("héllo wörld", 7)`, `héllo …`},
		{`return text.truncate("short", 10)`, `short`},
		{`return text.truncate("abcdef", 4, "...")`, `a...`},
		{`return text.truncate("abcdef", 2, "...")`, `..`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, eval(t, L, tt.code), tt.code)
	}
	assert.ErrorContains(t, L.DoString(`text.split("a", "")`), "separator must not be empty")
}

func TestTime(t *testing.T) {
	L := newState(t, nil)
	require.NoError(t, L.DoString(`time = require("time")`))
	now := time.Now().UnixMilli()
	got := eval(t, L, `return time.now_ms()`)
	assert.InDelta(t, now, mustAtoi(t, got), 5000)
	require.NoError(t, L.DoString(`time.sleep_ms(1)`))

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	L.SetContext(ctx)
	start := time.Now()
	err := L.DoString(`time.sleep_ms(60000)`)
	assert.ErrorContains(t, err, "time.sleep_ms: context deadline exceeded")
	assert.Less(t, time.Since(start), 5*time.Second)
}

func mustAtoi(t *testing.T, s string) int64 {
	var n int64
	for _, ch := range s {
		require.True(t, ch >= '0' && ch <= '9', s)
		n = n*10 + int64(ch-'0')
	}
	return n
}

func TestTokensEstimateMatchesCore(t *testing.T) {
	L := newState(t, nil)
	require.NoError(t, L.DoString(`tokens = require("tokens")`))
	text := strings.Repeat("word ", 101)
	want := session.EstimateTokens(&session.Message{Role: session.RoleUser, Content: []session.ContentBlock{{Type: session.BlockText, Text: text}}})
	assert.Equal(t, want, int(mustAtoi(t, eval(t, L, `return tokens.estimate(string.rep("word ", 101))`))))

	msg := &session.Message{Role: session.RoleAssistant, Content: []session.ContentBlock{{Type: session.BlockText, Text: "an answer"},
		{Type: session.BlockToolCall, ID: "c1", Name: "read", Arguments: []byte(`{"path":"main.go"}`)}}, StopReason: session.StopToolUse, Timestamp: 1}
	want = session.EstimateTokens(msg)
	got := eval(t, L, `return tokens.estimate({ role = "assistant", stopReason = "toolUse", timestamp = 1, content = {
  { type = "text", text = "an answer" }, { type = "toolCall", id = "c1", name = "read", arguments = { path = "main.go" } } } })`)
	assert.Equal(t, want, int(mustAtoi(t, got)))
	assert.ErrorContains(t, L.DoString(`tokens.estimate(42)`), "string or message table expected")
}
