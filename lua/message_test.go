package lua

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// TestCapMessage: a hook's error message keeps its first 8 KiB, cut at a
// character boundary, and says how much was cut.
func TestCapMessage(t *testing.T) {
	tests := []struct {
		name, msg, want string
	}{
		{"short", "boom", "boom"},
		{"exactly the cap", strings.Repeat("x", maxErrorMessage), strings.Repeat("x", maxErrorMessage)},
		{"one byte over", strings.Repeat("x", maxErrorMessage+1), strings.Repeat("x", maxErrorMessage) + "… (1 B more cut)"},
		{"120 MiB", strings.Repeat("x", 120<<20), strings.Repeat("x", maxErrorMessage) + "… (120.0 MiB more cut)"},
		// "é" is two bytes: the cap falls inside the last one, which goes whole.
		{"multibyte", "x" + strings.Repeat("é", maxErrorMessage/2), "x" + strings.Repeat("é", maxErrorMessage/2-1) + "… (2 B more cut)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := capMessage(tt.msg)
			assert.Equal(t, tt.want, got)
			assert.True(t, utf8.ValidString(got))
		})
	}
}
