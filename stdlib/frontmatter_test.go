package stdlib_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/stdlib"
)

// SplitFrontMatter follows pi's parseFrontmatter: a header only at the
// very start, closed by the next line starting with ---, body trimmed;
// without one the (normalised) text is the body as it is.
func TestTemplateFrontMatterSplit(t *testing.T) {
	for _, tt := range []struct {
		name, in, yaml, body string
	}{
		{"none", "hello\n", "", "hello\n"},
		{"header", "---\ndescription: d\n---\n\nbody\n\n", "description: d", "body"},
		{"crlf", "---\r\na: 1\r\n---\r\nx\r\ny", "a: 1", "x\ny"},
		{"unclosed", "---\na: 1\nbody", "", "---\na: 1\nbody"},
		{"empty header", "---\n---\nbody", "", "body"},
		{"not at start", "\n---\na: 1\n---\nb", "", "\n---\na: 1\n---\nb"},
		{"closing line prefix", "---\na: 1\n----more\nb", "a: 1", "-more\nb"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			y, b := stdlib.SplitFrontMatter(tt.in)
			assert.Equal(t, tt.yaml, y)
			assert.Equal(t, tt.body, b)
		})
	}
}

func TestTemplateFrontMatterLua(t *testing.T) {
	L := newState(t, nil)
	require.NoError(t, L.DoString(`text = require("text")`))
	assert.Equal(t, "Review: $1|body|x,y|true|1", eval(t, L, `
		local fm = assert(text.front_matter("---\ndescription: 'Review: $1'\ntags: [x, y]\nok: true\nn: 1\n---\nbody"))
		return table.concat({fm.data.description, fm.body, table.concat(fm.data.tags, ","), tostring(fm.data.ok), fm.data.n}, "|")`))
	assert.Equal(t, "0 plain", eval(t, L, `local fm = text.front_matter("plain") local n = 0 for _ in pairs(fm.data) do n = n + 1 end return n .. " " .. fm.body`))
	assert.Equal(t, "nil true", eval(t, L, `local fm, err = text.front_matter("---\na: [\n---\nb") return tostring(fm) .. " " .. tostring(err:find("front matter") ~= nil)`))
}
