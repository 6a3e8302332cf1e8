package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWrite(t *testing.T) {
	tests := []struct {
		name     string
		existing string // "" = no file before
		path     string
		content  string
		want     string
	}{
		{name: "new file", path: "new.txt", content: "hello\n", want: "Successfully wrote 6 bytes to new.txt"},
		{name: "nested dirs created", path: "a/b/c/deep.go", content: "package c\n", want: "Successfully wrote 10 bytes to a/b/c/deep.go"},
		{name: "overwrite", existing: "old old old", path: "over.txt", content: "new", want: "Successfully wrote 3 bytes to over.txt"},
		{name: "empty content", path: "empty.txt", content: "", want: "Successfully wrote 0 bytes to empty.txt"},
		{name: "bytes, not characters", path: "utf8.txt", content: "héllo €", want: "Successfully wrote 10 bytes to utf8.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			abs := filepath.Join(dir, tc.path)
			if tc.existing != "" {
				writeFile(t, abs, tc.existing)
			}
			res := call(t, builtin(t, "write", dir), args(t, map[string]any{"path": tc.path, "content": tc.content}))
			assert.False(t, res.IsError)
			assert.Equal(t, tc.want, text(res))
			got, err := os.ReadFile(abs)
			require.NoError(t, err)
			assert.Equal(t, tc.content, string(got))
		})
	}
}

func TestWriteKeepsMode(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "run.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755))
	res := call(t, builtin(t, "write", dir), `{"path":"run.sh","content":"#!/bin/sh\necho hi\n"}`)
	require.False(t, res.IsError, text(res))
	info, err := os.Stat(script)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), info.Mode().Perm())
}

func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "file"), "x")
	tests := []struct{ name, path, want string }{
		{"parent is a file", "file/child.txt", "Cannot create the directory of file/child.txt"},
		{"path is a directory", ".", ". is a directory, not a regular file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, builtin(t, "write", dir), args(t, map[string]any{"path": tc.path, "content": "x"}))
			assert.True(t, res.IsError)
			assert.Contains(t, text(res), tc.want)
		})
	}
}
