package session

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary bytes to the loader (run it with
// go test -fuzz=FuzzLoad ./session/). Loading must not panic, every
// loaded entry must keep its exact line, the tree and context operations
// must work on whatever was loaded, and an entry appended after it must be
// seen by the next load.
func FuzzLoad(f *testing.F) {
	v3, err := os.ReadFile("testdata/pi-v3.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(v3)
	f.Add(v3[:len(v3)-37])
	f.Add([]byte(testHeader + "\n" + forkSource[1] + "\n" + forkSource[3] + "\n"))
	for _, name := range []string{"testdata/pi-v1/before-compaction.jsonl", "testdata/pi-v1/large-session.jsonl"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		// The first lines only: the compaction of before-compaction.jsonl
		// sits at line 360, too far for a seed.
		n := 0
		for i := 0; i < 6; i++ {
			n += bytes.IndexByte(data[n:], '\n') + 1
		}
		f.Add(data[:n])
	}
	f.Add([]byte(`{"type":"session","id":"s","timestamp":"t","cwd":"/"}` + "\n" +
		`{"type":"message","timestamp":"x","message":{"role":"hookMessage","content":"a"}}` + "\n" +
		`{"type":"compaction","summary":"s","firstKeptEntryIndex":1,"tokensBefore":5}` + "\n"))
	f.Add([]byte(`{"type":"session","version":2,"id":"s","timestamp":"t","cwd":"/"}` + "\n" +
		`{"type":"label","id":"a","parentId":"a","timestamp":"2025-01-01T00:00:00Z","targetId":"a","label":"\ud800"}`))
	f.Add([]byte("\n\n{\"type\":\"session\",\"version\":3,\"id\":\"\\u0041\"}\r\n[1]\n{\"id\":\"b\",\"parentId\":\"b\",\"type\":\"branch_summary\",\"summary\":\"\\\"\\/\\u2028\"}"))

	long := strings.Repeat(`x\n\t\"q\" \u0001`, 5)
	f.Add([]byte(testHeader + "\n" +
		`{"type":"message","id":"b0000001","parentId":null,"timestamp":"t","message":{"role":"user","content":"` + long + `","timestamp":1}}` + "\n" +
		`{"type":"message","id":"b0000002","parentId":"b0000001","timestamp":"t","message":{"role":"user","content":"` + long + `\/\u0041","timestamp":1}}` + "\n"))

	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		p, err := parseData("fuzz.jsonl", data)
		if err != nil {
			if !errors.Is(err, ErrNoHeader) {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		// Entries keep their exact line: of the input, or of the
		// migrated file.
		src := orig
		if p.migrated != nil {
			src = p.migrated
		}
		lines := map[string]bool{}
		for _, l := range bytes.Split(src, []byte("\n")) {
			lines[string(l)] = true
		}
		for i, e := range p.entries {
			raw := e.line()
			if !lines[string(raw)] {
				t.Fatalf("entry %d: line %q is not in the file", i, raw)
			}
			if mj, err := e.MarshalJSON(); err != nil || !bytes.Equal(mj, raw) {
				t.Fatalf("entry %d: MarshalJSON %q, %v; want %q", i, mj, err, raw)
			}
		}
		if !lines[string(p.header.Raw)] {
			t.Fatalf("header line %q not kept", p.header.Raw)
		}

		s := fromParsed(p)
		for i, e := range s.entries {
			if s.parent[i] != s.parentOf(e) {
				t.Fatalf("entry %d: parent %d, the index says %d", i, s.parent[i], s.parentOf(e))
			}
		}
		s.Tree()
		ctx := s.BuildContext()
		msgs := make([]Message, 0, len(ctx.Messages))
		for _, m := range ctx.Messages {
			msgs = append(msgs, m.Message)
			EstimateTokens(&m.Message)
		}
		ConvertToLLM(msgs)
		s.Name()
		for _, e := range p.entries {
			s.Path(e.ID)
			s.Label(e.ID)
		}
		if len(p.entries) > 0 {
			if _, err := s.Fork("", ""); err != nil {
				t.Fatalf("fork: %v", err)
			}
		}
		if p.migrated != nil {
			return
		}

		// Append as Open would, then load the bytes the file would hold.
		id, err := s.AppendMessage(userMsg("appended"))
		if err != nil {
			t.Fatalf("append: %v", err)
		}
		out := bytes.Clone(orig)
		if p.needNewline {
			out = append(out, '\n')
		}
		out = append(out, s.Get(id).Raw...)
		out = append(out, '\n')
		p2, err := parseData("fuzz.jsonl", out)
		if err != nil {
			t.Fatalf("reload: %v", err)
		}
		if len(p2.entries) != len(p.entries)+1 || p2.entries[len(p2.entries)-1].ID != id {
			t.Fatalf("reload: %d entries (want %d), last %q (want %q)", len(p2.entries), len(p.entries)+1,
				p2.entries[len(p2.entries)-1].ID, id)
		}
	})
}
