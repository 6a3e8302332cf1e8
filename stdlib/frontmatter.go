package stdlib

// text.front_matter: the YAML header of Markdown files (prompt templates,
// skills), split the way pi splits it so that files written for pi read
// the same here.

import (
	"fmt"
	"strings"

	glua "github.com/yuin/gopher-lua"
	"go.yaml.in/yaml/v3"
)

// SplitFrontMatter splits Markdown into the YAML text of its front matter
// ("" when it has none) and its body. Line ends are normalised to \n
// first. A front matter starts at the very beginning with "---" and ends
// at the next line starting with "---"; the body after it is trimmed, a
// file without one is returned whole.
func SplitFrontMatter(s string) (yamlText, body string) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	if !strings.HasPrefix(s, "---") {
		return "", s
	}
	end := strings.Index(s[3:], "\n---")
	if end < 0 {
		return "", s
	}
	end += 3
	start := min(4, end)
	return s[start:end], strings.TrimSpace(s[end+4:])
}

// ParseFrontMatter parses the front matter of Markdown: its mapping as
// JSON-compatible values (nil when there is none, or it is not a mapping)
// and the body.
func ParseFrontMatter(s string) (map[string]any, string, error) {
	text, body := SplitFrontMatter(s)
	if strings.TrimSpace(text) == "" {
		return nil, body, nil
	}
	var v any
	// The header ends at a line end: a block scalar on its last line
	// keeps its newline (pi's YAML parser reads it so too).
	if err := yaml.Unmarshal([]byte(text+"\n"), &v); err != nil {
		return nil, body, fmt.Errorf("front matter: %w", err)
	}
	m, ok := jsonable(v).(map[string]any)
	if !ok {
		return nil, body, nil
	}
	return m, body, nil
}

// jsonable turns decoded YAML into values encoding/json can write:
// mappings with keys of any type become map[string]any.
func jsonable(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = jsonable(e)
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[fmt.Sprint(k)] = jsonable(e)
		}
		return m
	case []any:
		for i, e := range v {
			v[i] = jsonable(e)
		}
		return v
	case float64, int, int64, uint64, bool, string, nil:
		return v
	default:
		return fmt.Sprint(v) // timestamps and the like, as written
	}
}

// yamlLua converts decoded front matter (see jsonable) to Lua as the json
// module would decode it: lists are arrays, null is json.null.
func yamlLua(L *glua.LState, c *Codec, v any) glua.LValue {
	switch v := v.(type) {
	case map[string]any:
		t := L.CreateTable(0, len(v))
		for k, e := range v {
			t.RawSetString(k, yamlLua(L, c, e))
		}
		return t
	case []any:
		t := c.NewArray(len(v))
		for i, e := range v {
			t.RawSetInt(i+1, yamlLua(L, c, e))
		}
		return t
	case string:
		return glua.LString(v)
	case bool:
		return glua.LBool(v)
	case int:
		return glua.LNumber(v)
	case int64:
		return glua.LNumber(v)
	case uint64:
		return glua.LNumber(v)
	case float64:
		return glua.LNumber(v)
	default:
		return c.Null()
	}
}

func textFrontMatter(L *glua.LState) int {
	m, body, err := ParseFrontMatter(L.CheckString(1))
	if err != nil {
		L.Push(glua.LNil)
		L.Push(glua.LString(err.Error()))
		return 2
	}
	data := glua.LValue(L.NewTable())
	if m != nil {
		data = yamlLua(L, NewCodec(L), m)
	}
	t := L.CreateTable(0, 2)
	t.RawSetString("data", data)
	t.RawSetString("body", glua.LString(body))
	L.Push(t)
	return 1
}
