package stdlib

import (
	"testing"

	"github.com/stretchr/testify/assert"
	glua "github.com/yuin/gopher-lua"
	"go.yaml.in/yaml/v4"
)

// TestPlainFrontMatterAgreesWithYAML checks that the parser-free path takes
// only values YAML reads as the same string.
func TestPlainFrontMatterAgreesWithYAML(t *testing.T) {
	L := glua.NewState()
	defer L.Close()
	for _, v := range []string{
		"Extract text & tables from <PDF> files", "a b c", "use it: now", "x #y", "x#y", "yes", "No", "null", "on",
		"3", "1e3", ".inf", "-x", "[a]", "{a}", "'q'", "\"q\"", "&a", "*a", "!t x", "|", ">", "%x", "@x", "`x`",
		"a: b", "trailing:", "tab\there", "über", "Ünïcode words", "x, y", "a - b", "q?", "C:\\path",
	} {
		src := "k: " + v
		tbl, ok := plainFrontMatter(L, src)
		if !ok {
			continue
		}
		var m map[string]any
		if err := yaml.Unmarshal([]byte(src+"\n"), &m); !assert.NoError(t, err, v) {
			continue
		}
		assert.Equal(t, m["k"], tbl.RawGetString("k").String(), "%q", v)
	}
}
