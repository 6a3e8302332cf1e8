// REPL input through the binary in a pseudo-terminal: attachments that
// fail stop the prompt, text in other encodings attaches, questions take
// words, pickers, multi-line keys.
package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// TestREPLAttachments: a Latin-1 file attaches with its invalid bytes
// replaced; a file that cannot be attached (binary) stops the prompt,
// which comes back in the editor, and nothing is sent.
func TestREPLAttachments(t *testing.T) {
	e := newReplEnv(t)
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "latin1.txt"), []byte("caf\xe9 cr\xe8me"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "blob.bin"), []byte{0, 1, 2}, 0o644))
	e.srv.Reply(llmtest.Text("read it"))
	p := e.start()
	p.line("look at @blob.bin")
	p.expect("@blob.bin: not a text or image file; not attached")
	p.expect("not sent")
	p.expect("> look at @blob.bin")
	assert.Empty(t, e.srv.Requests(), "a failed attachment stops the prompt")
	p.send("\x15") // Ctrl+U: clear the line
	p.line("and @latin1.txt")
	p.expect("read it")
	p.expect("> ")
	p.quit()
	reqs := e.srv.Requests()
	require.Len(t, reqs, 1)
	assert.Contains(t, lastUserText(t, reqs[0]), "<file name=\""+filepath.Join(e.cwd, "latin1.txt")+"\">\ncaf\uFFFD cr\uFFFDme\n</file>")
}
