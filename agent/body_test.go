package agent

// Tests of the request bodies lunar writes: the JSON writer, and the
// exact messages pi's converters would send for each difference found by
// running pi 0.73.1 on the same sessions (issue 9). Every body is also
// decoded with the SDK's own request types and must survive that.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// bodyBytes encodes req's body for its model's API and checks the bytes
// are valid JSON the SDK's own request type decodes.
func bodyBytes(t testing.TB, req *Request) []byte {
	t.Helper()
	body := rawBody(t, req)
	checkSDKDecodes(t, req.Model.API, body)
	return body
}

// rawBody encodes req's body for its model's API.
func rawBody(t testing.TB, req *Request) []byte {
	t.Helper()
	var rb *requestBody
	var err error
	if req.Model.API == APIAnthropicMessages {
		rb, _, err = anthropicRequest(req)
	} else {
		rb, _, err = openAIRequest(req)
	}
	require.NoError(t, err)
	body := rb.bytes()
	require.True(t, json.Valid(body), "%s", body)
	return body
}

// checkSDKDecodes decodes body with the SDK's request type of api and
// checks that encoding it again keeps every field lunar wrote.
func checkSDKDecodes(t testing.TB, api string, body []byte) {
	t.Helper()
	var again []byte
	var err error
	if api == APIAnthropicMessages {
		var p anthropic.MessageNewParams
		require.NoError(t, json.Unmarshal(body, &p), "anthropic.MessageNewParams decodes the body")
		again, err = json.Marshal(p)
	} else {
		var p openai.ChatCompletionNewParams
		require.NoError(t, json.Unmarshal(body, &p), "openai.ChatCompletionNewParams decodes the body")
		again, err = json.Marshal(p)
	}
	require.NoError(t, err)
	var want, got any
	require.NoError(t, json.Unmarshal(body, &want))
	require.NoError(t, json.Unmarshal(again, &got))
	for _, d := range sdkDiff("", want, got) {
		assert.Fail(t, "the SDK's types change the body", "%s", d)
	}
}

// sdkExtensions are the members lunar writes that the SDKs' request
// types do not model (they drop them when decoding): "stream", which
// their NewStreaming adds, and the fields of compatible services and
// newer API versions, as pi sends them.
var sdkExtensions = map[string]bool{
	"stream": true, "reasoning_content": true, "reasoning": true, "reasoning_text": true, "reasoning_details": true,
	"name": true, "thinking": true, "display": true,
}

// sdkDiff lists where the SDK's re-encoding of a body (sdk) differs from
// lunar's (mine): a null member and an absent one are the same, and the
// SDK may drop the members in sdkExtensions.
func sdkDiff(path string, mine, sdk any) []string {
	switch m := mine.(type) {
	case map[string]any:
		s, ok := sdk.(map[string]any)
		if !ok {
			return []string{path + ": an object became " + fmt.Sprint(sdk)}
		}
		var out []string
		for k, v := range m {
			sv, in := s[k]
			switch {
			case in:
				out = append(out, sdkDiff(path+"."+k, v, sv)...)
			case v != nil && !sdkExtensions[k]:
				out = append(out, path+"."+k+": dropped by the SDK")
			}
		}
		for k, v := range s {
			if _, in := m[k]; !in && v != nil {
				out = append(out, path+"."+k+": added by the SDK")
			}
		}
		return out
	case string:
		// The Anthropic SDK turns string content into its one text block,
		// the same thing to the API.
		if s, ok := sdk.([]any); ok && len(s) == 1 && reflect.DeepEqual(s[0], map[string]any{"type": "text", "text": m}) {
			return nil
		}
		if mine != sdk {
			return []string{fmt.Sprintf("%s: %q became %v", path, m, sdk)}
		}
		return nil
	case []any:
		s, ok := sdk.([]any)
		if !ok || len(s) != len(m) {
			return []string{path + ": the array changed"}
		}
		var out []string
		for i := range m {
			out = append(out, sdkDiff(fmt.Sprintf("%s.%d", path, i), m[i], s[i])...)
		}
		return out
	default:
		if !reflect.DeepEqual(mine, sdk) {
			return []string{fmt.Sprintf("%s: %v became %v", path, mine, sdk)}
		}
		return nil
	}
}

// anthropicBodyJSON is req's Anthropic body, decoded.
func anthropicBodyJSON(t testing.TB, req *Request) map[string]any {
	t.Helper()
	req.Model.API = APIAnthropicMessages
	var v map[string]any
	require.NoError(t, json.Unmarshal(bodyBytes(t, req), &v))
	return v
}

// wireMessages is the exact "messages" array of req's body.
func wireMessages(t testing.TB, req *Request) string {
	t.Helper()
	var v map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(bodyBytes(t, req), &v))
	return string(v["messages"])
}

// Session messages for the converter tables.
func uText(parts ...string) session.Message {
	m := session.Message{Role: session.RoleUser}
	for _, p := range parts {
		m.Content = append(m.Content, session.ContentBlock{Type: session.BlockText, Text: p})
	}
	return m
}

func uString(s string) session.Message {
	return session.Message{Role: session.RoleUser, ContentIsString: true, Content: []session.ContentBlock{{Type: session.BlockText, Text: s}}}
}

func wText(s string) session.ContentBlock {
	return session.ContentBlock{Type: session.BlockText, Text: s}
}

func wThinking(s, sig string) session.ContentBlock {
	return session.ContentBlock{Type: session.BlockThinking, Thinking: s, ThinkingSignature: sig}
}

func wImage(data string) session.ContentBlock {
	return session.ContentBlock{Type: session.BlockImage, Extra: &session.BlockExtra{Data: data, MimeType: "image/png"}}
}

func wCall(id, args string) session.ContentBlock {
	return session.ContentBlock{Type: session.BlockToolCall, ID: id, Name: "bash", Arguments: json.RawMessage(args)}
}

// reply is an assistant message of model (provider/api/id as in
// bodyModel unless changed).
func wReply(api string, blocks ...session.ContentBlock) session.Message {
	return session.Message{Role: session.RoleAssistant, API: api, Provider: "p", Model: "m", StopReason: session.StopStop, Content: blocks}
}

func wForeign(api string, blocks ...session.ContentBlock) session.Message {
	m := wReply(api, blocks...)
	m.Provider, m.Model = "other", "other-model"
	return m
}

func wResult(id string, blocks ...session.ContentBlock) session.Message {
	return session.Message{Role: session.RoleToolResult, ToolCallID: id, ToolName: "bash", Content: blocks}
}

func bodyModel(api string) Model {
	return Model{Provider: "p", ID: "m", API: api, BaseURL: "http://127.0.0.1:1/v1", Input: textImage}
}

// lone is a lone high surrogate as a loaded pi file holds it (WTF-8).
const lone = "\xed\xa0\xbd"

func TestJSONStringEscaping(t *testing.T) {
	tests := []struct {
		name, in, escaped, sanitized string
	}{
		{"plain", "hello", `"hello"`, `"hello"`},
		{"JSON.stringify's escapes", "a\"b\\c\nd\re\tf\bg\fh\x01i\x1f", `"a\"b\\c\nd\re\tf\bg\fh\u0001i\u001f"`, `"a\"b\\c\nd\re\tf\bg\fh\u0001i\u001f"`},
		{"html and line separators as they are", "<a>&\u2028\u2029", "\"<a>&\u2028\u2029\"", "\"<a>&\u2028\u2029\""},
		{"lone high surrogate", "a" + lone + "b", `"a\ud83db"`, `"ab"`},
		{"lone low surrogate", "a\xed\xb8\x80b", `"a\ude00b"`, `"ab"`},
		{"a pair held as two halves", "a" + lone + "\xed\xb8\x80b", "\"a😀b\"", "\"a😀b\""},
		{"invalid UTF-8", "a\xffb", "\"a\uFFFDb\"", "\"a\uFFFDb\""},
		{"emoji", "😀", "\"😀\"", "\"😀\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.escaped, string(appendJSONString(nil, tc.in, false)))
			assert.Equal(t, tc.sanitized, string(appendJSONString(nil, tc.in, true)))
			if utf8.ValidString(strings.ReplaceAll(strings.ReplaceAll(tc.in, lone, ""), "\xed\xb8\x80", "")) {
				var back string
				require.NoError(t, json.Unmarshal(appendJSONString(nil, tc.in, true), &back))
				assert.Equal(t, back, sanitizeText(tc.in))
			}
		})
	}
}

// appendJSONBodyByBytes is appendJSONBody a byte at a time (as it was
// before it skipped plain text a word at a time).
func appendJSONBodyByBytes(b []byte, s string, sanitize bool) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' {
				b = session.AppendEscape(b, c)
			} else {
				b = append(b, c)
			}
			i++
			continue
		}
		if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size != 1 {
			b = append(b, s[i:i+size]...)
			i += size
			continue
		}
		if hi, ok := surrogateAt(s, i); ok {
			if lo, ok := surrogateAt(s, i+3); ok && hi < 0xDC00 && lo >= 0xDC00 {
				b = utf8.AppendRune(b, 0x10000+(hi-0xD800)<<10+(lo-0xDC00))
				i += 6
				continue
			}
			if !sanitize {
				b = fmt.Appendf(b, `\u%04x`, hi)
			}
			i += 3
			continue
		}
		b = append(b, "\uFFFD"...)
		i++
	}
	return b
}

// FuzzJSONStringEscaping checks appendJSONBody against the byte-at-a-time
// form, at every offset of the input (every byte in every lane of a word),
// and that valid UTF-8 comes back from encoding/json as it went in.
func FuzzJSONStringEscaping(f *testing.F) {
	f.Add("a\"b\\c\nd\re\tf\bg\fh\x01i\x1f <a>&\u2028 😀 a" + lone + "\xed\xb8\x80b \xff" + lone + "x")
	f.Add(strings.Repeat("func main() {\n\tfmt.Println(\"hi\")\n}\n", 3))
	f.Fuzz(func(t *testing.T, s string) {
		for i := range len(s) {
			for _, sanitize := range []bool{false, true} {
				got, want := appendJSONBody(nil, s[i:], sanitize), appendJSONBodyByBytes(nil, s[i:], sanitize)
				if !bytes.Equal(got, want) {
					t.Fatalf("appendJSONBody(%q, %v) = %q, want %q", s[i:], sanitize, got, want)
				}
			}
		}
		if utf8.ValidString(s) {
			var back string
			require.NoError(t, json.Unmarshal(appendJSONString(nil, s, false), &back))
			require.Equal(t, s, back)
		}
	})
}

func TestJSBlank(t *testing.T) {
	for s, want := range map[string]bool{"": true, " \t\n\r\v\f": true, "\u00a0\u2028\u2029\ufeff\u3000\u2003": true,
		"\u0085": false, "a": false, " x ": false, lone: false} {
		assert.Equal(t, want, isJSBlank(s), "%q", s)
	}
}

func TestToolIDs(t *testing.T) {
	openaiID := openAIToolID("openai")
	otherID := openAIToolID("groq")
	long := strings.Repeat("x", 50)
	tests := []struct{ in, openai, other, anthropic string }{
		{"call_abc", "call_abc", "call_abc", "call_abc"},
		{"call_abc|fc_xyz+/=", "call_abc", "call_abc", "call_abc_fc_xyz___"},
		{"call.a|b", "call_a", "call_a", "call_a_b"},
		{long, long[:40], long, long},
		{"call_😀|x", "call___", "call___", "call____x"},
		{"toolu_" + strings.Repeat("y", 70), "toolu_" + strings.Repeat("y", 34), "toolu_" + strings.Repeat("y", 70), "toolu_" + strings.Repeat("y", 58)},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.openai, openaiID(tc.in), "openai %q", tc.in)
		assert.Equal(t, tc.other, otherID(tc.in), "other %q", tc.in)
		assert.Equal(t, tc.anthropic, anthropicToolID(tc.in), "anthropic %q", tc.in)
	}
	assert.Equal(t, "ab\xed\xa0\xbd", utf16Prefix("ab😀cd", 3), "JavaScript's slice keeps half a pair")
}

// TestOpenAIMessagesAsPi: each case is one way lunar's request differed
// from pi's on the same session; the want is what pi 0.73.1's
// convertMessages sends (checked against pi itself by
// e2e_pi_requests_test.go).
func TestOpenAIMessagesAsPi(t *testing.T) {
	const api = APIOpenAICompletions
	errored := wReply(api, wText("partial"), wCall("call_err", `{}`))
	errored.StopReason = session.StopError
	tests := []struct {
		name  string
		model func(*Model)
		msgs  []session.Message
		want  string
	}{
		{"text blocks joined with nothing, blank ones dropped",
			nil, []session.Message{uText("q"), wReply(api, wText("Hello"), wText("  \n"), wText(" world"))},
			`[{"role":"user","content":[{"type":"text","text":"q"}]},{"role":"assistant","content":"Hello world"}]`},
		{"a reply of whitespace only is left out",
			nil, []session.Message{uText("q"), wReply(api, wText(" \n\t")), uText("again")},
			`[{"role":"user","content":[{"type":"text","text":"q"}]},{"role":"user","content":[{"type":"text","text":"again"}]}]`},
		{"user parts stay parts; string content stays a string",
			nil, []session.Message{uText("one", "two"), uString("plain"), uString("")},
			`[{"role":"user","content":[{"type":"text","text":"one"},{"type":"text","text":"two"}]},{"role":"user","content":"plain"},{"role":"user","content":""}]`},
		{"an empty custom message is one empty text part",
			nil, session.ConvertToLLM([]session.Message{{Role: session.RoleCustom, ContentIsString: true, Content: []session.ContentBlock{wText("")}, Extra: &session.MessageExtra{CustomType: "note"}}}),
			`[{"role":"user","content":[{"type":"text","text":""}]}]`},
		{"a user message without parts is left out",
			nil, []session.Message{{Role: session.RoleUser, Content: []session.ContentBlock{}}, uText("q")},
			`[{"role":"user","content":[{"type":"text","text":"q"}]}]`},
		{"only tool calls: content null",
			nil, []session.Message{uText("q"), wReply(api, wCall("c1", `{"command":"ls"}`)), wResult("c1", wText("a"))},
			`[{"role":"user","content":[{"type":"text","text":"q"}]},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]},{"role":"tool","content":"a","tool_call_id":"c1"}]`},
		{"lone surrogates go from user, assistant and tool text, stay in reasoning and arguments",
			nil, []session.Message{uText("u" + lone), wReply(api, wThinking("t"+lone, "reasoning_content"), wText("a"+lone), wCall("c1", `{"x":"\ud83d"}`)),
				wResult("c1", wText("r"+lone)), uString("s" + lone)},
			`[{"role":"user","content":[{"type":"text","text":"u"}]},{"role":"assistant","content":"a","reasoning_content":"t\ud83d","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"x\":\"\\ud83d\"}"}}]},{"role":"tool","content":"r","tool_call_id":"c1"},{"role":"user","content":"s"}]`},
		{"a text that is only a lone surrogate leaves content null",
			nil, []session.Message{wReply(api, wText(lone), wCall("c1", `{}`)), wResult("c1", wText("ok"))},
			`[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","content":"ok","tool_call_id":"c1"}]`},
		{"the results of a turn first, then their images",
			nil, []session.Message{wReply(api, wCall("c1", `{}`), wCall("c2", `{}`), wCall("c3", `{}`)),
				wResult("c1", wText("shot"), wImage("AAA")), wResult("c2", wImage("BBB")), wResult("c3", wText("plain")), uText("next")},
			`[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"bash","arguments":"{}"}},{"id":"c3","type":"function","function":{"name":"bash","arguments":"{}"}}]},` +
				`{"role":"tool","content":"shot","tool_call_id":"c1"},{"role":"tool","content":"(see attached image)","tool_call_id":"c2"},{"role":"tool","content":"plain","tool_call_id":"c3"},` +
				`{"role":"user","content":[{"type":"text","text":"Attached image(s) from tool result:"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAA"}},{"type":"image_url","image_url":{"url":"data:image/png;base64,BBB"}}]},` +
				`{"role":"user","content":[{"type":"text","text":"next"}]}]`},
		{"an empty tool result is sent as pi sends it",
			nil, []session.Message{wReply(api, wCall("c1", `{}`)), wResult("c1", wText("")), wResult("c1b"), wResult("c1c", wText(""), wText(""))},
			`[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","content":"(see attached image)","tool_call_id":"c1"},{"role":"tool","content":"(see attached image)","tool_call_id":"c1b"},{"role":"tool","content":"\n","tool_call_id":"c1c"}]`},
		{"tool results join their text with newlines",
			nil, []session.Message{wReply(api, wCall("c1", `{}`)), wResult("c1", wText("a"), wText("b"))},
			`[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","content":"a\nb","tool_call_id":"c1"}]`},
		{"Responses ids are normalised in the call and its result",
			nil, []session.Message{wForeign("openai-responses", wCall("call_abc|fc_xyz+/=", `{}`)), wResult("call_abc|fc_xyz+/=", wText("ok"))},
			`[{"role":"assistant","content":null,"tool_calls":[{"id":"call_abc","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","content":"ok","tool_call_id":"call_abc"}]`},
		{"an errored reply is dropped but its results keep the mapped id",
			nil, []session.Message{wForeign(api, wCall("x|y", `{}`)), wResult("x|y", wText("r")), errored, wResult("call_err", wText("late"))},
			`[{"role":"assistant","content":null,"tool_calls":[{"id":"x","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","content":"r","tool_call_id":"x"},{"role":"tool","content":"late","tool_call_id":"call_err"}]`},
		{"a call without a result gets one",
			nil, []session.Message{wReply(api, wCall("c1", `{}`)), uText("stop")},
			`[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","content":"No result provided","tool_call_id":"c1"},{"role":"user","content":[{"type":"text","text":"stop"}]}]`},
		{"the model's own thoughtSignature goes back as reasoning_details",
			nil, []session.Message{wReply(api, wSigned(wCall("c1", `{}`), `{"type":"reasoning.encrypted","id":"c1","data":"ENC"}`), wSigned(wCall("c2", `{}`), "not json"), wSigned(wCall("c3", `{}`), "null")),
				wResult("c1", wText("1")), wResult("c2", wText("2")), wResult("c3", wText("3"))},
			`[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"bash","arguments":"{}"}},{"id":"c3","type":"function","function":{"name":"bash","arguments":"{}"}}],"reasoning_details":[{"type":"reasoning.encrypted","id":"c1","data":"ENC"}]},` +
				`{"role":"tool","content":"1","tool_call_id":"c1"},{"role":"tool","content":"2","tool_call_id":"c2"},{"role":"tool","content":"3","tool_call_id":"c3"}]`},
		{"another model's thoughtSignature is dropped",
			nil, []session.Message{wForeign(api, wSigned(wCall("c1", `{}`), `{"type":"reasoning.encrypted","id":"c1","data":"ENC"}`)), wResult("c1", wText("1"))},
			`[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","content":"1","tool_call_id":"c1"}]`},
		{"another provider's thinking becomes text, joined with the answer",
			nil, []session.Message{wForeign(APIAnthropicMessages, wThinking("Let me think.", "EqQBsig"), wText("The answer."), session.ContentBlock{Type: session.BlockThinking, Thinking: "x", ThinkingSignature: "d", Extra: &session.BlockExtra{Redacted: true}}, wThinking("  ", "sig"))},
			`[{"role":"assistant","content":"Let me think.The answer."}]`},
		{"own reasoning goes back under its field, blocks joined by newlines",
			nil, []session.Message{wReply(api, wThinking("a", "reasoning"), wThinking(" ", "reasoning"), wThinking("b", "reasoning_content"), wText("done"))},
			`[{"role":"assistant","content":"done","reasoning":"a\nb"}]`},
		{"own reasoning without a field is not sent",
			nil, []session.Message{wReply(api, wThinking("a", ""), wText("done"))},
			`[{"role":"assistant","content":"done"}]`},
		{"DeepSeek: every assistant message carries reasoning_content",
			func(m *Model) { m.Provider, m.Reasoning = "deepseek", true },
			[]session.Message{{Role: session.RoleAssistant, API: api, Provider: "deepseek", Model: "m", StopReason: session.StopStop, Content: []session.ContentBlock{wText("hi")}}},
			`[{"role":"assistant","content":"hi","reasoning_content":""}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := bodyModel(api)
			if tc.model != nil {
				tc.model(&m)
			}
			got := wireMessages(t, &Request{Model: m, Messages: tc.msgs})
			assert.Equal(t, tc.want, got)
		})
	}
}

func wSigned(c session.ContentBlock, sig string) session.ContentBlock {
	c.SetThoughtSignature(sig)
	return c
}

// TestAnthropicMessagesAsPi: as TestOpenAIMessagesAsPi, for pi's
// Anthropic convertMessages (cache breakpoints included).
func TestAnthropicMessagesAsPi(t *testing.T) {
	const api = APIAnthropicMessages
	const cc = `"cache_control":{"type":"ephemeral"}`
	redacted := session.ContentBlock{Type: session.BlockThinking, Thinking: redactedThinking, ThinkingSignature: "", Extra: &session.BlockExtra{Redacted: true}}
	tests := []struct {
		name string
		msgs []session.Message
		want string
	}{
		{"a string user message stays a string; the last one gets the breakpoint as a block",
			[]session.Message{uString("first"), wReply(api, wText("ok")), uString("last")},
			`[{"role":"user","content":"first"},{"role":"assistant","content":[{"type":"text","text":"ok"}]},{"role":"user","content":[{"type":"text","text":"last",` + cc + `}]}]`},
		{"blank user text is left out, and a message left with nothing",
			[]session.Message{uString("  "), uText("a", " ", "b"), uText("\n")},
			`[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b",` + cc + `}]}]`},
		{"no breakpoint when the conversation ends with the model",
			[]session.Message{uText("q"), wReply(api, wText("a"))},
			`[{"role":"user","content":[{"type":"text","text":"q"}]},{"role":"assistant","content":[{"type":"text","text":"a"}]}]`},
		{"tool results: text as a string, images after a placeholder, the last one cached",
			[]session.Message{wReply(api, wCall("c1", `{}`), wCall("c2", `{}`), wCall("c3", `{}`)),
				wResult("c1", wText("a"), wText("b")), wResult("c2", wImage("AAA")), wResult("c3", wText(""))},
			`[{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"bash","input":{}},{"type":"tool_use","id":"c2","name":"bash","input":{}},{"type":"tool_use","id":"c3","name":"bash","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"a\nb","is_error":false},` +
				`{"type":"tool_result","tool_use_id":"c2","content":[{"type":"text","text":"(see attached image)"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAA"}}],"is_error":false},` +
				`{"type":"tool_result","tool_use_id":"c3","content":"","is_error":false,` + cc + `}]}]`},
		{"text and images of a tool result in their order",
			[]session.Message{wReply(api, wCall("c1", `{}`)), wResult("c1", wImage("AAA"), wText("caption"))},
			`[{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"bash","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAA"}},{"type":"text","text":"caption"}],"is_error":false,` + cc + `}]}]`},
		{"thinking: signed, unsigned as text, redacted even without data; blank dropped",
			[]session.Message{wReply(api, wThinking("signed", "sig"), wThinking("unsigned", ""), wThinking("ws-sig", " "), wThinking(" ", "sig2"), redacted, wText(" "), wText("answer"))},
			`[{"role":"assistant","content":[{"type":"thinking","thinking":"signed","signature":"sig"},{"type":"text","text":"unsigned"},{"type":"text","text":"ws-sig"},{"type":"redacted_thinking","data":""},{"type":"text","text":"answer"}]}]`},
		{"another model's thinking: text; redacted dropped; ids normalised",
			[]session.Message{wForeign(APIOpenAICompletions, wThinking("hmm", "reasoning_content"), redacted, wCall("call_1|fc.2", `{"a":1}`)), wResult("call_1|fc.2", wText("r"))},
			`[{"role":"assistant","content":[{"type":"text","text":"hmm"},{"type":"tool_use","id":"call_1_fc_2","name":"bash","input":{"a":1}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1_fc_2","content":"r","is_error":false,` + cc + `}]}]`},
		{"lone surrogates go from text, thinking and results, not from signatures or input",
			[]session.Message{uText("u" + lone), wReply(api, wThinking("t"+lone, "s"+lone), wText("a"+lone), wCall("c1", `{"x":"\ud83d"}`)), wResult("c1", wText("r"+lone)), uString(lone + " ")},
			`[{"role":"user","content":[{"type":"text","text":"u"}]},{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s\ud83d"},{"type":"text","text":"a"},{"type":"tool_use","id":"c1","name":"bash","input":{"x":"\ud83d"}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"r","is_error":false}]},{"role":"user","content":[{"type":"text","text":" ",` + cc + `}]}]`},
		{"a user text that is only a lone surrogate is dropped",
			[]session.Message{uText(lone, "kept")},
			`[{"role":"user","content":[{"type":"text","text":"kept",` + cc + `}]}]`},
		{"an errored reply and its orphaned call",
			[]session.Message{uText("q"), wReply(api, wCall("c1", `{}`)), uText("interrupt")},
			`[{"role":"user","content":[{"type":"text","text":"q"}]},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"bash","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"No result provided","is_error":true}]},{"role":"user","content":[{"type":"text","text":"interrupt",` + cc + `}]}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := wireMessages(t, &Request{Model: bodyModel(api), Messages: tc.msgs})
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestImagesToTextOnlyModel: a model that takes no images gets each run
// of images of a user message or tool result as one placeholder text (an
// image right after the placeholder text adds none), as pi 0.73.1's
// downgradeUnsupportedImages sends them; the messages are not changed.
func TestImagesToTextOnlyModel(t *testing.T) {
	const user, tool = `(image omitted: model does not support images)`, `(tool image omitted: model does not support images)`
	msgs := func(api string) []session.Message {
		return []session.Message{
			{Role: session.RoleUser, Content: []session.ContentBlock{wText("look"), wImage("AAA"), wImage("BBB"), wText("and"), wImage("CCC")}},
			{Role: session.RoleUser, Content: []session.ContentBlock{wText(user), wImage("DDD")}},
			wReply(api, wCall("c1", `{}`), wCall("c2", `{}`)),
			wResult("c1", wText("shot"), wImage("EEE")), wResult("c2", wImage("FFF")),
			{Role: session.RoleUser, Content: []session.ContentBlock{wImage("GGG")}},
		}
	}
	for _, tc := range []struct {
		api, want string
	}{
		{APIOpenAICompletions,
			`[{"role":"user","content":[{"type":"text","text":"look"},{"type":"text","text":"` + user + `"},{"type":"text","text":"and"},{"type":"text","text":"` + user + `"}]},` +
				`{"role":"user","content":[{"type":"text","text":"` + user + `"}]},` +
				`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"bash","arguments":"{}"}}]},` +
				`{"role":"tool","content":"shot\n` + tool + `","tool_call_id":"c1"},{"role":"tool","content":"` + tool + `","tool_call_id":"c2"},` +
				`{"role":"user","content":[{"type":"text","text":"` + user + `"}]}]`},
		{APIAnthropicMessages,
			`[{"role":"user","content":[{"type":"text","text":"look"},{"type":"text","text":"` + user + `"},{"type":"text","text":"and"},{"type":"text","text":"` + user + `"}]},` +
				`{"role":"user","content":[{"type":"text","text":"` + user + `"}]},` +
				`{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"bash","input":{}},{"type":"tool_use","id":"c2","name":"bash","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"shot\n` + tool + `","is_error":false},{"type":"tool_result","tool_use_id":"c2","content":"` + tool + `","is_error":false}]},` +
				`{"role":"user","content":[{"type":"text","text":"` + user + `","cache_control":{"type":"ephemeral"}}]}]`},
	} {
		t.Run(tc.api, func(t *testing.T) {
			in := msgs(tc.api)
			before := fmt.Sprint(in)
			m := bodyModel(tc.api)
			m.Input = []string{InputText}
			assert.Equal(t, tc.want, wireMessages(t, &Request{Model: m, Messages: in}))
			assert.Equal(t, before, fmt.Sprint(in), "the messages are not changed")

			m.Input = textImage // a model that takes images gets them all
			got := wireMessages(t, &Request{Model: m, Messages: in})
			assert.Equal(t, 1, strings.Count(got, "omitted"), "only the session's own text")
			for _, d := range []string{"AAA", "BBB", "CCC", "DDD", "EEE", "FFF", "GGG"} {
				assert.Contains(t, got, d)
			}
		})
	}
}

// TestRequestFieldsAsPi checks the request fields around the messages
// that follow pi: the thinking switch of reasoning models, OpenRouter's
// reasoning object, the cache breakpoint on the last Anthropic tool.
func TestRequestFieldsAsPi(t *testing.T) {
	tools := []ToolSpec{{Name: "a", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}, {Name: "b"}}
	v := anthropicBodyJSON(t, &Request{Model: Model{ID: "claude-sonnet-4-6", Reasoning: true, MaxTokens: 64000}, Tools: tools,
		Params: Params{ThinkingLevel: ThinkingMedium}})
	assert.Equal(t, map[string]any{"type": "adaptive", "display": "summarized"}, v["thinking"], "Sonnet 4.6 thinks adaptively")
	assert.Nil(t, v["tools"].([]any)[0].(map[string]any)["cache_control"])
	assert.Equal(t, map[string]any{"type": "ephemeral"}, v["tools"].([]any)[1].(map[string]any)["cache_control"])

	openAIBody := func(m Model, level ThinkingLevel) map[string]any {
		m.API = APIOpenAICompletions
		var v map[string]any
		require.NoError(t, json.Unmarshal(bodyBytes(t, &Request{Model: m, Messages: []session.Message{uText("q")}, Params: Params{ThinkingLevel: level}}), &v))
		return v
	}
	or := Model{Provider: "openrouter", ID: "openai/gpt-5", Reasoning: true}
	assert.Equal(t, map[string]any{"effort": "high"}, openAIBody(or, ThinkingHigh)["reasoning"])
	assert.Equal(t, map[string]any{"effort": "none"}, openAIBody(or, ThinkingOff)["reasoning"])
	assert.Nil(t, openAIBody(or, ThinkingHigh)["reasoning_effort"])
	official := Model{Provider: "openai", ID: "gpt-4.1", API: APIOpenAICompletions, BaseURL: DefaultOpenAIBaseURL}
	var ov map[string]any
	require.NoError(t, json.Unmarshal(rawBody(t, &Request{Model: official, SessionID: "019a-session", Messages: []session.Message{uText("q")}}), &ov))
	assert.Equal(t, "019a-session", ov["prompt_cache_key"], "OpenAI caches by session, as pi asks it to")
	ov = nil
	require.NoError(t, json.Unmarshal(rawBody(t, &Request{Model: Model{Provider: "groq", ID: "x", API: APIOpenAICompletions, BaseURL: "https://api.groq.com/openai/v1"},
		SessionID: "019a-session", Messages: []session.Message{uText("q")}}), &ov))
	assert.NotContains(t, ov, "prompt_cache_key", "other services: no")
	ds := Model{Provider: "deepseek", ID: "deepseek-reasoner", Reasoning: true}
	assert.Equal(t, map[string]any{"type": "disabled"}, openAIBody(ds, ThinkingOff)["thinking"])
	v = openAIBody(ds, ThinkingHigh)
	assert.Equal(t, map[string]any{"type": "enabled"}, v["thinking"])
	assert.Equal(t, "high", v["reasoning_effort"])
}

// TestHookExtraFields: a hook's extra fields are top-level members that
// replace lunar's own, whatever their names.
func TestHookExtraFields(t *testing.T) {
	for _, api := range llmAPIs {
		m := bodyModel(api)
		body := rawBody(t, &Request{Model: m, Messages: []session.Message{uText("q")},
			Params: Params{MaxTokens: 10, Extra: map[string]any{"stream": false, "max_tokens": 99, "a.b": []int{1}}}})
		var v map[string]any
		require.NoError(t, json.Unmarshal(body, &v))
		assert.Equal(t, false, v["stream"], api)
		assert.Equal(t, 99.0, v["max_tokens"], api)
		assert.Equal(t, []any{1.0}, v["a.b"], api)
		assert.Equal(t, 1, bytes.Count(body, []byte(`"max_tokens"`)), "one member per name: %s", body)
	}
	_, _, err := openAIRequest(&Request{Params: Params{Extra: map[string]any{"bad": func() {}}}})
	assert.ErrorContains(t, err, `chat.params extra field "bad"`)
}

// TestStreamedBody: a body above streamBodyMin goes out as it is encoded,
// byte for byte the body built in memory, and again for a retry.
func TestStreamedBody(t *testing.T) {
	defer func(n int) { streamBodyMin = n }(streamBodyMin)
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Reply(llmtest.Status(http.StatusServiceUnavailable))
			srv.Reply(llmtest.Text("ok"))
			msgs := []session.Message{uText(strings.Repeat("long prompt ", 100000))}
			for i := range 200 {
				msgs = append(msgs, wReply(api, wText(strings.Repeat("answer ", 100))), uText("more "+string(rune('a'+i%26))))
			}
			req := &Request{Model: llmModel(srv, api), SystemPrompt: "sys", Messages: msgs}
			req.Model.Provider, req.Model.ID = "p", "m"
			streamBodyMin = 1 << 40
			want := bodyBytes(t, req)
			streamBodyMin = 1 << 20
			require.Greater(t, len(want), streamBodyMin)
			_, err := llmProvider(api, 1).Stream(t.Context(), req, nil)
			require.NoError(t, err)
			reqs := srv.Requests()
			require.Len(t, reqs, 2, "the 503 is retried")
			for _, r := range reqs {
				assert.True(t, bytes.Equal(want, r.Body), "the streamed body is the body (%d bytes, want %d)", len(r.Body), len(want))
			}
		})
	}
}

// TestStreamedBodyStopsWithTheRequest: when the connection stops reading
// (the request failed or was cancelled) and closes the body, the encoder
// stops instead of blocking forever.
func TestStreamedBodyStopsWithTheRequest(t *testing.T) {
	done := make(chan struct{})
	rb := &requestBody{estimate: 1 << 30, encode: func(w *jsonWriter) {
		defer close(done)
		for range 1 << 20 {
			w.raw(strings.Repeat("x", 1024))
			w.flush(false)
			if w.err != nil {
				return
			}
		}
	}}
	r := rb.reader()
	_, err := io.CopyN(io.Discard, r, 1<<20)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the encoder still runs after the body was closed")
	}
}

// TestStreamedBodyWritesItself: over HTTP/1 the transport, through the
// stall guard, copies a streamed body with its WriteTo: encoded straight
// into the connection, without the pipe and its goroutine.
func TestStreamedBodyWritesItself(t *testing.T) {
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
	}))
	defer srv.Close()
	chunk := strings.Repeat("0123456789", 100)
	rb := &requestBody{estimate: 1 << 30, encode: func(w *jsonWriter) {
		for range 5000 {
			w.raw(chunk)
			w.flush(false)
		}
	}}
	body := rb.reader()
	req, err := http.NewRequest(http.MethodPost, srv.URL, body)
	require.NoError(t, err)
	req.ContentLength = -1
	res, err := guardedClient(&http.Client{}, time.Minute, time.Minute).Do(req)
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	assert.Equal(t, strings.Repeat(chunk, 5000), string(got))
	assert.Nil(t, body.(*bodyReader).pr, "the body was never read through the pipe")
}

// TestProgressBodyWrites: a body copied with WriteTo signals progress on
// each write, as one read with Read does on each read; both give the body.
func TestProgressBodyWrites(t *testing.T) {
	chunk := strings.Repeat("x", bodyChunk)
	rb := &requestBody{estimate: 1 << 30, encode: func(w *jsonWriter) {
		for range 8 {
			w.raw(chunk)
			w.flush(false)
		}
	}}
	for _, writeTo := range []bool{true, false} {
		calls := 0
		pb := &progressBody{ReadCloser: rb.reader(), progress: func() { calls++ }}
		var out bytes.Buffer
		var err error
		if writeTo {
			_, err = pb.WriteTo(struct{ io.Writer }{&out})
		} else {
			_, err = io.Copy(struct{ io.Writer }{&out}, struct{ io.Reader }{pb})
		}
		require.NoError(t, err)
		assert.Equal(t, 8*bodyChunk, out.Len(), "WriteTo %v", writeTo)
		assert.GreaterOrEqual(t, calls, 8, "WriteTo %v", writeTo)
		require.NoError(t, pb.Close())
	}
}
