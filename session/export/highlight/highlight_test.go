package highlight

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		name, lang, code string
		want             []Class // classes of the non-plain pieces, in order
	}{
		{"go", "go", "func f() int { return 1 } // c", []Class{Keyword, Func, Type, Keyword, Number, Comment}},
		{"shell", "sh", "echo $HOME # x", []Class{Type, Var, Comment}},
		{"json", "json", `{"k": "v"}`, []Class{Key, String}},
		{"diff", "diff", "@@ -1 +1 @@\n-a\n+b\n c", []Class{Hunk, Removed, Added}},
		{"unknown language", "nope", "func f()", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []Class
			var b strings.Builder
			Tokens(tt.code, ByName(tt.lang), func(c Class, text string) {
				b.WriteString(text)
				if c != Plain {
					got = append(got, c)
				}
			})
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.code, b.String(), "the pieces join to the code")
		})
	}
}

func TestLanguageLookup(t *testing.T) {
	assert.Equal(t, ByName("go"), ByFile("src/a.go"))
	assert.Equal(t, ByName("make"), ByFile("/x/Makefile"))
	assert.Equal(t, ByName("js"), ByName("TSX"))
	assert.Nil(t, ByFile("notes.txt"))
	assert.Nil(t, ByName(""))
}

func TestLargeTextIsPlain(t *testing.T) {
	code := strings.Repeat("x := 1\n", MaxSize/7+1)
	n := 0
	Tokens(code, ByName("go"), func(c Class, text string) {
		assert.Equal(t, Plain, c)
		assert.Equal(t, code, text)
		n++
	})
	assert.Equal(t, 1, n)
}
