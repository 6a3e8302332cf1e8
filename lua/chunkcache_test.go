package lua

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	glua "github.com/yuin/gopher-lua"
)

func init() {
	// A test binary has no module versions in its build information: the
	// cache would be off.
	if gluaVersion() == "" {
		gluaVersion = func() string { return "test" }
	}
}

// luaFiles lists the repository's Lua files: the bundled hooks and their
// lib/, the examples, the hooks of the tests.
func luaFiles(t *testing.T) []string {
	var files []string
	for _, dir := range []string{"../hooks.d", "../examples", "../testdata/hooks", "testdata"} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lua") {
				files = append(files, p)
			}
			return err
		})
		require.NoError(t, err)
	}
	require.Greater(t, len(files), 50)
	return files
}

// compileFresh compiles code as a hook's prepare does (trimmed).
func compileFresh(t *testing.T, name string, code []byte) *glua.FunctionProto {
	L := glua.NewState(glua.Options{SkipOpenLibs: true})
	defer L.Close()
	fn, err := L.Load(bytes.NewReader(code), name)
	if err != nil {
		return nil
	}
	trimProto(fn.Proto)
	return fn.Proto
}

func TestChunkCacheRoundTripsEveryLuaFile(t *testing.T) {
	require.True(t, protoFields(), "gopher-lua's FunctionProto changed: the cache is off")
	compiled := 0
	for _, file := range luaFiles(t) {
		code, err := os.ReadFile(file)
		require.NoError(t, err)
		want := compileFresh(t, file, code)
		if want == nil {
			continue // a test's syntax error
		}
		compiled++
		// prepare makes the function as L.Load does (no upvalues) only
		// when a main chunk has none.
		assert.Zero(t, want.NumUpvalues, file)
		data, ok := encodeChunk(want)
		require.True(t, ok, file)
		got, err := decodeChunk(data)
		require.NoError(t, err, file)
		// reflect.DeepEqual compares the unexported stringConstants too.
		assert.True(t, reflect.DeepEqual(want, got), "%s: decoded proto differs", file)
		sc := reflect.ValueOf(got).Elem().FieldByName("stringConstants")
		assert.Equal(t, len(got.Constants), sc.Len(), file)
	}
	assert.Greater(t, compiled, 50)
}

func TestChunkCacheDecodedChunkRuns(t *testing.T) {
	const src = `local t = {}
for i = 1, 3 do t[#t+1] = string.rep("ab", i) .. 1.5 end
result = table.concat(t, ",") .. (math.floor(2.7))`
	want := compileFresh(t, "x.lua", []byte(src))
	data, ok := encodeChunk(want)
	require.True(t, ok)
	p, err := decodeChunk(data)
	require.NoError(t, err)
	L := glua.NewState()
	defer L.Close()
	L.Push(L.NewFunctionFromProto(p))
	require.NoError(t, L.PCall(0, 0, nil))
	assert.Equal(t, "ab1.5,abab1.5,ababab1.52", L.GetGlobal("result").String())
}

// cachedSources are hooks with a command each, for the load tests.
func cachedSources() []Source {
	return []Source{
		{Name: "a.lua", Origin: OriginGlobal, Code: []byte(`lunar.command("a", { handler = function() return "A" .. 1 end })`)},
		{Name: "b.lua", Origin: OriginGlobal, Code: []byte(`local n = 0
lunar.command("b", { handler = function(args) n = n + 1; return args .. n end })`)},
		{Name: "bad.lua", Origin: OriginGlobal, Code: []byte("lunar.on(\"context\", function() end\n")},
	}
}

// loadCached loads cachedSources with cache and checks the commands work.
func loadCached(t *testing.T, cache *ChunkCache) []string {
	var reports []string
	r := Load(cachedSources(), Options{ChunkCache: cache, Report: func(m string) { reports = append(reports, m) }})
	defer r.Close()
	out, ok, err := r.RunCommand(context.Background(), "a", "")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "A1", out)
	out, _, err = r.RunCommand(context.Background(), "b", "x")
	require.NoError(t, err)
	assert.Equal(t, "x1", out)
	return reports
}

// get returns the cached chunk of the source from its chunk file, or nil.
func (c *ChunkCache) get(name string, code []byte) *glua.FunctionProto {
	if c == nil {
		return nil
	}
	_, p := c.read(c.key(name, code))
	return p
}

// put stores a compiled chunk in its chunk file.
func (c *ChunkCache) put(name string, code []byte, p *glua.FunctionProto) {
	if c != nil {
		c.write(c.key(name, code), p)
	}
}

// cacheFiles lists the chunk files of the folder (not the set files).
func cacheFiles(t *testing.T, dir string) []string { return folderFiles(t, dir, false) }

// setFiles lists the set files of the folder.
func setFiles(t *testing.T, dir string) []string { return folderFiles(t, dir, true) }

func folderFiles(t *testing.T, dir string, sets bool) []string {
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), setPrefix) == sets {
			names = append(names, e.Name())
		}
	}
	return names
}

// corruptions are ways a cache file that was good (starting with magic
// and the format) is no longer: each must read as missing.
func corruptions(good []byte, magic string) map[string][]byte {
	flip := len(good) / 3
	return map[string][]byte{
		"empty":         {},
		"truncated":     good[:len(good)/2],
		"one byte less": good[:len(good)-1],
		"flipped bit":   append(append([]byte{}, good[:flip]...), append([]byte{good[flip] ^ 1}, good[flip+1:]...)...),
		"other format":  append([]byte(magic+"\x09"), good[len(magic)+1:]...),
		"garbage":       bytes.Repeat([]byte{0xff}, 300),
		"trailing":      append(append([]byte{}, good...), 0),
	}
}

func TestChunkCacheWarmLoadMatchesCold(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chunks")
	cache := OpenChunkCache(dir)
	require.NotNil(t, cache)
	cold := loadCached(t, cache)
	files := cacheFiles(t, dir)
	require.Len(t, files, 2, "one file per compiled hook (not the one that does not compile)")
	require.Len(t, setFiles(t, dir), 1, "and the set file of the three")

	// A warm cache: the chunks come from the files (a fresh ChunkCache,
	// as a new process has).
	cache = OpenChunkCache(dir)
	h := &hook{src: cachedSources()[1], rt: newRuntime(Options{})}
	p := cache.get(h.src.Name, h.src.Code)
	require.NotNil(t, p, "the chunk is read from the cache")
	assert.True(t, reflect.DeepEqual(compileFresh(t, h.src.Name, h.src.Code), p))
	warm := loadCached(t, cache)
	assert.Equal(t, cold, warm, "same reports (the syntax error too)")
	require.Len(t, cold, 1)
	assert.Contains(t, cold[0], "bad.lua:1:")
	assert.Equal(t, files, cacheFiles(t, dir))

	// A changed source is another key.
	src := cachedSources()[0]
	assert.Nil(t, cache.get(src.Name, append(src.Code, ' ')))
	assert.Nil(t, cache.get("other.lua", src.Code))
}

func TestChunkCacheCorruptFilesFallBack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chunks")
	loadCached(t, OpenChunkCache(dir))
	files := cacheFiles(t, dir)
	require.Len(t, files, 2)
	good, err := os.ReadFile(filepath.Join(dir, files[0]))
	require.NoError(t, err)
	// The chunk files are read only when the set file is not there (see
	// TestChunkSet*).
	set := setFiles(t, dir)
	require.Len(t, set, 1)
	require.NoError(t, os.Remove(filepath.Join(dir, set[0])))

	for name, data := range corruptions(good, chunkMagic) {
		t.Run(name, func(t *testing.T) {
			_, err := decodeChunk(data)
			assert.Error(t, err)
			for _, f := range files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, f), data, 0o600))
			}
			for _, f := range setFiles(t, dir) {
				require.NoError(t, os.Remove(filepath.Join(dir, f)))
			}
			assert.Empty(t, loadCached(t, OpenChunkCache(dir))[1:], "no error besides the syntax error")
			// Rewritten: the next run reads it.
			for _, f := range files {
				got, err := os.ReadFile(filepath.Join(dir, f))
				require.NoError(t, err)
				_, err = decodeChunk(got)
				assert.NoError(t, err)
			}
		})
	}
}

func TestChunkCacheReadOnlyFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only folders")
	}
	state := t.TempDir()
	require.NoError(t, os.Chmod(state, 0o500))
	t.Cleanup(func() { os.Chmod(state, 0o700) })
	dir := filepath.Join(state, "chunks")
	reports := loadCached(t, OpenChunkCache(dir))
	assert.Len(t, reports, 1, "only the syntax error")
	_, err := os.Stat(dir)
	assert.True(t, os.IsNotExist(err))
}

func TestChunkCacheUnwritableFile(t *testing.T) {
	// Whoever runs the test: chunks is a file, not a folder.
	dir := filepath.Join(t.TempDir(), "chunks")
	require.NoError(t, os.WriteFile(dir, []byte("x"), 0o600))
	reports := loadCached(t, OpenChunkCache(dir))
	assert.Len(t, reports, 1, "only the syntax error")
	got, err := os.ReadFile(dir)
	require.NoError(t, err)
	assert.Equal(t, "x", string(got))
}

func TestChunkCachePrune(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chunks")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	old := time.Now().Add(-chunkMaxAge - time.Hour)
	write := func(name string, mod time.Time) {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o600))
		require.NoError(t, os.Chtimes(p, mod, mod))
	}
	write("stale", old)
	write(".tmp-left", time.Now().Add(-2*time.Hour))
	write(".tmp-writing", time.Now())
	for i := range chunkMaxFiles + 3 {
		write(strings.Repeat("f", 1+i/100)+string(rune('a'+i%26))+string(rune('a'+i/26%26)), time.Now().Add(-time.Duration(i)*time.Minute))
	}
	// Nothing written: a run that only read does not prune.
	c := OpenChunkCache(dir)
	c.prune()
	assert.Len(t, cacheFiles(t, dir), chunkMaxFiles+3+3)

	c.put("x.lua", []byte("return 1"), compileFresh(t, "x.lua", []byte("return 1")))
	c.prune()
	names := cacheFiles(t, dir)
	assert.Len(t, names, chunkMaxFiles+1, "the newest files and the temporary file being written")
	assert.NotContains(t, names, "stale")
	assert.NotContains(t, names, ".tmp-left")
	assert.Contains(t, names, ".tmp-writing")
	assert.Contains(t, names, c.key("x.lua", []byte("return 1")))
}

func TestChunkCacheKeyHasVersions(t *testing.T) {
	c := OpenChunkCache(t.TempDir())
	require.NotNil(t, c)
	assert.Contains(t, c.salt, gluaVersion())
	assert.NotEmpty(t, gluaVersion())
	other := &ChunkCache{dir: c.dir, salt: strings.Replace(c.salt, gluaVersion(), "v9.9.9", 1)}
	assert.NotEqual(t, c.key("a.lua", nil), other.key("a.lua", nil))
	assert.Nil(t, OpenChunkCache(""))
}

func TestChunkCacheTouchesOldFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chunks")
	loadCached(t, OpenChunkCache(dir))
	src := cachedSources()[0]
	c := OpenChunkCache(dir)
	path := filepath.Join(dir, c.key(src.Name, src.Code))
	recent := time.Now().Add(-chunkTouchAge / 2).Truncate(time.Second)
	require.NoError(t, os.Chtimes(path, recent, recent))
	require.NotNil(t, c.get(src.Name, src.Code))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.True(t, fi.ModTime().Equal(recent), "a recent file is only read")

	old := time.Now().Add(-2 * chunkTouchAge)
	require.NoError(t, os.Chtimes(path, old, old))
	require.NotNil(t, c.get(src.Name, src.Code))
	fi, err = os.Stat(path)
	require.NoError(t, err)
	assert.Less(t, time.Since(fi.ModTime()), chunkTouchAge, "an old file used is refreshed (pruning reads its age)")
}

func TestChunkCacheSkipsOtherFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chunks")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	c := OpenChunkCache(dir)
	src := cachedSources()[0]
	path := filepath.Join(dir, c.key(src.Name, src.Code))
	require.NoError(t, os.Mkdir(path, 0o700))
	assert.Nil(t, c.get(src.Name, src.Code), "a folder")
	require.NoError(t, os.Remove(path))

	data, ok := encodeChunk(compileFresh(t, src.Name, src.Code))
	require.True(t, ok)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	require.NotNil(t, c.get(src.Name, src.Code))
	buf, _, ok := readChunkFile(path, int64(len(data)-1))
	assert.False(t, ok, "larger than the limit")
	assert.Nil(t, buf)
	buf, _, ok = readChunkFile(path, int64(len(data)))
	assert.True(t, ok)
	assert.Equal(t, data, buf)
}

func TestMainChunkBuildsNoArgTable(t *testing.T) {
	// A main chunk (hook or lib/ module) runs without the Lua 5.0 arg table
	// it could not reach; `arg` there is the global, and a nested vararg
	// function keeps its local arg.
	const code = `arg = "global"
local function f(...) return arg end
local t = f(1, 2)
result = arg .. " " .. type(t) .. " " .. t.n`
	for _, cached := range []bool{false, true} {
		var cache *ChunkCache
		if cached {
			cache = OpenChunkCache(filepath.Join(t.TempDir(), "chunks"))
			Load([]Source{{Name: "x.lua", Code: []byte(code)}}, Options{ChunkCache: cache}).Close()
			require.NotNil(t, cache.get("x.lua", []byte(code)))
		}
		h := &hook{src: Source{Name: "x.lua", Code: []byte(code)}}
		c := h.prepare(cache.openSet([]Source{h.src}), 0)
		require.NoError(t, c.err)
		assert.Zero(t, c.fn.Proto.IsVarArg&glua.VarArgNeedsArg, "cached %v", cached)
		assert.NotZero(t, c.fn.Proto.FunctionPrototypes[0].IsVarArg&glua.VarArgNeedsArg, "the nested function keeps it")
		h.L.Push(c.fn)
		require.NoError(t, h.L.PCall(0, 0, nil))
		assert.Equal(t, "global table 2", h.L.GetGlobal("result").String())
		h.L.Close()
	}
}
