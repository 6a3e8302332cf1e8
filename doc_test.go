package main

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOnlyDocGoDocumentsThePackage: a file's own note sits below its
// package line, so `go doc .` prints doc.go's paragraph about the command
// and nothing else (a comment right above `package main` joins it).
func TestOnlyDocGoDocumentsThePackage(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly|parser.ParseComments)
		require.NoError(t, err, f)
		if f == "doc.go" {
			assert.NotNil(t, parsed.Doc, "doc.go documents the command")
			continue
		}
		assert.Nil(t, parsed.Doc, "%s: its note is above the package line; go doc . would print it with the command's", f)
	}
}
