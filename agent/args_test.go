package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/session"
)

func TestValidatorDecode(t *testing.T) {
	v, err := CompileSchema("echo", echoSchema)
	require.NoError(t, err)
	tests := []struct{ name, args, want, wantErr string }{
		{"canonical", ` { "msg" : "a<b>&\u00e9\n\u0001" } `, `{"msg":"a<b>&é\n\u0001"}`, ""},
		{"invalid UTF-8 as encoding/json reads it", "{\"msg\":\"a\xffb\"}", "{\"msg\":\"a\uFFFDb\"}", ""},
		{"lone surrogate", `{"msg":"\ud800x"}`, "{\"msg\":\"\uFFFDx\"}", ""},
		{"numbers as written", `{"msg":"x","n":1.50e2}`, "", `unknown property "n"`},
		{"duplicate", `{"msg":"a","msg":"b"}`, "", `key "msg" appears twice in one object`},
		{"escaped duplicate", `{"msg":"a","m\u0073g":"b"}`, "", `key "msg" appears twice`},
		{"case", `{"msg":"a","MSG":"b"}`, "", `keys "msg" and "MSG" differ only by case`},
		{"kelvin", "{\"k\":1,\"\u212a\":2,\"msg\":\"\"}", "", `differ only by case`},
		{"case alone", `{"Msg":"a"}`, "", `unknown property "Msg" (property names are case-sensitive: "msg")`},
		{"not an object", `["msg"]`, "", `expected object, got array`},
		{"trailing", `{"msg":"a"} {}`, "", `not valid JSON`},
		{"empty is {}", ``, "", `missing property "msg"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := v.Decode(json.RawMessage(tc.args))
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
		})
	}
}

// argsHooks records the input each tool.execute.before saw and replaces
// it with replace (when set).
type argsHooks struct {
	NopHooks
	seen    []string
	replace string
}

func (h *argsHooks) BeforeTool(_ context.Context, _, _ string, in json.RawMessage) ToolCallDecision {
	h.seen = append(h.seen, string(in))
	if h.replace != "" {
		return ToolCallDecision{Input: json.RawMessage(h.replace)}
	}
	return ToolCallDecision{}
}

// TestToolRunsWithWhatHooksSaw: the hooks and the tool get the same text;
// a refused call never reaches the hooks; a hook's replacement is checked
// like the model's arguments.
func TestToolRunsWithWhatHooksSaw(t *testing.T) {
	tests := []struct {
		name, args, replace string
		seen, ran           []string
		result              string
	}{
		{name: "same text", args: `{ "msg" : "hi" }`, seen: []string{`{"msg":"hi"}`}, ran: []string{"hi"}, result: "echo: hi"},
		{name: "case variant never asks", args: `{"msg":"hi","Msg":"rm"}`,
			result: `invalid arguments for tool "echo": keys "msg" and "Msg" differ only by case (names are case-sensitive)`},
		{name: "replacement checked", args: `{"msg":"hi"}`, replace: `{"msg":"ok","MSG":"rm"}`, seen: []string{`{"msg":"hi"}`},
			result: `A tool.execute.before hook replaced the arguments with invalid ones, so the call did not run: invalid arguments for tool "echo": keys "msg" and "MSG" differ only by case (names are case-sensitive)`},
		{name: "replacement runs", args: `{"msg":"hi"}`, replace: `{"msg":"new"}`, seen: []string{`{"msg":"hi"}`}, ran: []string{"new"}, result: "echo: new"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &scriptedProvider{replies: []func(context.Context, func(StreamEvent)) (*session.Message, error){
				reply(assistant(call("c1", "echo", tc.args))),
				reply(assistant(text("ok"))),
			}}
			var ran []string
			a := newTestAgent(p, &ran)
			h := &argsHooks{replace: tc.replace}
			a.Hooks = h
			require.NoError(t, a.prompt(context.Background(), "go", nil))
			assert.Equal(t, tc.seen, h.seen)
			assert.Equal(t, tc.ran, ran)
			msgs := values(p.requests[1].messageRefs())
			assert.Equal(t, tc.result, msgs[len(msgs)-1].Text())
		})
	}
}
