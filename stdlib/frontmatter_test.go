package stdlib_test

import (
	"testing"

	glua "github.com/yuin/gopher-lua"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTextFrontMatter checks text.front_matter against the cases pi's
// parseFrontmatter decides (utils/frontmatter.js): where the front matter
// begins and ends, what the body keeps, and YAML values as json gives them.
func TestTextFrontMatter(t *testing.T) {
	L := newState(t, nil)
	require.NoError(t, L.DoString(`text = require("text") json = require("json")
function fm(s)
  local data, body = text.front_matter(s)
  if data == nil then return "error: " .. body end
  return json.encode(data) .. "|" .. body
end`))
	tests := []struct{ name, in, want string }{
		{"skill", "---\nname: my-skill\ndescription: Does things\n---\n\n# Body\n\ntext\n", `{"name":"my-skill","description":"Does things"}|# Body` + "\n\ntext"},
		{"crlf", "---\r\nname: a\r\n---\r\nbody\r\n", `{"name":"a"}|body`},
		{"no front matter", "# Title\n\n", "{}|# Title\n\n"},
		{"unterminated", "---\nname: a\n", "{}|---\nname: a\n"},
		{"empty", "---\n---\nbody", "{}|body"},
		{"values", "---\nn: 3\nf: 1.5\nb: true\nz: null\nl: [a, 1]\nm: {k: v}\nd: 2024-01-02\n---\n", `{"n":3,"f":1.5,"b":true,"z":null,"l":["a",1],"m":{"k":"v"},"d":"2024-01-02"}|`},
		{"folded", "---\ndescription: >\n  one\n  two\n---\nx", `{"description":"one two\n"}|x`},
		{"not at start", "\n---\nname: a\n---\n", "{}|\n---\nname: a\n---\n"},
		{"closing dashes anywhere in a line start", "---\na: 1\n----\nb", `{"a":1}|-` + "\nb"},
		{"quoted colon (a template's description)", "---\ndescription: 'Review: $1'\nargument-hint: <file>\n---\nbody", `{"description":"Review: $1","argument-hint":"<file>"}|body`},
		{"malformed", "---\nname: [a\n---\n", "error: front matter: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			L.SetGlobal("input", glua.LString(tt.in))
			got := eval(t, L, `return fm(input)`)
			if tt.name == "malformed" {
				assert.Contains(t, got, tt.want)
				return
			}
			assert.Equal(t, tt.want, got)
		})
	}
	assert.Equal(t, "nil|front matter: more than 10000 values", eval(t, L, `
local lines = {"---", "a: &a [x, x, x, x, x, x, x, x, x, x]"}
local prev = "a"
for i = 1, 6 do
  local name = "l" .. i
  lines[#lines + 1] = name .. ": &" .. name .. " [*" .. prev .. ", *" .. prev .. ", *" .. prev .. ", *" .. prev .. ", *" .. prev .. ", *" .. prev .. ", *" .. prev .. ", *" .. prev .. ", *" .. prev .. ", *" .. prev .. "]"
  prev = name
end
lines[#lines + 1] = "---"
local d, err = text.front_matter(table.concat(lines, "\n"))
return tostring(d) .. "|" .. tostring(err)`))
}
