// End-to-end tests of the smaller parts of the hook API (issue #11 item
// 8): ctx.models.find of the model in use, lunar.complete's thinking
// level, model.change's source, and the path, utf8 and text modules, each
// driven through the binary by testdata/hooks/api/smaller.lua.
package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

func smallerHook(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "hooks", "api", "smaller.lua"))
	require.NoError(t, err)
	return p
}

// --model with an id outside the model table is still found by
// ctx.models.find(ctx.model.provider, ctx.model.id).
func TestModelsFindTheModelInUse(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	r := e.run("", "-e", smallerHook(t), "--model", "openai/my-finetune-7", "-p", "/find-model")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "found openai/my-finetune-7")
	r = e.run("", "-e", smallerHook(t), "-p", "/find-model")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "found openai/gpt-4.1", "a table model as before")
}

// lunar.complete(…, {thinking = level}) asks a reasoning model to think
// at that level; an unknown level is an argument error.
func TestCompleteThinkingLevel(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("deep thought"))
	r := e.run("", "-e", smallerHook(t), "--model", "openai/o4-mini", "--thinking", "off", "-p", "/think high")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "complete: deep thought")
	reqs := e.srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "high", reqs[0].Field("reasoning_effort"), "the call's level, not the session's (off)")

	r = e.run("", "-e", smallerHook(t), "-p", "/think hard")
	assert.Equal(t, 1, r.code, "a failing command handler exits 1 in one-shot mode")
	assert.Contains(t, r.stderr, `thinking must be one of off, minimal, low, medium, high, got "hard"`)
}

// model.change's source: "set" for ctx.set_model and /model, "cycle" for
// /model next.
func TestModelChangeSource(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	r := e.run("", "-e", smallerHook(t), "-p", "/switch openai/gpt-4.1-mini")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "model.change set gpt-4.1 -> gpt-4.1-mini")

	writeFile(t, filepath.Join(e.home, "config", "config.json"), `{"models": ["openai/gpt-4.1", "openai/gpt-4.1-mini"]}`)
	p := e.start("-e", smallerHook(t))
	p.line("/model next")
	p.expect("model.change cycle gpt-4.1 -> gpt-4.1-mini")
	p.line("/model openai/gpt-4.1")
	p.expect("model.change set gpt-4.1-mini -> gpt-4.1")
	p.quit()
}

// The path, utf8 and text.truncate_tail modules in a hook.
func TestPathUTF8AndTruncateModules(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	r := e.run("", "-e", smallerHook(t), "-p", "/strings")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, filepath.Join("a", "c.lua")+" z .lua true éllo 5 two|three lines 3\n")
}
