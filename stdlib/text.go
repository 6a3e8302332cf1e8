package stdlib

// The text module: small string helpers Lua's string library lacks.

import (
	"strings"
	"unicode/utf8"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/agent/tools"
)

func textModule() *Module {
	return &Module{
		Name: "text",
		Doc:  "String helpers (plain text, no Lua patterns). Lengths count UTF-8 characters.",
		Funcs: []Func{
			{Name: "split", Fn: textSplit, Returns: "string[]",
				Params: []Param{{Name: "s", Type: "string"}, {Name: "sep", Type: "string", Optional: true, Doc: "plain separator; default: runs of whitespace"}},
				Doc:    "Splits s at every sep. Without sep, splits at whitespace and drops empty fields."},
			{Name: "trim", Fn: textTrim, Returns: "string",
				Params: []Param{{Name: "s", Type: "string"}},
				Doc:    "Removes leading and trailing whitespace."},
			{Name: "starts_with", Fn: textStartsWith, Returns: "boolean",
				Params: []Param{{Name: "s", Type: "string"}, {Name: "prefix", Type: "string"}},
				Doc:    "Reports whether s begins with prefix."},
			{Name: "ends_with", Fn: textEndsWith, Returns: "boolean",
				Params: []Param{{Name: "s", Type: "string"}, {Name: "suffix", Type: "string"}},
				Doc:    "Reports whether s ends with suffix."},
			{Name: "truncate", Fn: textTruncate, Returns: "string",
				Params: []Param{{Name: "s", Type: "string"}, {Name: "max", Type: "integer"}, {Name: "ellipsis", Type: "string", Optional: true, Doc: `default "…"`}},
				Doc:    "Returns s if it has at most max characters, else its beginning plus the ellipsis, max characters in all."},
			{Name: "truncate_head", Fn: textTruncateHead, Returns: "string, text.Truncation",
				Params: []Param{{Name: "s", Type: "string"}, {Name: "opts", Type: "text.TruncateOptions", Optional: true}},
				Doc:    "Keeps the first whole lines of s that fit both limits, as the read tool cuts a file (a first line alone over max_bytes gives \"\" and first_line_exceeds_limit)."},
			{Name: "truncate_tail", Fn: textTruncateTail, Returns: "string, text.Truncation",
				Params: []Param{{Name: "s", Type: "string"}, {Name: "opts", Type: "text.TruncateOptions", Optional: true}},
				Doc:    "Keeps the last whole lines of s that fit both limits, as the bash tool cuts its output (a last line alone over max_bytes keeps its end, from a character boundary, and sets last_line_partial)."},
			{Name: "format_size", Fn: textFormatSize, Returns: "string",
				Params: []Param{{Name: "bytes", Type: "integer"}},
				Doc:    "A byte count as the tools' notes write it (pi's formatSize): 512B, 50.0KB, 1.2MB (one decimal, halves rounded up)."},
			{Name: "front_matter", Fn: textFrontMatter, Returns: "table?, string",
				Params: []Param{{Name: "s", Type: "string", Doc: "a Markdown file's text"}},
				Doc:    "Splits off a Markdown file's YAML front matter as pi does (line ends made \\n; it opens with --- at the very start and ends at the next line starting with ---): its value as json.decode would give it (mappings as tables, sequences as arrays, null as json.null; {} when there is none) and the body after it, trimmed (the whole text, untrimmed, when there is no front matter). nil and a message (\"front matter: …\", with the line) when the YAML is malformed."},
		},
		Classes: []Class{
			{Name: "text.TruncateOptions", Fields: []Field{
				{Name: "max_lines", Type: "integer?", Doc: "default 2000 (the tools' limit)"},
				{Name: "max_bytes", Type: "integer?", Doc: "default 51200 (50 KiB, the tools' limit)"}}},
			{Name: "text.Truncation", Doc: "What was cut. Lines are the pieces between newlines (\"a\\n\" has two), as the tools count them.", Fields: []Field{
				{Name: "truncated", Type: "boolean"},
				{Name: "truncated_by", Type: `"lines"|"bytes"|nil`},
				{Name: "total_lines", Type: "integer"},
				{Name: "total_bytes", Type: "integer"},
				{Name: "output_lines", Type: "integer"},
				{Name: "output_bytes", Type: "integer"},
				{Name: "last_line_partial", Type: "boolean", Doc: "truncate_tail kept only the end of one long line"},
				{Name: "first_line_exceeds_limit", Type: "boolean", Doc: "truncate_head returned nothing: the first line alone is over max_bytes"},
				{Name: "max_lines", Type: "integer"},
				{Name: "max_bytes", Type: "integer"}}},
		},
	}
}

// truncateArgs reads truncate_head/tail's text and limits.
func truncateArgs(L *glua.LState) (s string, maxLines, maxBytes int) {
	s = L.CheckString(1)
	maxLines, maxBytes = tools.DefaultMaxLines, tools.DefaultMaxBytes
	if opts := L.OptTable(2, nil); opts != nil {
		for key, dst := range map[string]*int{"max_lines": &maxLines, "max_bytes": &maxBytes} {
			switch v := opts.RawGetString(key).(type) {
			case *glua.LNilType:
			case glua.LNumber:
				if v < 1 {
					L.ArgError(2, key+" must be at least 1")
				}
				*dst = int(v)
			default:
				L.ArgError(2, key+" must be a number")
			}
		}
	}
	return s, maxLines, maxBytes
}

// pushTruncation pushes the kept text and the Truncation table.
func pushTruncation(L *glua.LState, out string, tr tools.Truncation) int {
	L.Push(glua.LString(out))
	t := L.CreateTable(0, 10)
	t.RawSetString("truncated", glua.LBool(tr.Truncated))
	if tr.TruncatedBy != "" {
		t.RawSetString("truncated_by", glua.LString(tr.TruncatedBy))
	}
	t.RawSetString("total_lines", glua.LNumber(tr.TotalLines))
	t.RawSetString("total_bytes", glua.LNumber(tr.TotalBytes))
	t.RawSetString("output_lines", glua.LNumber(tr.OutputLines))
	t.RawSetString("output_bytes", glua.LNumber(tr.OutputBytes))
	t.RawSetString("last_line_partial", glua.LBool(tr.LastLinePartial))
	t.RawSetString("first_line_exceeds_limit", glua.LBool(tr.FirstLineExceedsLimit))
	t.RawSetString("max_lines", glua.LNumber(tr.MaxLines))
	t.RawSetString("max_bytes", glua.LNumber(tr.MaxBytes))
	L.Push(t)
	return 2
}

func textTruncateHead(L *glua.LState) int {
	s, lines, bytes := truncateArgs(L)
	out, tr := tools.TruncateHead(s, lines, bytes)
	return pushTruncation(L, out, tr)
}

func textTruncateTail(L *glua.LState) int {
	s, lines, bytes := truncateArgs(L)
	out, tr := tools.TruncateTail(s, lines, bytes)
	return pushTruncation(L, out, tr)
}

func textSplit(L *glua.LState) int {
	s := L.CheckString(1)
	var parts []string
	if L.Get(2) == glua.LNil {
		parts = strings.Fields(s)
	} else {
		sep := L.CheckString(2)
		if sep == "" {
			L.ArgError(2, "separator must not be empty")
		}
		parts = strings.Split(s, sep)
	}
	t := NewCodec(L).NewArray(len(parts))
	for i, p := range parts {
		t.RawSetInt(i+1, glua.LString(p))
	}
	L.Push(t)
	return 1
}

func textTrim(L *glua.LState) int {
	L.Push(glua.LString(strings.TrimSpace(L.CheckString(1))))
	return 1
}

func textStartsWith(L *glua.LState) int {
	L.Push(glua.LBool(strings.HasPrefix(L.CheckString(1), L.CheckString(2))))
	return 1
}

func textEndsWith(L *glua.LState) int {
	L.Push(glua.LBool(strings.HasSuffix(L.CheckString(1), L.CheckString(2))))
	return 1
}

func textFormatSize(L *glua.LState) int {
	n := L.CheckInt(1)
	if n < 0 {
		L.ArgError(1, "bytes must not be negative")
	}
	L.Push(glua.LString(tools.FormatSize(n)))
	return 1
}

func textTruncate(L *glua.LState) int {
	s := L.CheckString(1)
	max := L.CheckInt(2)
	ell := L.OptString(3, "…")
	if max < 0 {
		L.ArgError(2, "max must not be negative")
	}
	if utf8.RuneCountInString(s) <= max {
		L.Push(glua.LString(s))
		return 1
	}
	keep := max - utf8.RuneCountInString(ell)
	if keep < 0 {
		keep = 0
		ell = string([]rune(ell)[:max])
	}
	i, n := 0, 0
	for n < keep {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	L.Push(glua.LString(s[:i] + ell))
	return 1
}
