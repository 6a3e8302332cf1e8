package lua_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/session"
)

func TestSendPartsAndSteer(t *testing.T) {
	host := newHost(t)
	rt, reps := loadHooks(t, host, lua.Options{}, "pi/api8.lua")
	_, _, err := rt.RunCommand(bg, "send-parts", "")
	require.NoError(t, err)
	_, _, err = rt.RunCommand(bg, "steer", "keep going")
	require.NoError(t, err)
	require.Len(t, host.Sends, 2)
	assert.Equal(t, "look\nclosely", host.Sends[0].Text, "text parts joined by newlines")
	require.Len(t, host.Sends[0].Attachments, 1)
	assert.Equal(t, session.BlockImage, host.Sends[0].Attachments[0].Image.Type)
	assert.False(t, host.Sends[0].Steer)
	assert.Equal(t, "keep going", host.Sends[1].Text)
	assert.True(t, host.Sends[1].Steer)

	_, _, err = rt.RunCommand(bg, "send-bad-part", "")
	assert.ErrorContains(t, err, "content[1]: text or image part expected, got toolCall")
	_, _, err = rt.RunCommand(bg, "steer-bad", "")
	assert.ErrorContains(t, err, `deliver must be "follow_up" or "steer", got later`)
	assert.Len(t, host.Sends, 2)
	assert.Empty(t, reps.Lines())
}

func TestIdleSystemPromptPrintAndThinking(t *testing.T) {
	host := newHost(t)
	host.SystemPromptValue = "You are lunar."
	rt, _ := loadHooks(t, host, lua.Options{}, "pi/api8.lua")
	run := func(name, args string) string {
		t.Helper()
		out, _, err := rt.RunCommand(bg, name, args)
		require.NoError(t, err)
		return out
	}
	assert.Equal(t, "true", run("idle", ""))
	host.Busy = true
	assert.Equal(t, "false", run("idle", ""))
	assert.Equal(t, "You are lunar.", run("sys", ""))

	run("print", "a line\nand another")
	assert.Contains(t, host.UIValue.Notices, "print: a line\nand another")

	host.CompleteFunc = func(_ context.Context, req lua.CompleteRequest) (string, error) {
		return "thought at " + req.ThinkingLevel, nil
	}
	assert.Equal(t, "thought at high", run("think", "high"))
	_, _, err := rt.RunCommand(bg, "think", "extreme")
	assert.ErrorContains(t, err, `thinking must be one of off, minimal, low, medium, high, got "extreme"`)

	// From inside chat.system.transform, get_system_prompt would run the
	// handler again: an error instead.
	assert.Equal(t, "base+t", rt.SystemPrompt(bg, "base"))
	assert.Contains(t, run("sys-err", ""), "ctx.get_system_prompt cannot be called from a chat.system.transform handler")
}
