package main

// The differential test of images against pi: the session files of
// testdata/pi_sessions.mjs that hold images (in user messages and tool
// results), resumed by both agents with a model that takes no images
// (a custom model without "input": text only, both agents' default) and
// with one that takes them. Skipped when pi is not installed.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// The images of the "images" and "tools" sessions (base64, as stored).
var piSessionImages = []string{"iVBORw0KGgoA", "iVBORw0KGgoB", "iVBORw0KGgoC", "iVBORw0KGgoD", "iVBORw0KGgoE", "iVBORw0KGgo=", "R0lGODlh"}

func TestPiImagesToTextOnlyModel(t *testing.T) {
	t.Parallel()
	h := newPiRequests(t)
	for _, file := range piSessionFiles(t, h.e.cwd) {
		name := strings.TrimSuffix(filepath.Base(file), ".jsonl")
		if !strings.HasPrefix(name, "images-") && !strings.HasPrefix(name, "tools-") {
			continue
		}
		for _, tc := range []struct {
			name, input string
			images      bool
		}{
			{"text-only", "", false},
			{"text-and-image", `["text", "image"]`, true},
		} {
			if tc.images && !strings.HasPrefix(name, "images-") {
				continue // TestPiSameRequests sends the tools session to a model taking images
			}
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				sub := newPiRequestsInput(t, tc.input)
				sub.e.cwd = h.e.cwd
				sub.compareRequests(file) // pi's request and lunar's are the same
				reqs := sub.e.srv.Requests()
				require.Len(t, reqs, 2)
				for i, who := range []string{"lunar", "pi"} {
					body := string(reqs[i].Body)
					sent := 0
					for _, img := range piSessionImages {
						if strings.Contains(body, img) {
							sent++
						}
					}
					if !tc.images {
						assert.Zero(t, sent, "%s sends no image to a model that takes none", who)
						assert.Contains(t, body, "(tool image omitted: model does not support images)", who)
						if strings.HasPrefix(name, "images-") {
							assert.Contains(t, body, "(image omitted: model does not support images)", who)
						}
						continue
					}
					assert.Equal(t, 5, sent, "%s sends every image to a model that takes them", who)
					assert.Equal(t, 1, strings.Count(body, "omitted: model does not support images"), "%s: only the session's own text", who)
				}
			})
		}
	}
}

// Both agents' read of a picture for a model that takes no images: the
// same tool message (pi's note in the text, the placeholder for the
// image), and no image in the request.
func TestPiReadImageToTextOnlyModel(t *testing.T) {
	t.Parallel()
	h := newPiRequestsInput(t, "")
	// lunar does not resize images; pi's resize fails on this one (and
	// says so in the text instead of the picture).
	writeFile(t, filepath.Join(h.dir, "settings.json"), fmt.Sprintf(`{"compaction": {"keepRecentTokens": %d}, "images": {"autoResize": false}}`, piDiffKeep))
	require.NoError(t, os.WriteFile(filepath.Join(h.e.cwd, "dot.png"), imageTestPNG, 0o644))
	srv := h.e.srv
	var tools [2]any
	for i, run := range []func(...string) result{h.lunar, h.pi} {
		srv.Reply(llmtest.ToolCall("read", `{"path":"dot.png"}`))
		srv.Reply(llmtest.Text("seen"))
		r := run("--model", piDiffProvider+"/"+piDiffModel, "-p", "read dot.png")
		require.Equal(t, 0, r.code, r.stderr)
		reqs := srv.Requests()
		require.Len(t, reqs, 2*(i+1))
		last := reqs[2*i+1]
		assert.NotContains(t, string(last.Body), "data:image/png")
		for _, m := range last.JSON["messages"].([]any) {
			if mm := m.(map[string]any); mm["role"] == "tool" {
				tools[i] = mm["content"]
			}
		}
	}
	require.NotNil(t, tools[1], "pi's tool message")
	assert.Equal(t, tools[1], tools[0], "lunar's tool message is pi's")
}
