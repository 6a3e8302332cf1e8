package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The expectations below were written down from pi's own migration and
// buildSessionContext run under Node.js on the fixtures (the migration
// with testdata/gen/migrate.js, which draws ids 00000001, 00000002, ...
// like seqIDs; the context with pi's buildSessionContext over the
// migrated file).
type migrationCase struct {
	file       string
	sha256     string // of the migrated file
	size       int    // bytes
	header     string
	entries    int
	roles      map[string]int // message entries by role
	types      map[string]int // other entries by type
	compaction [][2]string    // id, firstKeptEntryId (both are user messages)

	ctxLen      int
	ctxRoles    map[string]int
	ctxFirst    []string // entry ids of the first context messages ("" = summary)
	ctxLast     string
	thinking    string
	model       string
	tokensAfter int // tokensBefore of the active compaction, 0 if none
}

var migrationCases = []migrationCase{
	{
		file:    "pi-v1/before-compaction.jsonl",
		sha256:  "cf8ebc3f6046b5165f7909c21ef93d5205c9b85ee8a170368063225e624eddd6",
		size:    2408582,
		header:  `{"type":"session","id":"ffae836b-9420-4060-ac13-7745215f90ff","timestamp":"2025-12-09T00:53:29.825Z","cwd":"/Users/badlogic/workspaces/pi-mono","provider":"anthropic","modelId":"claude-opus-4-5","thinkingLevel":"off","branchedFrom":"/Users/badlogic/.pi/agent/sessions/--Users-badlogic-workspaces-pi-mono--/2025-12-09T00-52-54-397Z_d97339c6-6c10-4827-846b-9ff1d9c3dc37.jsonl","version":3}`,
		entries: 1002,
		roles:   map[string]int{RoleUser: 55, RoleAssistant: 484, RoleToolResult: 448, RoleBashExecution: 3},
		types:   map[string]int{TypeThinkingLevelChange: 5, TypeCompaction: 2, TypeModelChange: 5},
		// firstKeptEntryIndex 293 and 551 (lines of the v1 file, header
		// included) become the ids of those entries.
		compaction:  [][2]string{{"00000167", "00000125"}, {"00000274", "00000227"}},
		ctxLen:      446,
		ctxRoles:    map[string]int{RoleCompactionSummary: 1, RoleUser: 31, RoleAssistant: 219, RoleToolResult: 192, RoleBashExecution: 3},
		ctxFirst:    []string{"", "00000227", "00000228", "00000229"},
		ctxLast:     "000003e9",
		thinking:    "off",
		model:       "anthropic/claude-opus-4-5",
		tokensAfter: 185014,
	},
	{
		file:     "pi-v1/large-session.jsonl",
		sha256:   "d2012468fd5b23db4563358d398fa9ef3c11143eb427ef4bd9d8823baff47c45",
		size:     1012721,
		header:   `{"type":"session","id":"d703a1a9-1b7b-4fb1-b512-c9738b1fe617","timestamp":"2025-11-20T23:33:50.805Z","cwd":"/Users/badlogic/workspaces/pi-mono","provider":"anthropic","modelId":"claude-sonnet-4-5","thinkingLevel":"off","version":3}`,
		entries:  1018,
		roles:    map[string]int{RoleUser: 88, RoleAssistant: 453, RoleToolResult: 373},
		types:    map[string]int{TypeModelChange: 1, TypeThinkingLevelChange: 103},
		ctxLen:   914,
		ctxRoles: map[string]int{RoleUser: 88, RoleAssistant: 453, RoleToolResult: 373},
		ctxFirst: []string{"00000001", "00000002", "00000004", "00000005"},
		ctxLast:  "000003fa",
		thinking: "off",
		model:    "anthropic/claude-sonnet-4-5",
	},
}

func TestMigrateFixtures(t *testing.T) {
	for _, c := range migrationCases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			seqIDs(t)
			orig, err := os.ReadFile(filepath.Join("testdata", c.file))
			require.NoError(t, err)
			path := copyFixture(t, c.file)
			dir := filepath.Dir(path)

			s, err := Open(path)
			require.NoError(t, err)
			backup := path + ".v1.bak"
			assert.Contains(t, s.Warnings(), path+": migrated from session format version 1 to 3")
			assert.Contains(t, s.Warnings(), path+": the original is kept as "+backup)

			// The original is kept beside the file, byte for byte.
			kept, err := os.ReadFile(backup)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(orig, kept), "backup equals the original")

			// The rewrite is pi's, byte for byte.
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			sum := sha256.Sum256(data)
			assert.Equal(t, c.sha256, hex.EncodeToString(sum[:]))
			assert.Equal(t, c.size, len(data))
			assert.Equal(t, c.header, string(data[:bytes.IndexByte(data, '\n')]))
			fi, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm(), "the rewrite keeps the file mode")
			// Atomic: nothing but the file, its backup and its lock.
			names := dirNames(t, dir)
			assert.Equal(t, []string{filepath.Base(path), filepath.Base(path) + ".lock", filepath.Base(backup)}, names)

			// Entries: count, linear chain in file order, types.
			entries := s.Entries()
			require.Len(t, entries, c.entries)
			origLines := strings.Split(strings.TrimSpace(string(orig)), "\n")
			roles, types := map[string]int{}, map[string]int{}
			var comps [][2]string
			for i, e := range entries {
				if i == 0 {
					assert.Equal(t, "", e.ParentID)
				} else {
					require.Equal(t, entries[i-1].ID, e.ParentID, "entry %d", i)
				}
				// File order is kept: entry i is line i+1 of the original.
				v, err := parseJS([]byte(origLines[i+1]))
				require.NoError(t, err)
				ts, _ := v.obj.get("timestamp")
				require.Equal(t, ts.str, e.Timestamp, "entry %d", i)
				if e.Type == TypeMessage {
					roles[e.Message.Role]++
				} else {
					types[e.Type]++
				}
				if e.Type == TypeCompaction {
					comps = append(comps, [2]string{e.ID, e.FirstKeptEntryID()})
					kept := s.Get(e.FirstKeptEntryID())
					require.NotNil(t, kept)
					assert.Equal(t, RoleUser, kept.Message.Role)
				}
			}
			assert.Equal(t, c.roles, roles)
			assert.Equal(t, c.types, types)
			assert.Equal(t, c.compaction, comps)

			// Context over the last entry.
			ctx := s.BuildContext()
			require.Len(t, ctx.Messages, c.ctxLen)
			ctxRoles := map[string]int{}
			for _, m := range ctx.Messages {
				ctxRoles[m.Message.Role]++
			}
			assert.Equal(t, c.ctxRoles, ctxRoles)
			for i, id := range c.ctxFirst {
				assert.Equal(t, id, ctx.Messages[i].EntryID, "context message %d", i)
			}
			assert.Equal(t, c.ctxLast, ctx.Messages[len(ctx.Messages)-1].EntryID)
			assert.Equal(t, c.thinking, ctx.ThinkingLevel)
			assert.Equal(t, c.model, ctx.Provider+"/"+ctx.ModelID)
			if c.tokensAfter > 0 {
				assert.Equal(t, c.tokensAfter, ctx.Messages[0].Message.TokensBefore())
			}

			// The migrated session resumes: append, reopen, no second
			// migration, earlier bytes untouched.
			id := mustAppend(t, s, userMsg("resumed"))
			require.NoError(t, s.Close())
			s2, err := Open(path)
			require.NoError(t, err)
			defer s2.Close()
			assert.Empty(t, s2.Warnings())
			assert.Equal(t, id, s2.LeafID())
			assert.Len(t, s2.Entries(), c.entries+1)
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.True(t, bytes.HasPrefix(after, data))
			_, err = os.Stat(backup + ".2")
			assert.ErrorIs(t, err, os.ErrNotExist)
		})
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	sort.Strings(names)
	return names
}

func TestMigrateEdgeCasesAsPi(t *testing.T) {
	seqIDs(t)
	// Expected output from testdata/gen/migrate.js on the same input:
	// new keys land at the end of each object, firstKeptEntryIndex is
	// deleted, an index on the header or past the compaction (whose
	// target has no id yet) or out of range gives no firstKeptEntryId,
	// hookMessage becomes custom.
	path := writeLines(t,
		`{"type":"session","id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}`,
		`{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"a","timestamp":1}}`,
		`{"type":"compaction","timestamp":"2025-01-01T00:00:02.000Z","summary":"s","firstKeptEntryIndex":1,"tokensBefore":5}`,
		`{"type":"compaction","timestamp":"2025-01-01T00:00:03.000Z","summary":"h","firstKeptEntryIndex":0,"tokensBefore":5}`,
		`{"type":"compaction","timestamp":"2025-01-01T00:00:04.000Z","summary":"f","firstKeptEntryIndex":5,"tokensBefore":5}`,
		`{"type":"compaction","timestamp":"2025-01-01T00:00:05.000Z","summary":"o","firstKeptEntryIndex":99,"tokensBefore":5}`,
		`{"type":"message","timestamp":"2025-01-01T00:00:06.000Z","message":{"role":"hookMessage","customType":"k","content":"x","display":true,"timestamp":6}}`,
	)
	s, err := Open(path)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	want := []string{
		`{"type":"session","id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w","version":3}`,
		`{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"a","timestamp":1},"id":"00000001","parentId":null}`,
		`{"type":"compaction","timestamp":"2025-01-01T00:00:02.000Z","summary":"s","tokensBefore":5,"id":"00000002","parentId":"00000001","firstKeptEntryId":"00000001"}`,
		`{"type":"compaction","timestamp":"2025-01-01T00:00:03.000Z","summary":"h","tokensBefore":5,"id":"00000003","parentId":"00000002"}`,
		`{"type":"compaction","timestamp":"2025-01-01T00:00:04.000Z","summary":"f","tokensBefore":5,"id":"00000004","parentId":"00000003"}`,
		`{"type":"compaction","timestamp":"2025-01-01T00:00:05.000Z","summary":"o","tokensBefore":5,"id":"00000005","parentId":"00000004"}`,
		`{"type":"message","timestamp":"2025-01-01T00:00:06.000Z","message":{"role":"custom","customType":"k","content":"x","display":true,"timestamp":6},"id":"00000006","parentId":"00000005"}`,
	}
	assert.Equal(t, want, fileLines(t, path))
	l, err := Load(path)
	require.NoError(t, err)
	assert.Equal(t, []string{"compactionSummary:o", "custom:x"}, texts(l.BuildContext().Messages))
}

func TestMigrateV2(t *testing.T) {
	lines := []string{
		`{"type":"session","version":2,"id":"s2","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}`,
		`{"type":"message","id":"a0000001","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"hookMessage","customType":"k","content":[{"type":"text","text":"x"}],"display":false,"timestamp":1}}`,
		userLine("a0000002", "a0000001", "2025-01-01T00:00:02.000Z", "hi"),
	}
	path := writeLines(t, lines...)
	s, err := Open(path)
	require.NoError(t, err)
	assert.Equal(t, RoleCustom, s.Get("a0000001").Message.Role)
	require.NoError(t, s.Close())
	assert.Equal(t, []string{
		`{"type":"session","version":3,"id":"s2","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}`,
		strings.Replace(lines[1], "hookMessage", "custom", 1),
		lines[2],
	}, fileLines(t, path), "the version stays in place; unchanged lines stay byte for byte")
	assert.Equal(t, lines, fileLines(t, path+".v2.bak"))
}

func TestLoadMigratesInMemoryOnly(t *testing.T) {
	path := copyFixture(t, "pi-v1/large-session.jsonl")
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	s, err := Load(path)
	require.NoError(t, err)
	assert.Len(t, s.Entries(), 1018)
	assert.Contains(t, s.Warnings(), path+": migrated from session format version 1 to 3")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(before, after))
	assert.Equal(t, []string{filepath.Base(path)}, dirNames(t, filepath.Dir(path)))
}

func TestBackupNamesDoNotCollide(t *testing.T) {
	path := writeLines(t, `{"type":"session","id":"s","timestamp":"t","cwd":"/"}`)
	require.NoError(t, os.WriteFile(path+".v1.bak", []byte("older backup"), 0o644))
	s, err := Open(path)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	old, err := os.ReadFile(path + ".v1.bak")
	require.NoError(t, err)
	assert.Equal(t, "older backup", string(old), "an existing backup is never overwritten")
	b2, err := os.ReadFile(path + ".v1.bak.2")
	require.NoError(t, err)
	assert.Equal(t, `{"type":"session","id":"s","timestamp":"t","cwd":"/"}`+"\n", string(b2))
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.jsonl")
	require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o640))
	require.NoError(t, writeAtomic(path, []byte("new\n")))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "new\n", string(data))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm())
	assert.Equal(t, []string{"f.jsonl"}, dirNames(t, dir), "no temporary file is left")

	// A failed rename leaves the target as it was and no temporary file.
	target := filepath.Join(dir, "target")
	require.NoError(t, os.MkdirAll(filepath.Join(target, "sub"), 0o755))
	err = writeAtomic(target, []byte("x"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "rewrite "+target)
	assert.Equal(t, []string{"f.jsonl", "target"}, dirNames(t, dir))
}

// A hand-edited header with version 0 is migrated (and rewritten) like a
// v1 file; it used to be migrated in memory only, so every later load
// migrated again and re-chained the entries appended meanwhile.
func TestMigrateVersionZero(t *testing.T) {
	seqIDs(t)
	path := writeLines(t,
		`{"type":"session","version":0,"id":"s0","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}`,
		`{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"a","timestamp":1}}`,
	)
	s, err := Open(path)
	require.NoError(t, err)
	assert.Contains(t, s.Warnings(), path+": migrated from session format version 0 to 3")
	require.NoError(t, s.Branch(""))
	id := mustAppend(t, s, userMsg("new root"))
	require.NoError(t, s.Close())
	assert.FileExists(t, path+".v0.bak")

	l, err := Load(path)
	require.NoError(t, err)
	assert.Empty(t, l.Warnings())
	assert.Equal(t, []string{"00000001", id}, entryIDs(l.Entries()))
	assert.Equal(t, "", l.Get(id).ParentID, "the appended entry keeps its place in the tree")
}
