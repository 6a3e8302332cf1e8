package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// imageTestPNG is a 1x1 PNG.
var imageTestPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

// imageModels configures a custom provider "local" with a model that
// says nothing of its inputs (text only) and one that takes images, and
// writes dot.png.
func imageModels(e *e2e) {
	e.hkConfig(fmt.Sprintf(`{"providers": {"local": {"base_url": %q, "models": [
  {"id": "text-model"},
  {"id": "vision-model", "input": ["text", "image"]}]}}}`, e.srv.URL()))
	require.NoError(e.t, os.WriteFile(filepath.Join(e.cwd, "dot.png"), imageTestPNG, 0o644))
}

const (
	imagePlaceholder = "(image omitted: model does not support images)"
	imageNotice      = `lunar: local/text-model does not take images; the image is sent as a placeholder (set "input" in the model's config)`
)

// An image attached to a prompt for a custom model without "input" goes
// as pi's placeholder, with one notice; the session keeps the image, and a
// model that takes images gets it later; images already in the session
// give no notice.
func TestImageAttachedForTextOnlyModel(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	imageModels(e)
	// A context hook sees the session's images, whatever the model takes.
	writeFile(t, filepath.Join(e.home, "config", "hooks.d", "count.lua"), `
lunar.on("context", function(ev)
  local n = 0
  for _, m in ipairs(ev.messages) do
    if type(m.content) == "table" then
      for _, c in ipairs(m.content) do
        if c.type == "image" then n = n + 1 end
      end
    end
  end
  local msgs = ev.messages
  table.insert(msgs, {role = "user", content = "the hook saw " .. n .. " image(s)", timestamp = 0})
  return {messages = msgs}
end)`)

	e.srv.Reply(llmtest.Text("a placeholder"))
	r := e.run("", "--model", "local/text-model", "@dot.png", "-p", "what is it?")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, 1, strings.Count(r.stderr, imageNotice), r.stderr)
	body := string(e.srv.Requests()[0].Body)
	assert.Contains(t, body, imagePlaceholder)
	assert.NotContains(t, body, "data:image/png")
	assert.Contains(t, body, "the hook saw 1 image(s)")
	s := e.onlySession()
	msgs := s.BuildContext().Messages
	require.NotEmpty(t, msgs)
	images := 0
	for _, c := range msgs[0].Message.Content {
		if c.Type == session.BlockImage {
			images++
		}
	}
	assert.Equal(t, 1, images, "the session keeps the image")

	e.srv.Reply(llmtest.Text("a dot"))
	r = e.run("", "--model", "local/vision-model", "-c", "-p", "look again")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stderr, "does not take images")
	body = string(e.srv.Requests()[1].Body)
	assert.Contains(t, body, "data:image/png;base64,", "a model that takes images gets the session's image")
	assert.NotContains(t, body, imagePlaceholder)

	e.srv.Reply(llmtest.Text("still a placeholder"))
	r = e.run("", "--model", "local/text-model", "-c", "-p", "and now?")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stderr, "does not take images", "no notice for the session's images")
	assert.Contains(t, string(e.srv.Requests()[2].Body), imagePlaceholder)
}

// An image attached to a prompt for a model that takes images is sent.
func TestImageAttachedForImageModel(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	imageModels(e)
	e.srv.Reply(llmtest.Text("a dot"))
	r := e.run("", "--model", "local/vision-model", "@dot.png", "-p", "what is it?")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stderr, "does not take images")
	body := string(e.srv.Requests()[0].Body)
	assert.Contains(t, body, "data:image/png;base64,")
	assert.NotContains(t, body, imagePlaceholder)
}

// The REPL says it once for a prompt whose @image the model cannot take.
func TestImageAttachedInREPLNotice(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	imageModels(e)
	e.srv.Reply(llmtest.Text("a placeholder it is"))
	p := e.start("--model", "local/text-model")
	p.line("look @dot.png")
	p.expect("a placeholder it is")
	notice := strings.TrimPrefix(imageNotice, "lunar: ")
	assert.Equal(t, 1, strings.Count(p.output(), notice), p.output())
	assert.Contains(t, string(e.srv.Requests()[0].Body), imagePlaceholder)
	p.quit()
}

// read of a picture for a model that takes no images says so in its text,
// as pi's read does, and the model gets the placeholder; for a model that
// takes images, the picture.
func TestImageReadForTextOnlyModel(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	imageModels(e)
	for i, model := range []string{"local/text-model", "local/vision-model"} {
		e.srv.Reply(llmtest.ToolCall("read", `{"path":"dot.png"}`))
		e.srv.Reply(llmtest.Text("seen"))
		r := e.run("", "--model", model, "-p", "read dot.png")
		require.Equal(t, 0, r.code, r.stderr)
		assert.NotContains(t, r.stderr, "does not take images", "no notice: nothing was attached")
		reqs := e.srv.Requests()
		require.Len(t, reqs, 2*(i+1))
		var tool map[string]any
		for _, m := range reqs[2*i+1].JSON["messages"].([]any) {
			if mm := m.(map[string]any); mm["role"] == "tool" {
				tool = mm
			}
		}
		require.NotNil(t, tool, string(reqs[2*i+1].Body))
		if i == 0 {
			assert.Equal(t, "Read image file [image/png]\n[Current model does not support images. The image will be omitted from this request.]\n"+
				"(tool image omitted: model does not support images)", tool["content"])
			assert.NotContains(t, string(reqs[1].Body), "data:image/png")
		} else {
			assert.Equal(t, "Read image file [image/png]", tool["content"])
			assert.Contains(t, string(reqs[3].Body), "data:image/png;base64,")
		}
	}
}
