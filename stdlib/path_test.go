package stdlib_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/agent/tools"
	"github.com/lunar-cli/lunar/stdlib"
)

// The path module must answer exactly as path/filepath on this OS.
func TestPathMatchesFilepath(t *testing.T) {
	cwd := t.TempDir()
	L := newState(t, &stdlib.Env{Cwd: cwd})
	require.NoError(t, L.DoString(`path = require("path")`))
	abs := filepath.Join(cwd, "x")
	rel := func(a, b string) string {
		r, err := filepath.Rel(a, b)
		require.NoError(t, err)
		return r
	}
	tests := []struct{ code, want string }{
		{`return path.join("a", "b/../c", "", "d.lua")`, filepath.Join("a", "b/../c", "", "d.lua")},
		{`return path.join()`, ""},
		{`return path.join("a", "/b")`, filepath.Join("a", "/b")},
		{`return path.resolve("a/b", "../c")`, filepath.Join(cwd, "a/c")},
		{`return path.resolve()`, cwd},
		{fmt.Sprintf(`return path.resolve("ignored", %q, "y")`, abs), filepath.Join(abs, "y")},
		{fmt.Sprintf(`return path.relative(%q, "a/b")`, abs), rel(abs, filepath.Join(cwd, "a/b"))},
		{`return path.relative("a", "a/b/c")`, filepath.Join("b", "c")},
		{`return path.dirname("a/b/c.txt")`, filepath.Dir("a/b/c.txt")},
		{`return path.dirname("c.txt")`, "."},
		{`return path.basename("a/b/c.txt")`, "c.txt"},
		{`return path.basename("a/b/c.txt", ".txt")`, "c"},
		{`return path.basename("a/b/")`, "b"},
		{`return path.ext("a/b.tar.gz")`, ".gz"},
		{`return path.ext("a/Makefile")`, ""},
		{`return tostring(path.is_abs("a/b"))`, "false"},
		{fmt.Sprintf(`return tostring(path.is_abs(%q))`, abs), "true"},
		{`return path.normalize("a//b/./../c/")`, filepath.Clean("a//b/./../c/")},
		{`return path.sep`, string(filepath.Separator)},
	}
	if runtime.GOOS == "windows" {
		tests = append(tests, struct{ code, want string }{`return path.join("C:\\a", "b")`, `C:\a\b`})
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, eval(t, L, tt.code), tt.code)
	}
	assert.ErrorContains(t, L.DoString(`path.join("a", 1, {})`), "string expected")
}

func TestUTF8(t *testing.T) {
	L := newState(t, nil)
	require.NoError(t, L.DoString(`utf8 = require("utf8")`))
	tests := []struct{ code, want string }{
		{`return utf8.len("héllo wörld 😀")`, "13"},
		{`return utf8.len("")`, "0"},
		{`local n, pos = utf8.len("ab\255c") return tostring(n) .. " " .. pos`, "nil 3"},
		{`return utf8.sub("héllo", 2, 4)`, "éll"},
		{`return utf8.sub("héllo", -3)`, "llo"},
		{`return utf8.sub("héllo", 2)`, "éllo"},
		{`return utf8.sub("héllo", 0, 1)`, "h"},
		{`return utf8.sub("héllo", 4, 2)`, ""},
		{`return utf8.sub("héllo", 3, 100)`, "llo"},
		{`return utf8.sub("😀x", 1, 1)`, "😀"},
		{`return table.concat({utf8.codepoint("aé😀", 1, -1)}, ",")`, "97,233,128512"},
		{`return utf8.codepoint("é")`, "233"},
		{`return utf8.char(104, 233, 128512)`, "hé😀"},
		{`return utf8.char(-1)`, "\uFFFD"},
		{`return tostring(utf8.valid("é")) .. tostring(utf8.valid("\255"))`, "truefalse"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, eval(t, L, tt.code), tt.code)
	}
}

// text.truncate_head and truncate_tail are the tools' truncation: the same
// cuts, the same counts.
func TestTextTruncateHeadTailAreTheTools(t *testing.T) {
	L := newState(t, nil)
	require.NoError(t, L.DoString(`text = require("text")`))
	long := strings.Repeat("line\n", 3000) + "end"
	L.SetGlobal("long", glua.LString(long))
	for _, tt := range []struct {
		fn           string
		lines, bytes int
		cut          func(string, int, int) (string, tools.Truncation)
	}{
		{"truncate_head", 0, 0, tools.TruncateHead},
		{"truncate_tail", 0, 0, tools.TruncateTail},
		{"truncate_head", 10, 1000, tools.TruncateHead},
		{"truncate_tail", 100, 23, tools.TruncateTail},
		{"truncate_head", 5000, 7, tools.TruncateHead},
	} {
		lines, bytes := tt.lines, tt.bytes
		opts := "nil"
		if lines == 0 {
			lines, bytes = tools.DefaultMaxLines, tools.DefaultMaxBytes
		} else {
			opts = fmt.Sprintf("{max_lines = %d, max_bytes = %d}", lines, bytes)
		}
		want, tr := tt.cut(long, lines, bytes)
		code := fmt.Sprintf(`local out, t = text.%s(long, %s)
			return table.concat({#out, tostring(t.truncated), tostring(t.truncated_by), t.total_lines, t.total_bytes,
				t.output_lines, t.output_bytes, tostring(t.last_line_partial), tostring(t.first_line_exceeds_limit),
				t.max_lines, t.max_bytes}, " ")`, tt.fn, opts)
		wantLine := fmt.Sprintf("%d %t %s %d %d %d %d %t %t %d %d", len(want), tr.Truncated, tr.TruncatedBy, tr.TotalLines, tr.TotalBytes,
			tr.OutputLines, tr.OutputBytes, tr.LastLinePartial, tr.FirstLineExceedsLimit, tr.MaxLines, tr.MaxBytes)
		assert.Equal(t, wantLine, eval(t, L, code), code)
		assert.True(t, tr.Truncated, "each case must cut something")
	}
	assert.Equal(t, "short true", eval(t, L, `local out, t = text.truncate_tail("short") return out .. " " .. tostring(not t.truncated)`))
	assert.ErrorContains(t, L.DoString(`text.truncate_head("x", {max_lines = 0})`), "max_lines must be at least 1")
}
