package lua

// This file holds the lunar module's helpers for hooks that write
// summaries of their own: the conversation as the compaction serialises it
// (lunar.serialize_conversation) and lunar's summary prompts
// (lunar.summary_prompts), so a hook need not carry copies that drift.

import (
	"fmt"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/agent/compaction"
	"github.com/lunar-cli/lunar/session"
)

func init() {
	lunarFuncs["serialize_conversation"] = (*hook).luaSerializeConversation
	lunarFuncs["summary_prompts"] = (*hook).luaSummaryPrompts
}

// luaSerializeConversation is lunar.serialize_conversation(messages).
func (h *hook) luaSerializeConversation(L *glua.LState) int {
	in := L.CheckTable(1)
	msgs := make([]session.Message, 0, in.Len())
	for i := 1; i <= in.Len(); i++ {
		v := in.RawGetInt(i)
		// An entry (ctx.session.entries()) stands for its message.
		if t, ok := v.(*glua.LTable); ok && t.RawGetString("role") == glua.LNil {
			if m := t.RawGetString("message"); m != glua.LNil {
				v = m
			} else if ty, ok := t.RawGetString("type").(glua.LString); ok {
				L.ArgError(1, fmt.Sprintf("messages[%d]: a %s entry has no message", i, ty))
			}
		}
		m, err := h.luaMessage(v)
		if err != nil {
			L.ArgError(1, fmt.Sprintf("messages[%d]: %v", i, err))
		}
		msgs = append(msgs, m)
	}
	L.Push(glua.LString(compaction.SerializeConversation(session.ConvertToLLM(msgs))))
	return 1
}

// luaSummaryPrompts is lunar.summary_prompts().
func (h *hook) luaSummaryPrompts(L *glua.LState) int {
	prompts := compaction.SummaryPrompts()
	t := L.CreateTable(0, len(prompts))
	for k, v := range prompts {
		t.RawSetString(k, glua.LString(v))
	}
	L.Push(t)
	return 1
}
