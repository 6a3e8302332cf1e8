package lua

// This file keeps the hooks' compiled main chunks on disk, under the state
// folder's chunks/, so that a run whose hooks have not changed skips
// gopher-lua's parser and compiler (most of what loading a small hook
// costs). A file is named by the SHA-256 of the format version, the
// gopher-lua version, the chunk name and the source: a changed hook, or a
// lunar built with another gopher-lua, never reads a stale chunk. A run
// reads them through a set file, which holds the chunks of all its hooks
// (chunkset.go).
//
// The cache is best effort and silent: a file that is missing, truncated,
// corrupt or from another format is compiled again (and rewritten); a
// folder that cannot be written only means nothing is kept. It turns
// itself off when gopher-lua's FunctionProto is not the one it knows (see
// protoFields).

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	glua "github.com/yuin/gopher-lua"
)

// chunkFormat is the version of the encoding below; change it with the
// encoding.
const chunkFormat = 2 // 2: CRC-32 (IEEE) instead of CRC-32C

// chunkMagic starts every cache file.
const chunkMagic = "LNCH"

const (
	// chunkMaxAge is how long a file nobody used is kept.
	chunkMaxAge = 30 * 24 * time.Hour
	// chunkMaxFiles is how many files the folder keeps at most (the
	// least recently used go first).
	chunkMaxFiles = 500
	// chunkTouchAge is how old a file's time must be before a use
	// refreshes it: most runs only read.
	chunkTouchAge = 24 * time.Hour
)

// ChunkCache is the folder of compiled chunks. A nil *ChunkCache caches
// nothing. Its methods are safe for concurrent use.
type ChunkCache struct {
	dir  string
	salt string // the key's prefix: format and gopher-lua versions

	mu      sync.Mutex
	made    bool // dir was created
	written bool // a file was written: prune once
	pruned  bool
}

// OpenChunkCache returns the cache kept in dir (created on the first
// write), or nil when chunks cannot be cached: dir is "", or this
// gopher-lua is not one the encoding knows.
func OpenChunkCache(dir string) *ChunkCache {
	if dir == "" || !protoFields() {
		return nil
	}
	v := gluaVersion()
	if v == "" {
		return nil
	}
	return &ChunkCache{dir: dir, salt: "lunar-chunk " + strconv.Itoa(chunkFormat) + "\x00" + v + "\x00"}
}

// gluaVersion is gopher-lua's module version as built ("" when unknown or
// replaced by a local folder: its compiler could change without it).
var gluaVersion = sync.OnceValue(func() string {
	const mod = "github.com/yuin/gopher-lua"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, d := range info.Deps {
		if d.Path != mod {
			continue
		}
		if d.Replace != nil {
			if d.Replace.Version == "" {
				return ""
			}
			return d.Replace.Path + "@" + d.Replace.Version + " " + d.Replace.Sum
		}
		return d.Version + " " + d.Sum
	}
	return ""
})

// stringConstantsField is FunctionProto's unexported stringConstants
// field: what the VM reads a global's or a field's name from. The compiler
// derives it from Constants (a string constant's text, "" for the others);
// a decoded proto must have it set the same way.
var stringConstantsField = sync.OnceValue(func() *reflect.StructField {
	f, ok := reflect.TypeFor[glua.FunctionProto]().FieldByName("stringConstants")
	if !ok || f.Type != reflect.TypeFor[[]string]() {
		return nil
	}
	return &f
})

// protoFields reports whether FunctionProto has exactly the fields the
// encoding knows (with their types): a gopher-lua that added or changed
// one turns the cache off.
var protoFields = sync.OnceValue(func() bool {
	want := map[string]reflect.Type{
		"SourceName":         reflect.TypeFor[string](),
		"LineDefined":        reflect.TypeFor[int](),
		"LastLineDefined":    reflect.TypeFor[int](),
		"NumUpvalues":        reflect.TypeFor[uint8](),
		"NumParameters":      reflect.TypeFor[uint8](),
		"IsVarArg":           reflect.TypeFor[uint8](),
		"NumUsedRegisters":   reflect.TypeFor[uint8](),
		"Code":               reflect.TypeFor[[]uint32](),
		"Constants":          reflect.TypeFor[[]glua.LValue](),
		"FunctionPrototypes": reflect.TypeFor[[]*glua.FunctionProto](),
		"DbgSourcePositions": reflect.TypeFor[[]int](),
		"DbgLocals":          reflect.TypeFor[[]*glua.DbgLocalInfo](),
		"DbgCalls":           reflect.TypeFor[[]glua.DbgCall](),
		"DbgUpvalues":        reflect.TypeFor[[]string](),
		"stringConstants":    reflect.TypeFor[[]string](),
	}
	t := reflect.TypeFor[glua.FunctionProto]()
	if t.NumField() != len(want) || stringConstantsField() == nil {
		return false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if want[f.Name] != f.Type {
			return false
		}
	}
	local := reflect.TypeFor[glua.DbgLocalInfo]()
	call := reflect.TypeFor[glua.DbgCall]()
	return local.NumField() == 3 && call.NumField() == 2
})

// setStringConstants completes a decoded proto as the compiler would.
func setStringConstants(p *glua.FunctionProto) {
	sc := make([]string, len(p.Constants))
	for i, c := range p.Constants {
		if s, ok := c.(glua.LString); ok {
			sc[i] = string(s)
		}
	}
	f := reflect.ValueOf(p).Elem().FieldByIndex(stringConstantsField().Index)
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.ValueOf(sc))
}

// key names a chunk's file.
func (c *ChunkCache) key(name string, code []byte) string {
	h := sha256.New()
	h.Write([]byte(c.salt))
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write(code)
	return hex.EncodeToString(h.Sum(nil))
}

// read returns the chunk file of a key, as read and decoded, or nils.
func (c *ChunkCache) read(key string) ([]byte, *glua.FunctionProto) {
	path := filepath.Join(c.dir, key)
	buf, mod, ok := readChunkFile(path, maxChunkFile)
	if !ok {
		return nil, nil
	}
	p, err := decodeChunk(buf)
	if err != nil {
		return nil, nil
	}
	if time.Since(mod) > chunkTouchAge {
		now := time.Now()
		_ = os.Chtimes(path, now, now) // its age is what pruning reads
	}
	return buf, p
}

// maxChunkFile is the largest cache file get reads: more than the chunk
// of the largest hook needs.
const maxChunkFile = 4*MaxSourceSize + 1<<20

// write stores a compiled chunk in the file of its key and returns its
// encoding (nil when it cannot be cached).
func (c *ChunkCache) write(key string, p *glua.FunctionProto) []byte {
	data, ok := encodeChunk(p)
	if !ok {
		return nil
	}
	c.writeFile(key, data)
	return data
}

// writeFile writes a file of the folder atomically (a temporary file
// renamed); failures are ignored.
func (c *ChunkCache) writeFile(name string, data []byte) {
	c.mu.Lock()
	if !c.made {
		if os.MkdirAll(c.dir, 0o700) != nil {
			c.mu.Unlock()
			return
		}
		c.made = true
	}
	c.mu.Unlock()
	tmp, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(c.dir, name)) != nil {
		os.Remove(tmp.Name())
		return
	}
	c.mu.Lock()
	c.written = true
	c.mu.Unlock()
}

// prune removes, once per process and only after a write (a run that only
// read changed nothing), the files not used for chunkMaxAge, the oldest
// beyond chunkMaxFiles, and temporary files left by a killed run.
func (c *ChunkCache) prune() {
	if c == nil {
		return
	}
	c.mu.Lock()
	run := c.written && !c.pruned
	c.pruned = c.pruned || run
	c.mu.Unlock()
	if !run {
		return
	}
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type file struct {
		name string
		mod  time.Time
	}
	var keep []file
	now := time.Now()
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		age := now.Sub(fi.ModTime())
		tmp := strings.HasPrefix(e.Name(), ".tmp-")
		if age > chunkMaxAge || tmp && age > time.Hour {
			os.Remove(filepath.Join(c.dir, e.Name()))
			continue
		}
		if !tmp {
			keep = append(keep, file{e.Name(), fi.ModTime()})
		}
	}
	if len(keep) <= chunkMaxFiles {
		return
	}
	slices.SortFunc(keep, func(a, b file) int { return b.mod.Compare(a.mod) })
	for _, f := range keep[chunkMaxFiles:] {
		os.Remove(filepath.Join(c.dir, f.name))
	}
}

// The encoding: chunkMagic, chunkFormat (one byte), the proto tree, and the
// CRC-32 (IEEE) of everything before it (4 bytes, little endian). Integers
// are varints, strings and slices are prefixed with their length. Not
// CRC-32C: Go builds its tables for the SSE 4.2 instruction on first use
// (0.4 ms, a quarter of decoding 30 cached chunks); the IEEE polynomial's
// take microseconds.

// Constant kinds.
const (
	constNumber = 'n'
	constString = 's'
)

// encodeChunk encodes a proto tree; ok is false when it holds something
// the encoding does not know (a constant neither a number nor a string).
func encodeChunk(p *glua.FunctionProto) (data []byte, ok bool) {
	b := append([]byte(chunkMagic), chunkFormat)
	b, ok = appendProto(b, p, 0)
	if !ok {
		return nil, false
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b)), true
}

// maxDepth bounds nested functions (the decoder's recursion).
const maxDepth = 200

func appendProto(b []byte, p *glua.FunctionProto, depth int) ([]byte, bool) {
	if p == nil || depth > maxDepth {
		return b, false
	}
	b = appendString(b, p.SourceName)
	b = binary.AppendVarint(b, int64(p.LineDefined))
	b = binary.AppendVarint(b, int64(p.LastLineDefined))
	b = append(b, p.NumUpvalues, p.NumParameters, p.IsVarArg, p.NumUsedRegisters)
	b = binary.AppendUvarint(b, uint64(len(p.Code)))
	for _, c := range p.Code {
		b = binary.LittleEndian.AppendUint32(b, c)
	}
	b = binary.AppendUvarint(b, uint64(len(p.Constants)))
	for _, c := range p.Constants {
		switch v := c.(type) {
		case glua.LNumber:
			b = append(b, constNumber)
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(v)))
		case glua.LString:
			b = append(b, constString)
			b = appendString(b, string(v))
		default:
			return b, false
		}
	}
	b = binary.AppendUvarint(b, uint64(len(p.FunctionPrototypes)))
	for _, f := range p.FunctionPrototypes {
		var ok bool
		if b, ok = appendProto(b, f, depth+1); !ok {
			return b, false
		}
	}
	b = binary.AppendUvarint(b, uint64(len(p.DbgSourcePositions)))
	for _, n := range p.DbgSourcePositions {
		b = binary.AppendVarint(b, int64(n))
	}
	b = binary.AppendUvarint(b, uint64(len(p.DbgLocals)))
	for _, l := range p.DbgLocals {
		if l == nil {
			return b, false
		}
		b = appendString(b, l.Name)
		b = binary.AppendVarint(b, int64(l.StartPc))
		b = binary.AppendVarint(b, int64(l.EndPc))
	}
	b = binary.AppendUvarint(b, uint64(len(p.DbgCalls)))
	for _, c := range p.DbgCalls {
		b = appendString(b, c.Name)
		b = binary.AppendVarint(b, int64(c.Pc))
	}
	b = binary.AppendUvarint(b, uint64(len(p.DbgUpvalues)))
	for _, s := range p.DbgUpvalues {
		b = appendString(b, s)
	}
	return b, true
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

var errBadChunk = errors.New("bad chunk file")

// decodeChunk decodes a file encodeChunk wrote; any difference (another
// format, a truncated or altered file) is an error.
func decodeChunk(data []byte) (*glua.FunctionProto, error) {
	if len(data) < len(chunkMagic)+1+4 || string(data[:len(chunkMagic)]) != chunkMagic || data[len(chunkMagic)] != chunkFormat {
		return nil, errBadChunk
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, errBadChunk
	}
	d := &decoder{b: body[len(chunkMagic)+1:]}
	p := d.proto(0)
	if d.err != nil || len(d.b) != 0 {
		return nil, errBadChunk
	}
	return p, nil
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() { d.err = errBadChunk; d.b = nil }

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int {
	v, n := binary.Varint(d.b)
	if n <= 0 || v != int64(int(v)) {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

// count reads a length whose items take at least size bytes each.
func (d *decoder) count(size int) int {
	n := d.uvarint()
	if n > uint64(len(d.b)/size) {
		d.fail()
		return 0
	}
	return int(n)
}

func (d *decoder) bytes(n int) []byte {
	if n > len(d.b) {
		d.fail()
		return nil
	}
	s := d.b[:n]
	d.b = d.b[n:]
	return s
}

func (d *decoder) string() string { return string(d.bytes(d.count(1))) }

func (d *decoder) proto(depth int) *glua.FunctionProto {
	if depth > maxDepth {
		d.fail()
		return nil
	}
	p := &glua.FunctionProto{SourceName: d.string(), LineDefined: d.int(), LastLineDefined: d.int()}
	if h := d.bytes(4); h != nil {
		p.NumUpvalues, p.NumParameters, p.IsVarArg, p.NumUsedRegisters = h[0], h[1], h[2], h[3]
	}
	p.Code = make([]uint32, d.count(4))
	for i := range p.Code {
		if w := d.bytes(4); w != nil {
			p.Code[i] = binary.LittleEndian.Uint32(w)
		}
	}
	p.Constants = make([]glua.LValue, d.count(2))
	for i := range p.Constants {
		switch k := d.bytes(1); {
		case k == nil:
		case k[0] == constNumber:
			if w := d.bytes(8); w != nil {
				p.Constants[i] = glua.LNumber(math.Float64frombits(binary.LittleEndian.Uint64(w)))
			}
		case k[0] == constString:
			p.Constants[i] = glua.LString(d.string())
		default:
			d.fail()
		}
	}
	p.FunctionPrototypes = make([]*glua.FunctionProto, d.count(1))
	for i := range p.FunctionPrototypes {
		p.FunctionPrototypes[i] = d.proto(depth + 1)
	}
	p.DbgSourcePositions = make([]int, d.count(1))
	for i := range p.DbgSourcePositions {
		p.DbgSourcePositions[i] = d.int()
	}
	p.DbgLocals = make([]*glua.DbgLocalInfo, d.count(3))
	for i := range p.DbgLocals {
		p.DbgLocals[i] = &glua.DbgLocalInfo{Name: d.string(), StartPc: d.int(), EndPc: d.int()}
	}
	p.DbgCalls = make([]glua.DbgCall, d.count(2))
	for i := range p.DbgCalls {
		p.DbgCalls[i] = glua.DbgCall{Name: d.string(), Pc: d.int()}
	}
	p.DbgUpvalues = make([]string, d.count(1))
	for i := range p.DbgUpvalues {
		p.DbgUpvalues[i] = d.string()
	}
	if d.err != nil {
		return nil
	}
	setStringConstants(p)
	return p
}
