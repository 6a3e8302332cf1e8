package stdlib

// The tokens module: the token estimate lunar's core uses.

import (
	"encoding/json"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/session"
)

func tokensModule() *Module {
	return &Module{
		Name: "tokens",
		Doc:  "Token estimates, the same lunar's core uses where the provider reported none (characters / 4, rounded up).",
		Funcs: []Func{
			{Name: "estimate", Fn: tokensEstimate, Returns: "integer",
				Params: []Param{{Name: "value", Type: "string|table", Doc: "a text, or a message in session JSON form"}},
				Doc:    "Estimates the tokens of a text or of a message."},
		},
	}
}

func tokensEstimate(L *glua.LState) int {
	var m session.Message
	switch v := L.Get(1).(type) {
	case glua.LString:
		m = session.Message{Role: session.RoleUser, Content: []session.ContentBlock{{Type: session.BlockText, Text: string(v)}}}
	case *glua.LTable:
		b, err := NewCodec(L).Encode(nil, v, EncodeOptions{})
		if err != nil {
			L.ArgError(1, "message: "+err.Error())
		}
		if err := json.Unmarshal(b, &m); err != nil {
			L.ArgError(1, "not a message: "+err.Error())
		}
	default:
		L.ArgError(1, "string or message table expected")
	}
	L.Push(glua.LNumber(session.EstimateTokens(&m)))
	return 1
}
