package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The run editor's window keeps the cursor in view and counts columns,
// not runes (wide runes take two).
func TestRunEditorWindow(t *testing.T) {
	for _, tc := range []struct {
		line   string
		cur    int
		avail  int
		text   string
		before int
	}{
		{"hello", 5, 10, "hello", 5},
		{"hello", 0, 10, "hello", 0},
		{"hello world", 11, 6, "world", 5},
		{"hello world", 2, 6, "hello ", 2},
		{"日本語テキスト", 7, 7, "キスト", 6},
		{"日本語テキスト", 1, 7, "日本語", 2},
		{"", 0, 4, "", 0},
	} {
		e := &runEditor{buf: []rune(tc.line), cur: tc.cur}
		text, before := e.window(tc.avail)
		assert.Equal(t, tc.text, text, "%q cursor %d in %d columns", tc.line, tc.cur, tc.avail)
		assert.Equal(t, tc.before, before, "%q cursor %d in %d columns", tc.line, tc.cur, tc.avail)
	}
}

// Ctrl+W deletes the word before the cursor, Alt+D the one after it.
func TestRunEditorEdits(t *testing.T) {
	e := &runEditor{}
	e.setLine([]rune("git  commit -m"))
	e.editKey(0x17)
	assert.Equal(t, "git  commit ", string(e.buf))
	e.cur = 0
	e.editSeq("\x1bd")
	assert.Equal(t, "  commit ", string(e.buf))
	assert.Equal(t, 0, e.cur)
}
