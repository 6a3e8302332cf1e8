package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/session"
)

func TestReadText(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "small.txt"), "alpha\nbeta\ngamma\n")
	writeFile(t, filepath.Join(dir, "big.txt"), numbered(5123))
	writeFile(t, filepath.Join(dir, "wide.txt"), strings.Repeat(strings.Repeat("x", 99)+"\n", 1000)) // 100 KB in 1000 lines
	writeFile(t, filepath.Join(dir, "oneline.min.js"), strings.Repeat("y", 60*1024)+"\nshort")
	writeFile(t, filepath.Join(dir, "sub", "nested.txt"), "nested")
	writeFile(t, filepath.Join(dir, "latin1.txt"), "caf\xe9\n")

	tests := []struct {
		name      string
		args      string
		want      string // exact text, or
		prefix    string // the text's start and
		suffix    string // end
		isError   bool
		truncated bool // details.truncation present
	}{
		{name: "whole file, no line numbers", args: `{"path":"small.txt"}`, want: "alpha\nbeta\ngamma\n"},
		{name: "absolute path", args: `{"path":"` + filepath.Join(dir, "small.txt") + `"}`, want: "alpha\nbeta\ngamma\n"},
		{name: "nested relative path", args: `{"path":"sub/nested.txt"}`, want: "nested"},
		{name: "offset", args: `{"path":"small.txt","offset":2}`, want: "beta\ngamma\n"},
		{name: "offset and limit", args: `{"path":"small.txt","offset":2,"limit":1}`,
			want: "beta\n\n[2 more lines in file. Use offset=3 to continue.]"},
		{name: "limit reaching the end has no note", args: `{"path":"small.txt","offset":2,"limit":3}`, want: "beta\ngamma\n"},
		{name: "offset past the end", args: `{"path":"small.txt","offset":9}`,
			want: "Offset 9 is beyond end of file (4 lines total)", isError: true},
		{name: "truncated by lines", args: `{"path":"big.txt"}`,
			prefix: "line 1\n", suffix: "\nline 2000\n\n[Showing lines 1-2000 of 5123. Use offset=2001 to continue.]", truncated: true},
		{name: "continue from offset", args: `{"path":"big.txt","offset":2001}`,
			prefix: "line 2001\n", suffix: "\nline 4000\n\n[Showing lines 2001-4000 of 5123. Use offset=4001 to continue.]", truncated: true},
		{name: "last window", args: `{"path":"big.txt","offset":4001}`, prefix: "line 4001\n", suffix: "\nline 5123"},
		{name: "truncated by bytes", args: `{"path":"wide.txt"}`,
			suffix: "\n\n[Showing lines 1-512 of 1001 (50.0KB limit). Use offset=513 to continue.]", truncated: true},
		{name: "first line over the byte limit", args: `{"path":"oneline.min.js"}`,
			want: "[Line 1 is 60.0KB, exceeds the 50.0KB limit. Use bash: sed -n '1p' oneline.min.js | head -c 51200]", truncated: true},
		{name: "invalid UTF-8 replaced", args: `{"path":"latin1.txt"}`, want: "caf\uFFFD\n"},
		{name: "missing file", args: `{"path":"nope.txt"}`, want: "File not found: nope.txt", isError: true},
		{name: "directory", args: `{"path":"sub"}`, prefix: "sub is a directory", isError: true},
	}
	read := builtin(t, "read", dir)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, read, tc.args)
			got := text(res)
			assert.Equal(t, tc.isError, res.IsError, got)
			if tc.want != "" {
				assert.Equal(t, tc.want, got)
			}
			assert.True(t, strings.HasPrefix(got, tc.prefix), "prefix: %.80q", got)
			assert.True(t, strings.HasSuffix(got, tc.suffix), "suffix: …%q", got[max(0, len(got)-120):])
			if tc.truncated {
				var d struct{ Truncation *Truncation }
				require.NoError(t, json.Unmarshal(res.Details, &d))
				require.NotNil(t, d.Truncation)
				assert.True(t, d.Truncation.Truncated)
			} else {
				assert.Nil(t, res.Details)
			}
		})
	}
}

func TestReadImages(t *testing.T) {
	for _, tc := range []struct{ file, mime string }{
		{"pixel.png", "image/png"},
		{"pixel.jpg", "image/jpeg"},
		{"pixel.gif", "image/gif"},
		{"pixel.webp", "image/webp"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			dir := t.TempDir()
			data, err := os.ReadFile(filepath.Join("testdata", tc.file))
			require.NoError(t, err)
			// Detected by content, not by name.
			writeFile(t, filepath.Join(dir, "image.dat"), string(data))

			res := call(t, builtin(t, "read", dir), `{"path":"image.dat"}`)
			require.False(t, res.IsError, text(res))
			require.Len(t, res.Content, 2)
			assert.Equal(t, session.ContentBlock{Type: session.BlockText, Text: "Read image file [" + tc.mime + "]"}, res.Content[0])
			img := res.Content[1]
			assert.Equal(t, session.BlockImage, img.Type)
			assert.Equal(t, tc.mime, img.MimeType())
			decoded, err := base64.StdEncoding.DecodeString(img.Data())
			require.NoError(t, err)
			assert.Equal(t, data, decoded)
		})
	}
}

func TestReadBinary(t *testing.T) {
	res := call(t, builtin(t, "read", "testdata"), `{"path":"blob.bin"}`)
	assert.True(t, res.IsError)
	assert.Equal(t, "blob.bin is a binary file (18B); read only reads text and images. Use bash to inspect it (e.g. file, xxd, strings).", text(res))
}

func TestReadImageTooLarge(t *testing.T) {
	dir := t.TempDir()
	png, err := os.ReadFile(filepath.Join("testdata", "pixel.png"))
	require.NoError(t, err)
	writeFile(t, filepath.Join(dir, "huge.png"), string(png)+strings.Repeat("\x00", maxImageBytes))
	res := call(t, builtin(t, "read", dir), `{"path":"huge.png"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), "over the 5.0MB limit for images")
}

func TestReadHomePath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	writeFile(t, filepath.Join(home, "notes.md"), "remember")
	res := call(t, builtin(t, "read", t.TempDir()), `{"path":"~/notes.md"}`)
	assert.Equal(t, "remember", text(res))
}

func TestReadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := callCtx(ctx, t, builtin(t, "read", "testdata"), `{"path":"pixel.png"}`, nil)
	assert.True(t, res.IsError)
	assert.Equal(t, "Operation aborted", text(res))
}
