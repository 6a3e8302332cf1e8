package lua_test

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/lua"
)

func names(srcs []lua.Source) []string {
	var out []string
	for _, s := range srcs {
		out = append(out, s.Origin+":"+s.Name)
	}
	return out
}

// project creates a project folder with hooks and returns its path.
func project(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		writeFile(t, filepath.Join(dir, ".lunar", "hooks.d", name), content)
	}
	return dir
}

func TestDiscoverOrderDisabledAndNoHooks(t *testing.T) {
	bundled := fstest.MapFS{
		"00-core.lua":  {Data: []byte(`-- core`)},
		"50-extra.lua": {Data: []byte(`-- extra`)},
		"README.md":    {Data: []byte(`not a hook`)},
	}
	global := t.TempDir()
	writeFile(t, filepath.Join(global, "20-b.lua"), "")
	writeFile(t, filepath.Join(global, "10-a.lua"), "")
	writeFile(t, filepath.Join(global, "notes.txt"), "")
	writeFile(t, filepath.Join(global, "lib", "x.lua"), "")
	proj := project(t, map[string]string{"10-p.lua": "", "30-q.lua": ""})
	cli := filepath.Join(t.TempDir(), "extra.lua")
	writeFile(t, cli, "")

	opts := lua.DiscoverOptions{Bundled: bundled, GlobalDir: global, ProjectDir: proj, Files: []string{cli}, Trust: true}
	srcs, warns, err := lua.Discover(opts)
	require.NoError(t, err)
	assert.Empty(t, warns)
	assert.Equal(t, []string{"bundled:00-core.lua", "bundled:50-extra.lua", "global:10-a.lua", "global:20-b.lua",
		"project:10-p.lua", "project:30-q.lua", "cli:extra.lua"}, names(srcs))
	assert.Equal(t, "hooks.d/00-core.lua", srcs[0].Path)
	assert.Equal(t, filepath.Join(global, "10-a.lua"), srcs[2].Path)

	opts.Disabled = []string{"50-extra", "20-b.lua", "30-q", "extra"}
	srcs, _, err = lua.Discover(opts)
	require.NoError(t, err)
	assert.Equal(t, []string{"bundled:00-core.lua", "global:10-a.lua", "project:10-p.lua", "cli:extra.lua"}, names(srcs),
		"disabled_hooks applies to discovered hooks, never to an explicit --hook")

	opts.NoHooks = true
	srcs, _, err = lua.Discover(opts)
	require.NoError(t, err)
	assert.Equal(t, []string{"cli:extra.lua"}, names(srcs))

	_, _, err = lua.Discover(lua.DiscoverOptions{Bundled: bundled, Files: []string{"/no/such/hook.lua"}})
	assert.ErrorContains(t, err, "/no/such/hook.lua")
}

func TestProjectHooksNeedTrust(t *testing.T) {
	state := t.TempDir()
	proj := project(t, map[string]string{"10-p.lua": "-- v1"})
	base := lua.DiscoverOptions{Bundled: emptyFS(), ProjectDir: proj}

	// one-shot: nobody to ask
	srcs, warns, err := lua.Discover(base)
	require.NoError(t, err)
	assert.Empty(t, srcs)
	require.Len(t, warns, 1)
	assert.Contains(t, warns[0], "are not trusted: skipped")
	assert.Contains(t, warns[0], "--trust")

	// the user says no: skipped, nothing remembered
	store, err := lua.OpenTrustStore(state)
	require.NoError(t, err)
	var asked []string
	opts := base
	opts.TrustStore = store
	opts.Ask = func(dir string, files []string) bool {
		assert.Equal(t, proj, dir)
		asked = append(asked, files...)
		return false
	}
	srcs, warns, err = lua.Discover(opts)
	require.NoError(t, err)
	assert.Empty(t, srcs)
	assert.Len(t, warns, 1)
	assert.Equal(t, []string{"10-p.lua"}, asked)
	assert.NoFileExists(t, filepath.Join(state, lua.TrustFile))

	// the user says yes: loaded and remembered
	opts.Ask = func(string, []string) bool { return true }
	srcs, warns, err = lua.Discover(opts)
	require.NoError(t, err)
	assert.Empty(t, warns)
	assert.Equal(t, []string{"project:10-p.lua"}, names(srcs))
	assert.FileExists(t, filepath.Join(state, lua.TrustFile))

	// next run: trusted without asking
	store, err = lua.OpenTrustStore(state)
	require.NoError(t, err)
	opts.TrustStore = store
	opts.Ask = func(string, []string) bool { t.Error("asked again for unchanged hooks"); return false }
	srcs, _, err = lua.Discover(opts)
	require.NoError(t, err)
	assert.Equal(t, []string{"project:10-p.lua"}, names(srcs))

	// a changed file (or a new lib file) makes the folder untrusted again
	for _, change := range []string{"10-p.lua", "lib/util.lua"} {
		writeFile(t, filepath.Join(proj, ".lunar", "hooks.d", change), "-- changed "+change)
		asked = nil
		opts.Ask = func(dir string, files []string) bool { asked = files; return false }
		srcs, _, err = lua.Discover(opts)
		require.NoError(t, err)
		assert.Empty(t, srcs, change)
		assert.Contains(t, asked, change)
		opts.Ask = nil
		_, warns, err = lua.Discover(opts)
		require.NoError(t, err)
		require.Len(t, warns, 1)
		assert.Contains(t, warns[0], "changed since you trusted them")
		opts.Ask = func(string, []string) bool { return true }
		_, _, err = lua.Discover(opts)
		require.NoError(t, err)
	}

	// --trust loads without asking and remembers nothing
	other := project(t, map[string]string{"10-o.lua": ""})
	srcs, warns, err = lua.Discover(lua.DiscoverOptions{Bundled: emptyFS(), ProjectDir: other, Trust: true, TrustStore: store})
	require.NoError(t, err)
	assert.Empty(t, warns)
	assert.Len(t, srcs, 1)
	data, err := os.ReadFile(filepath.Join(state, lua.TrustFile))
	require.NoError(t, err)
	assert.NotContains(t, string(data), other)
	assert.Contains(t, string(data), proj)
}

func TestTrustStoreRejectsMalformedFile(t *testing.T) {
	state := t.TempDir()
	writeFile(t, filepath.Join(state, lua.TrustFile), "{not json")
	_, err := lua.OpenTrustStore(state)
	assert.ErrorContains(t, err, lua.TrustFile)
}

func TestBundledHooksLoad(t *testing.T) {
	srcs, warns, err := lua.Discover(lua.DiscoverOptions{})
	require.NoError(t, err)
	assert.Empty(t, warns)
	require.NotEmpty(t, srcs)
	assert.Equal(t, []string{"bundled:permissions.lua", "bundled:prune.lua", "bundled:skills.lua", "bundled:stack.lua", "bundled:templates.lua"}, names(srcs))
	reps := []string{}
	rt := lua.Load(srcs, lua.Options{Host: newHost(t), Report: func(m string) { reps = append(reps, m) }})
	defer rt.Close()
	assert.Empty(t, reps, "bundled hooks load cleanly, requiring their lib/ from the embedded files")
	for _, r := range rt.Report() {
		assert.Equal(t, lua.OriginBundled, r.Origin)
		assert.Empty(t, r.Errors)
	}
}
