package lua_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/lua"
)

// BenchmarkDiscover30 finds the bundled hooks and 30 trivial global ones
// (what a one-shot run with them reads before preparing them).
func BenchmarkDiscover30(b *testing.B) {
	dir := b.TempDir()
	for i := range 30 {
		require.NoError(b, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%02d-trivial.lua", i)), fmt.Appendf(nil, trivialHook, i), 0o644))
	}
	b.ReportAllocs()
	for b.Loop() {
		srcs, _, err := lua.Discover(lua.DiscoverOptions{GlobalDir: dir})
		if err != nil || len(srcs) < 30 {
			b.Fatal(err, len(srcs))
		}
	}
}
