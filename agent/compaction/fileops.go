package compaction

// The files a summarised stretch of conversation read and changed, as
// pi's utils.ts tracks them: from read/write/edit tool calls and from the
// details of earlier summaries.

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/lunar-cli/lunar/session"
)

// FileOps collects the paths of read, written and edited files. The zero
// value is ready to use.
type FileOps struct {
	Read, Written, Edited map[string]bool
}

// NewFileOps returns an empty FileOps.
func NewFileOps() FileOps {
	return FileOps{Read: map[string]bool{}, Written: map[string]bool{}, Edited: map[string]bool{}}
}

func (f *FileOps) init() {
	if f.Read == nil {
		f.Read = map[string]bool{}
	}
	if f.Written == nil {
		f.Written = map[string]bool{}
	}
	if f.Edited == nil {
		f.Edited = map[string]bool{}
	}
}

// AddToolCalls records the read, write and edit tool calls of an assistant
// message: those whose arguments have a non-empty string "path". Other
// messages are ignored.
func (f *FileOps) AddToolCalls(m *session.Message) {
	if m.Role != session.RoleAssistant {
		return
	}
	for i := range m.Content {
		b := &m.Content[i]
		if b.Type != session.BlockToolCall {
			continue
		}
		var set *map[string]bool
		switch b.Name {
		case "read":
			set = &f.Read
		case "write":
			set = &f.Written
		case "edit":
			set = &f.Edited
		default:
			continue
		}
		raw, ok := member(b.Arguments, "path")
		if !ok || len(raw) < 3 || raw[0] != '"' {
			continue // missing, not a string, or ""
		}
		f.init()
		if body := raw[1 : len(raw)-1]; bytes.IndexByte(body, '\\') < 0 {
			// The common case, without allocating for paths seen before.
			if !(*set)[string(body)] {
				(*set)[string(body)] = true
			}
		} else if p, ok := stringMember(b.Arguments, "path"); ok && p != "" {
			(*set)[p] = true
		}
	}
}

// AddDetails adds the file lists of an earlier summary's details
// ({readFiles, modifiedFiles}): read files as read, modified ones as
// edited. Anything else in details is ignored.
func (f *FileOps) AddDetails(details json.RawMessage) {
	readFiles, _ := member(details, "readFiles")
	modifiedFiles, _ := member(details, "modifiedFiles")
	f.init()
	addStrings(f.Read, readFiles)
	addStrings(f.Edited, modifiedFiles)
}

// addStrings adds the strings of the JSON array raw to set; anything that
// is not an array, and members that are not strings, are skipped.
func addStrings(set map[string]bool, raw json.RawMessage) {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return
	}
	for _, item := range list {
		var p string
		if json.Unmarshal(item, &p) == nil {
			set[p] = true
		}
	}
}

// Lists returns the files only read and the files written or edited, each
// sorted as JavaScript sorts strings (by UTF-16 code units); both are
// non-nil.
func (f FileOps) Lists() (read, modified []string) {
	read, modified = []string{}, []string{}
	for p := range f.Edited {
		modified = append(modified, p)
	}
	for p := range f.Written {
		if !f.Edited[p] {
			modified = append(modified, p)
		}
	}
	for p := range f.Read {
		if !f.Edited[p] && !f.Written[p] {
			read = append(read, p)
		}
	}
	slices.SortFunc(read, compareUTF16)
	slices.SortFunc(modified, compareUTF16)
	return read, modified
}

// FormatFileOps renders file lists as they are appended to a summary:
// "\n\n<read-files>\n…\n</read-files>" and the same for
// <modified-files>, empty lists left out; "" when both are empty.
func FormatFileOps(read, modified []string) string {
	var sections []string
	if len(read) > 0 {
		sections = append(sections, "<read-files>\n"+strings.Join(read, "\n")+"\n</read-files>")
	}
	if len(modified) > 0 {
		sections = append(sections, "<modified-files>\n"+strings.Join(modified, "\n")+"\n</modified-files>")
	}
	if len(sections) == 0 {
		return ""
	}
	return "\n\n" + strings.Join(sections, "\n\n")
}

// fileDetails is the details object of a summary: {readFiles,
// modifiedFiles}, HTML characters left unescaped.
func fileDetails(read, modified []string) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct {
		ReadFiles     []string `json:"readFiles"`
		ModifiedFiles []string `json:"modifiedFiles"`
	}{read, modified})
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// compareUTF16 orders strings by UTF-16 code units, as JavaScript's
// default sort does; it differs from Go's byte order only between
// characters above U+FFFF and those in U+E000–U+FFFF.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			ua, ub := firstUnit(ra), firstUnit(rb)
			if ua != ub {
				return int(ua) - int(ub)
			}
			return int(ra) - int(rb)
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) - len(b)
}

// firstUnit is the first UTF-16 code unit of r.
func firstUnit(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}

// stringMember returns the value of the string member key of the JSON
// object raw, as JavaScript's JSON.parse(raw)[key] would see it; ok is
// false when the member is missing or not a string.
func stringMember(raw []byte, key string) (val string, ok bool) {
	v, ok := member(raw, key)
	if !ok || len(v) == 0 || v[0] != '"' {
		return "", false
	}
	s := scan{b: v}
	return s.str()
}

// member returns the raw value of the member key of the JSON object raw
// as JavaScript sees it: exact, case-sensitive names, the last of
// duplicate members winning. ok is false when raw is not an object or has
// no such member. It scans the object without decoding the other members,
// which matters for write calls carrying whole files.
func member(raw []byte, key string) (val []byte, ok bool) {
	s := scan{b: raw}
	s.ws()
	if !s.eat('{') {
		return nil, false
	}
	s.ws()
	if s.eat('}') {
		return nil, false
	}
	for {
		s.ws()
		match, good := s.key(key)
		if !good {
			return nil, false
		}
		s.ws()
		if !s.eat(':') {
			return nil, false
		}
		s.ws()
		start := s.i
		if !s.skip() {
			return nil, false
		}
		if match {
			val, ok = raw[start:s.i], true
		}
		s.ws()
		if s.eat('}') {
			return val, ok
		}
		if !s.eat(',') {
			return nil, false
		}
	}
}

// scan is a minimal cursor over JSON text.
type scan struct {
	b []byte
	i int
}

func (s *scan) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scan) eat(c byte) bool {
	if s.peek() == c && s.i < len(s.b) {
		s.i++
		return true
	}
	return false
}

func (s *scan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// str reads a JSON string, decoding it only when it has escapes.
func (s *scan) str() (string, bool) {
	start := s.i
	if !s.eat('"') {
		return "", false
	}
	escaped := false
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\\':
			escaped = true
			s.i += 2
			continue
		case '"':
			s.i++
			if !escaped {
				return string(s.b[start+1 : s.i-1]), true
			}
			var v string
			if json.Unmarshal(s.b[start:s.i], &v) != nil {
				return "", false
			}
			return v, true
		}
		s.i++
	}
	return "", false
}

// key reads a member name and reports whether it is name, without
// allocating unless the name has escapes.
func (s *scan) key(name string) (match, ok bool) {
	start := s.i
	end, ok := s.skipStr()
	if !ok || s.b[start] != '"' {
		return false, false
	}
	body := s.b[start+1 : end-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body) == name, true
	}
	var k string
	if json.Unmarshal(s.b[start:end], &k) != nil {
		return false, false
	}
	return k == name, true
}

// skip moves over one JSON value.
func (s *scan) skip() bool {
	switch s.peek() {
	case '"':
		_, ok := s.skipStr()
		return ok
	case '{', '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				if _, ok := s.skipStr(); !ok {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return true
				}
			}
			s.i++
		}
		return false
	default:
		start := s.i
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return s.i > start
			}
			s.i++
		}
		return false
	}
}

// skipStr moves over a JSON string without decoding it.
func (s *scan) skipStr() (int, bool) {
	s.i++ // the opening quote
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\\':
			s.i += 2
			continue
		case '"':
			s.i++
			return s.i, true
		}
		s.i++
	}
	return s.i, false
}
