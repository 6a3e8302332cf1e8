package lua_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/lua"
)

// lunar.paths tells a hook (the prompt templates and skills hooks) where
// the user's config folder is and whether the project may be read.
func TestTemplatePathsAPI(t *testing.T) {
	host := newHost(t)
	code := `lunar.command("f", { handler = function()
		local f = lunar.paths()
		return f.config .. "|" .. f.project .. "|" .. tostring(f.project_trusted) .. "|" .. type(f.home)
	end })`
	file := filepath.Join(t.TempDir(), "f.lua")
	writeFile(t, file, code)
	src, err := lua.FileSource(file, lua.OriginGlobal)
	require.NoError(t, err)
	for _, opts := range []lua.Options{{}, {ConfigDir: "/home/u/.config/lunar", ProjectTrusted: true}} {
		opts.Host, opts.DataDir = host, t.TempDir()
		rt := lua.Load([]lua.Source{src}, opts)
		out, _, err := rt.RunCommand(bg, "f", "")
		rt.Close()
		require.NoError(t, err)
		want := "|" + host.Dir + "|false|string"
		if opts.ProjectTrusted {
			want = "/home/u/.config/lunar|" + host.Dir + "|true|string"
		}
		assert.Equal(t, want, out)
	}
}
