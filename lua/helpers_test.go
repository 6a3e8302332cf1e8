package lua_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/lua"
)

func emptyFS() fstest.MapFS { return fstest.MapFS{} }

func mkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }

func writeString(path, content string) error { return os.WriteFile(path, []byte(content), 0o644) }

// readAll concatenates the files of a folder.
func readAll(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var b strings.Builder
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		b.Write(data)
	}
	return b.String()
}

func eventNames() []string { return lua.EventNames() }
