package stdlib

// text.front_matter: the YAML front matter of a Markdown file (skills,
// prompt templates, agents), split off the way pi's parseFrontmatter does
// so that files written for pi read the same here.

import (
	"fmt"
	"strings"

	glua "github.com/yuin/gopher-lua"
	"go.yaml.in/yaml/v4"
)

// maxFrontMatterNodes bounds the values a front matter may expand to
// (aliases included): a hostile file must not make a hook build a huge
// table from a few lines ("billion laughs").
const maxFrontMatterNodes = 10000

// maxFrontMatterDepth bounds nesting.
const maxFrontMatterDepth = 64

// SplitFrontMatter splits content as pi does: line ends normalised to
// \n; a front matter only when the text starts with "---" and a later
// line starts with "---"; the body after it trimmed of whitespace.
// ok is false when there is no front matter (body is then the whole
// normalised text, untrimmed).
func SplitFrontMatter(content string) (yamlText, body string, ok bool) {
	s := strings.ReplaceAll(content, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	if !strings.HasPrefix(s, "---") {
		return "", s, false
	}
	end := strings.Index(s[3:], "\n---")
	if end < 0 {
		return "", s, false
	}
	end += 3
	start := min(4, end)
	return s[start:end], strings.TrimSpace(s[end+4:]), true
}

// textFrontMatter is text.front_matter(s): the parsed front matter (a
// table; {} when there is none or it is empty) and the body, or nil and a
// message when the YAML is malformed.
func textFrontMatter(L *glua.LState) int {
	src, body, ok := SplitFrontMatter(L.CheckString(1))
	c := NewCodec(L)
	if !ok || strings.TrimSpace(src) == "" {
		L.Push(L.NewTable())
		L.Push(glua.LString(body))
		return 2
	}
	if t, ok := plainFrontMatter(L, src); ok {
		L.Push(t)
		L.Push(glua.LString(body))
		return 2
	}
	var doc yaml.Node
	// The text stops before the closing line's newline; block scalars
	// keep their final newline as in pi's parser (yaml npm).
	if err := yaml.Unmarshal([]byte(src+"\n"), &doc); err != nil {
		L.Push(glua.LNil)
		L.Push(glua.LString("front matter: " + strings.TrimPrefix(err.Error(), "yaml: ")))
		return 2
	}
	conv := yamlLua{L: L, c: c}
	v, err := conv.value(&doc, 0)
	if err != nil {
		L.Push(glua.LNil)
		L.Push(glua.LString("front matter: " + err.Error()))
		return 2
	}
	if v == glua.LNil || v == c.Null() {
		v = L.NewTable()
	}
	L.Push(v)
	L.Push(glua.LString(body))
	return 2
}

// yamlLua converts a YAML node tree to Lua values as json.decode would
// build them: mappings are tables (keys in order), sequences arrays, null
// json.null.
type yamlLua struct {
	L     *glua.LState
	c     *Codec
	nodes int
}

func (y *yamlLua) value(n *yaml.Node, depth int) (glua.LValue, error) {
	y.nodes++
	if y.nodes > maxFrontMatterNodes {
		return nil, fmt.Errorf("more than %d values", maxFrontMatterNodes)
	}
	if depth > maxFrontMatterDepth {
		return nil, fmt.Errorf("nested more than %d deep", maxFrontMatterDepth)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return glua.LNil, nil
		}
		return y.value(n.Content[0], depth)
	case yaml.AliasNode:
		return y.value(n.Alias, depth+1)
	case yaml.MappingNode:
		t := y.L.CreateTable(0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, err := y.value(n.Content[i], depth+1)
			if err != nil {
				return nil, err
			}
			v, err := y.value(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			if k == y.c.Null() {
				k = glua.LString("")
			}
			if _, isTable := k.(*glua.LTable); isTable {
				return nil, fmt.Errorf("line %d: a key that is not a scalar", n.Content[i].Line)
			}
			t.RawSet(k, v)
		}
		return t, nil
	case yaml.SequenceNode:
		t := y.c.NewArray(len(n.Content))
		for _, e := range n.Content {
			v, err := y.value(e, depth+1)
			if err != nil {
				return nil, err
			}
			t.Append(v)
		}
		return t, nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return glua.LString(n.Value), nil
	}
	switch v := v.(type) {
	case nil:
		return y.c.Null(), nil
	case bool:
		return glua.LBool(v), nil
	case int:
		return glua.LNumber(v), nil
	case int64:
		return glua.LNumber(v), nil
	case uint64:
		return glua.LNumber(v), nil
	case float64:
		return glua.LNumber(v), nil
	case string:
		return glua.LString(v), nil
	}
	return glua.LString(n.Value), nil // timestamps and the like: as written
}

// plainFrontMatter reads the usual front matter, lines of "key: text"
// whose values YAML can only read as the text itself, without the YAML
// parser (about 25 µs a file: a start-up with 50 skills spent 4 ms
// there). ok is false for anything else, which the parser then reads.
func plainFrontMatter(L *glua.LState, src string) (*glua.LTable, bool) {
	t := L.NewTable()
	seen := map[string]bool{}
	for line := range strings.SplitSeq(src, "\n") {
		if line == "" {
			continue
		}
		key, val, ok := strings.Cut(line, ": ")
		if !ok || !plainKey(key) || seen[key] || !plainValue(val) {
			return nil, false
		}
		seen[key] = true
		t.RawSetString(key, glua.LString(val))
	}
	return t, true
}

func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || (i > 0 && (c == '-' || c == '_'))) {
			return false
		}
	}
	return true
}

// plainValue reports whether v is a plain scalar that YAML reads as the
// string v: it starts with a letter, holds no character that could start
// a comment, mapping, flow collection, tag or escape, has no blanks at its
// ends, and is not a word YAML reads as a boolean or null.
func plainValue(v string) bool {
	if v == "" || strings.TrimSpace(v) != v || strings.Contains(v, ": ") || strings.Contains(v, " #") || strings.ContainsAny(v, "\t\r") || strings.HasSuffix(v, ":") {
		return false
	}
	c := v[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		return false
	}
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null":
		return false
	}
	return true
}
