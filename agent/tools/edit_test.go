package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const goFile = `package main

import "fmt"

func main() {
	fmt.Println("hello")
}

func helper() int {
	return 1
}
`

func TestEdit(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		args     string // path is "f.go"
		want     string // file afterwards ("" = unchanged)
		wantText string // result text contains
		isError  bool
	}{
		{
			name:     "single edit",
			file:     goFile,
			args:     `{"path":"f.go","edits":[{"oldText":"fmt.Println(\"hello\")","newText":"fmt.Println(\"hi\")"}]}`,
			want:     strings.Replace(goFile, `"hello"`, `"hi"`, 1),
			wantText: "Successfully replaced 1 block(s) in f.go.\n\n",
		},
		{
			name: "multiple edits in order",
			file: goFile,
			args: `{"path":"f.go","edits":[
				{"oldText":"return 1","newText":"return 2"},
				{"oldText":"func helper() int","newText":"func helper2() int"}]}`,
			want:     strings.Replace(strings.Replace(goFile, "return 1", "return 2", 1), "helper()", "helper2()", 1),
			wantText: "Successfully replaced 2 block(s) in f.go.",
		},
		{
			name: "later edit sees earlier result",
			file: "a\nb\n",
			args: `{"path":"f.go","edits":[{"oldText":"a","newText":"x y"},{"oldText":"x y","newText":"z"}]}`,
			want: "z\nb\n",
		},
		{
			name:     "legacy single form",
			file:     goFile,
			args:     `{"path":"f.go","oldText":"return 1","newText":"return 42"}`,
			want:     strings.Replace(goFile, "return 1", "return 42", 1),
			wantText: "Successfully replaced 1 block(s) in f.go.",
		},
		{
			name: "legacy form appended to edits",
			file: "one two three",
			args: `{"path":"f.go","edits":[{"oldText":"one","newText":"1"}],"oldText":"three","newText":"3"}`,
			want: "1 two 3",
		},
		{
			name: "dollar signs are literal",
			file: "price",
			args: `{"path":"f.go","edits":[{"oldText":"price","newText":"$1 $& $$"}]}`,
			want: "$1 $& $$",
		},
		{
			name:     "not found",
			file:     goFile,
			args:     `{"path":"f.go","edits":[{"oldText":"fmt.Printf","newText":"x"}]}`,
			wantText: `Could not find oldText ("fmt.Printf") in f.go. It must match the file exactly`,
			isError:  true,
		},
		{
			name: "not found names the edit",
			file: goFile,
			args: `{"path":"f.go","edits":[
				{"oldText":"return 1","newText":"return 2"},
				{"oldText":"func missing() {\n\treturn\n}","newText":"x"}]}`,
			wantText: `Could not find edits[1].oldText ("func missing() {…") in f.go.`,
			isError:  true,
		},
		{
			name:     "ambiguous",
			file:     "x := 1\ny := 1\nx := 1\nx := 1\n",
			args:     `{"path":"f.go","edits":[{"oldText":"x := 1","newText":"x := 2"}]}`,
			wantText: `oldText ("x := 1") matches 3 places in f.go; it must match exactly one. Include more surrounding lines to make it unique. No changes were made.`,
			isError:  true,
		},
		{
			name:     "no-op edit",
			file:     goFile,
			args:     `{"path":"f.go","edits":[{"oldText":"return 1","newText":"return 1"}]}`,
			wantText: "oldText and its newText are identical, so the edit would change nothing. No changes were made to f.go.",
			isError:  true,
		},
		{
			name:     "empty oldText",
			file:     goFile,
			args:     `{"path":"f.go","edits":[{"oldText":"","newText":"x"}]}`,
			wantText: "oldText is empty",
			isError:  true,
		},
		{
			name:     "legacy form missing newText",
			file:     goFile,
			args:     `{"path":"f.go","oldText":"return 1"}`,
			wantText: `invalid arguments for tool "edit": missing property "newText"`,
			isError:  true,
		},
		{
			name:     "neither form",
			file:     goFile,
			args:     `{"path":"f.go"}`,
			wantText: `invalid arguments for tool "edit": missing property "edits"`,
			isError:  true,
		},
		{
			name:     "all or nothing",
			file:     "a b c",
			args:     `{"path":"f.go","edits":[{"oldText":"a","newText":"A"},{"oldText":"zzz","newText":"Z"}]}`,
			wantText: "No changes were made.",
			isError:  true,
		},
		{
			name: "CRLF preserved",
			file: "line one\r\nline two\r\nline three\r\n",
			args: `{"path":"f.go","edits":[{"oldText":"line two\nline three","newText":"line 2\nline 2.5\nline 3"}]}`,
			want: "line one\r\nline 2\r\nline 2.5\r\nline 3\r\n",
		},
		{
			name: "CRLF oldText from the model also matches",
			file: "a\r\nb\r\n",
			args: `{"path":"f.go","edits":[{"oldText":"a\r\nb","newText":"c\r\nd"}]}`,
			want: "c\r\nd\r\n",
		},
		{
			name: "BOM preserved",
			file: "\uFEFFfirst\nsecond\n",
			args: `{"path":"f.go","edits":[{"oldText":"first","newText":"1st"}]}`,
			want: "\uFEFF1st\nsecond\n",
		},
		{
			name: "BOM and CRLF",
			file: "\uFEFFx = 1\r\ny = 2\r\n",
			args: `{"path":"f.go","edits":[{"oldText":"y = 2","newText":"y = 3"}]}`,
			want: "\uFEFFx = 1\r\ny = 3\r\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.go")
			writeFile(t, path, tc.file)
			res := call(t, builtin(t, "edit", dir), tc.args)
			assert.Equal(t, tc.isError, res.IsError, text(res))
			assert.Contains(t, text(res), tc.wantText)
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			want := tc.want
			if want == "" {
				want = tc.file
			}
			assert.Equal(t, want, string(got))
		})
	}
}

func TestEditMissingFile(t *testing.T) {
	res := call(t, builtin(t, "edit", t.TempDir()), `{"path":"nope.go","edits":[{"oldText":"a","newText":"b"}]}`)
	assert.True(t, res.IsError)
	assert.Equal(t, "File not found: nope.go", text(res))
}

func TestEditDiff(t *testing.T) {
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "f.txt"), strings.Join(lines, "\n")+"\n")
	res := call(t, builtin(t, "edit", dir), `{"path":"f.txt","edits":[
		{"oldText":"line 5\n","newText":"line five\nline five and a half\n"},
		{"oldText":"line 25\n","newText":""}]}`)
	require.False(t, res.IsError, text(res))

	wantDiff := strings.Join([]string{
		"  1 line 1",
		"  2 line 2",
		"  3 line 3",
		"  4 line 4",
		"- 5 line 5",
		"+ 5 line five",
		"+ 6 line five and a half",
		"  6 line 6",
		"  7 line 7",
		"  8 line 8",
		"  9 line 9",
		"    ...",
		" 21 line 21",
		" 22 line 22",
		" 23 line 23",
		" 24 line 24",
		"-25 line 25",
		" 26 line 26",
		" 27 line 27",
		" 28 line 28",
		" 29 line 29",
		"    ...",
	}, "\n")
	var d struct {
		Diff             string `json:"diff"`
		FirstChangedLine int    `json:"firstChangedLine"`
	}
	require.NoError(t, json.Unmarshal(res.Details, &d))
	assert.Equal(t, wantDiff, d.Diff)
	assert.Equal(t, 5, d.FirstChangedLine)
	assert.Equal(t, "Successfully replaced 2 block(s) in f.txt.\n\n"+wantDiff, text(res))
}

func TestEditDiffCappedInText(t *testing.T) {
	dir := t.TempDir()
	old := numbered(300)
	writeFile(t, filepath.Join(dir, "f.txt"), old)
	res := call(t, builtin(t, "edit", dir), args(t, map[string]any{
		"path":  "f.txt",
		"edits": []map[string]string{{"oldText": old, "newText": strings.ReplaceAll(old, "line", "LINE")}},
	}))
	require.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), "\n[diff truncated: 540 more lines]")
	var d struct{ Diff string }
	require.NoError(t, json.Unmarshal(res.Details, &d))
	assert.Equal(t, 600, strings.Count(d.Diff, "\n")+1)
}

func TestLineDiff(t *testing.T) {
	tests := []struct {
		name, old, new, want string
		first                int
	}{
		{"equal", "a\nb", "a\nb", "", 0},
		{"insert at start", "a\nb", "x\na\nb", "+1 x\n 1 a\n 2 b", 1},
		{"delete at end", "a\nb\nc", "a\nb", " 1 a\n 2 b\n-3 c", 3},
		{"replace middle", "a\nb\nc", "a\nB\nc", " 1 a\n-2 b\n+2 B\n 3 c", 2},
		{"interleaved", "a\nb\nc\nd", "b\nc\nx\nd", "-1 a\n 2 b\n 3 c\n+3 x\n 4 d", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, first := lineDiff(tc.old, tc.new)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.first, first)
		})
	}
}

// TestLineDiffTooDifferent falls back to remove-all/add-all past diffMaxD
// and still describes the change exactly.
func TestLineDiffTooDifferent(t *testing.T) {
	var a, b []string
	for i := range 3 * diffMaxD {
		a = append(a, fmt.Sprint("a", i))
		b = append(b, fmt.Sprint("b", i))
	}
	a = append(a, "same")
	b = append(b, "same")
	assert.Equal(t, []diffRun{
		{diffDelete, 0, 0, 3 * diffMaxD},
		{diffInsert, 3 * diffMaxD, 0, 3 * diffMaxD},
		{diffEqual, 3 * diffMaxD, 3 * diffMaxD, 1},
	}, diffLines(a, b))
}

// TestDiffLinesApplies checks that edit scripts are consistent and
// rebuild the new text from the old.
func TestDiffLinesApplies(t *testing.T) {
	pairs := [][2]string{
		{"a\nb\nc\nd\ne", "a\nc\nd\nx\ne\nf"},
		{"", "x\ny"},
		{"x\ny", ""},
		{"1\n2\n3\n1\n2\n3", "3\n2\n1\n3\n2\n1"},
		{"a\nb\na\nb\na\nb", "b\nZ\nb\nZ\na\nb"},
	}
	for _, p := range pairs {
		a, b := strings.Split(p[0], "\n"), strings.Split(p[1], "\n")
		var rebuilt []string
		ai, bi := 0, 0
		for _, r := range diffLines(a, b) {
			require.Positive(t, r.n)
			switch r.kind {
			case diffEqual:
				require.Equal(t, ai, r.a)
				require.Equal(t, bi, r.b)
				assert.Equal(t, a[r.a:r.a+r.n], b[r.b:r.b+r.n])
				rebuilt = append(rebuilt, a[r.a:r.a+r.n]...)
				ai, bi = ai+r.n, bi+r.n
			case diffDelete:
				require.Equal(t, ai, r.a)
				ai += r.n
			case diffInsert:
				require.Equal(t, bi, r.b)
				rebuilt = append(rebuilt, b[r.b:r.b+r.n]...)
				bi += r.n
			}
		}
		assert.Equal(t, len(a), ai)
		assert.Equal(t, b, rebuilt, "%q -> %q", p[0], p[1])
	}
}

func BenchmarkEdit1MB(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "big.go")
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, "func f%d() int {\n\treturn %d\n}\n\n", i, i)
	}
	content := sb.String()
	edit := builtin(b, "edit", dir)
	args := `{"path":"big.go","edits":[
		{"oldText":"func f100() int {\n\treturn 100\n}","newText":"func f100() int {\n\treturn -100\n}"},
		{"oldText":"func f20000() int {\n\treturn 20000\n}","newText":"func f20000() int {\n\treturn -20000\n}"}]}`
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		require.NoError(b, os.WriteFile(path, []byte(content), 0o644))
		b.StartTimer()
		if res := call(b, edit, args); res.IsError {
			b.Fatal(text(res))
		}
	}
}
