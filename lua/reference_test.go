package lua

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the generated section of docs/hooks.md")

const (
	refBegin = "<!-- BEGIN GENERATED REFERENCE (go test ./lua -run TestDocsReference -update) -->\n"
	refEnd   = "<!-- END GENERATED REFERENCE -->\n"
)

// TestDocsReference keeps docs/hooks.md's reference equal to the API
// tables.
func TestDocsReference(t *testing.T) {
	const path = "../docs/hooks.md"
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	doc := string(data)
	i := strings.Index(doc, refBegin)
	j := strings.Index(doc, refEnd)
	require.True(t, i >= 0 && j > i, "markers missing in %s", path)
	want := doc[:i+len(refBegin)] + "\n" + ReferenceMarkdown() + doc[j:]
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(want), 0o644))
		return
	}
	assert.Equal(t, want, doc, "docs/hooks.md is stale: go test ./lua -run TestDocsReference -update")
}
