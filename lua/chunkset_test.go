package lua

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestChunkSetServesAWarmRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chunks")
	loadCached(t, OpenChunkCache(dir))
	set := setFiles(t, dir)
	require.Len(t, set, 1)
	// Without the chunk files, a run still finds every chunk: nothing is
	// compiled (a compiled chunk is written to its file), nothing written.
	for _, f := range cacheFiles(t, dir) {
		require.NoError(t, os.Remove(filepath.Join(dir, f)))
	}
	before, err := os.Stat(filepath.Join(dir, set[0]))
	require.NoError(t, err)
	assert.Len(t, loadCached(t, OpenChunkCache(dir)), 1, "only the syntax error")
	assert.Empty(t, cacheFiles(t, dir), "nothing compiled")
	after, err := os.Stat(filepath.Join(dir, set[0]))
	require.NoError(t, err)
	assert.Equal(t, before.ModTime(), after.ModTime(), "the set file is only read")

	// What the set gives is what the compiler gives.
	c := OpenChunkCache(dir)
	srcs := cachedSources()
	s := c.openSet(srcs)
	for i, src := range srcs[:2] {
		p := s.get(i)
		require.NotNil(t, p, src.Name)
		assert.Equal(t, compileFresh(t, src.Name, src.Code), p)
	}
	assert.False(t, s.missed.Load())
}

func TestChunkSetChangedHook(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chunks")
	loadCached(t, OpenChunkCache(dir))
	old := setFiles(t, dir)
	files := cacheFiles(t, dir)
	require.Len(t, old, 1)
	require.Len(t, files, 2)
	// An older time on the chunk files: a file written again would show.
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, f := range files {
		require.NoError(t, os.Chtimes(filepath.Join(dir, f), past, past))
	}

	// One source changed (a comment added): another set, made of the
	// other's chunk file and the changed one compiled.
	srcs := cachedSources()
	srcs[1].Code = append([]byte("-- changed\n"), srcs[1].Code...)
	var reports []string
	r := Load(srcs, Options{ChunkCache: OpenChunkCache(dir), Report: func(m string) { reports = append(reports, m) }})
	out, _, err := r.RunCommand(t.Context(), "b", "x")
	require.NoError(t, err)
	assert.Equal(t, "x1", out)
	r.Close()
	assert.Len(t, reports, 1, "only the syntax error")
	sets := setFiles(t, dir)
	assert.Len(t, sets, 2, "the new set beside the old one (pruning removes it once unused)")
	now := cacheFiles(t, dir)
	assert.Len(t, now, 3, "the changed hook's chunk file is new")
	for _, f := range files {
		fi, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err)
		assert.True(t, fi.ModTime().Equal(past), "%s is read, not written again", f)
	}
	// The old set still serves the old sources.
	s := OpenChunkCache(dir).openSet(cachedSources())
	assert.NotNil(t, s.get(1))
	assert.False(t, s.missed.Load())
}

func TestChunkSetCorruptFallsBack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chunks")
	loadCached(t, OpenChunkCache(dir))
	set := setFiles(t, dir)
	require.Len(t, set, 1)
	path := filepath.Join(dir, set[0])
	good, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NotNil(t, decodeSet(good))
	files := cacheFiles(t, dir)

	cases := corruptions(good, setMagic)
	cases["a chunk file"] = mustRead(t, filepath.Join(dir, files[0]))
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Nil(t, decodeSet(data))
			require.NoError(t, os.WriteFile(path, data, 0o600))
			assert.Len(t, loadCached(t, OpenChunkCache(dir)), 1, "only the syntax error")
			got := mustRead(t, path)
			assert.Equal(t, good, got, "written again from the chunk files")
		})
	}

	// A set whose CRC holds but whose chunk does not decode: that chunk
	// comes from its file.
	bad := bytes.Replace(good, []byte(chunkMagic), []byte("XXXX"), 1)
	bad = append(bad[:len(bad)-4], crcLE(bad[:len(bad)-4])...)
	require.NotNil(t, decodeSet(bad))
	require.NoError(t, os.WriteFile(path, bad, 0o600))
	assert.Len(t, loadCached(t, OpenChunkCache(dir)), 1)
	assert.Equal(t, good, mustRead(t, path))
}

func TestChunkSetManyHooksPreparedTwoWays(t *testing.T) {
	// Load's caller prepares the hooks the background has not claimed
	// yet: whichever prepares a hook, each loads once, in order, from
	// the set when it is warm.
	var srcs []Source
	for i := range 40 {
		srcs = append(srcs, Source{Name: fmt.Sprintf("%02d.lua", i), Origin: OriginGlobal,
			Code: fmt.Appendf(nil, `lunar.command("c%02d", { handler = function() return "%d" end })`, i, i)})
	}
	dir := filepath.Join(t.TempDir(), "chunks")
	for _, warm := range []bool{false, true} {
		cache := OpenChunkCache(dir)
		p := PrepareCached(srcs, cache)
		r := p.Load(Options{Report: func(m string) { t.Error(m) }})
		var names []string
		for _, h := range r.Report() {
			names = append(names, h.Name)
			assert.Empty(t, h.Errors, h.Name)
			assert.Equal(t, []string{"c" + strings.TrimSuffix(h.Name, ".lua")}, h.Commands)
		}
		assert.True(t, slices.Equal(names, func() []string {
			var want []string
			for _, s := range srcs {
				want = append(want, s.Name)
			}
			return want
		}()), "load order: %v", names)
		out, ok, err := r.RunCommand(t.Context(), "c37", "")
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, "37", out)
		r.Close()
		p.Close()
		assert.Len(t, cacheFiles(t, dir), 40, "warm %v", warm)
		assert.Len(t, setFiles(t, dir), 1, "warm %v", warm)
	}
}

// crcLE is what ends a set or chunk file: the CRC of the bytes before.
func crcLE(b []byte) []byte {
	return binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(b))
}

func mustRead(t *testing.T, path string) []byte {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

func TestLoadAllPartsInOrder(t *testing.T) {
	// The bundled hooks prepared first, the others found meanwhile: they
	// load one part after the other, and the first holder of a command
	// name keeps it.
	mk := func(names ...string) []Source {
		var srcs []Source
		for _, n := range names {
			srcs = append(srcs, Source{Name: n + ".lua", Origin: OriginGlobal,
				Code: fmt.Appendf(nil, `lunar.command("who", { handler = function() return %q end })
lunar.command(%q, { handler = function() return "" end })`, n, n)})
		}
		return srcs
	}
	dir := filepath.Join(t.TempDir(), "chunks")
	first := PrepareCached(mk("b1", "b2", "b3"), OpenChunkCache(dir))
	second := PrepareCached(mk("u1", "u2"), OpenChunkCache(dir))
	var warnings []string
	r := LoadAll(Options{Report: func(m string) { warnings = append(warnings, m) }}, first, second)
	defer r.Close()
	var names []string
	for _, h := range r.Report() {
		names = append(names, h.Name)
	}
	assert.Equal(t, []string{"b1.lua", "b2.lua", "b3.lua", "u1.lua", "u2.lua"}, names)
	out, _, err := r.RunCommand(t.Context(), "who", "")
	require.NoError(t, err)
	assert.Equal(t, "b1", out)
	assert.Len(t, warnings, 4, "each later `who` is refused: %v", warnings)
	assert.Len(t, setFiles(t, dir), 2, "a set file per part")
	assert.Panics(t, func() { LoadAll(Options{}, second) }, "a part loads once")
}
