package compaction

// The plain-text form of a conversation inside a summarisation prompt
// (pi's serializeConversation).

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lunar-cli/lunar/session"
)

// toolResultMaxChars is how much of a tool result a summary prompt shows,
// in UTF-16 code units as pi counts.
const toolResultMaxChars = 2000

// SerializeConversation renders messages already converted for a model
// (session.ConvertToLLM) as plain text, so a summarising model does not
// take them for a conversation to continue. Parts are joined by blank
// lines: "[User]: text", "[Assistant thinking]: …", "[Assistant]: …",
// "[Assistant tool calls]: name(key=<JSON value>, …); …" and
// "[Tool result]: text", a result cut after 2000 characters with a note
// of how many more there were. Empty parts are left out.
func SerializeConversation(msgs []session.Message) string {
	var b strings.Builder
	add := func(prefix string, parts ...string) {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(prefix)
		for _, p := range parts {
			b.WriteString(p)
		}
	}
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case session.RoleUser:
			if t := m.Text(); t != "" {
				add("[User]: ", t)
			}
		case session.RoleAssistant:
			var text, thinking, calls []string
			for j := range m.Content {
				c := &m.Content[j]
				switch c.Type {
				case session.BlockText:
					text = append(text, c.Text)
				case session.BlockThinking:
					thinking = append(thinking, c.Thinking)
				case session.BlockToolCall:
					calls = append(calls, c.Name+"("+argList(c.Arguments)+")")
				}
			}
			if len(thinking) > 0 {
				add("[Assistant thinking]: ", strings.Join(thinking, "\n"))
			}
			if len(text) > 0 {
				add("[Assistant]: ", strings.Join(text, "\n"))
			}
			if len(calls) > 0 {
				add("[Assistant tool calls]: ", strings.Join(calls, "; "))
			}
		case session.RoleToolResult:
			if t := m.Text(); t != "" {
				head, more := cutUTF16(t, toolResultMaxChars)
				if more > 0 {
					add("[Tool result]: ", head, "\n\n[... ", strconv.Itoa(more), " more characters truncated]")
				} else {
					add("[Tool result]: ", t)
				}
			}
		}
	}
	return b.String()
}

// blockPrefix is how a toolCall block with no id and name starts when
// marshalled; its arguments follow.
var blockPrefix = []byte(`{"type":"toolCall","id":"","name":"","arguments":`)

// argList renders tool arguments as pi does: the object's members in
// JavaScript property order (integer-like names first), each as
// name=JSON.stringify(value), joined by ", ". Arguments that are not an
// object are shown as they are.
func argList(raw json.RawMessage) string {
	// Marshalling the block normalises its arguments exactly as
	// JSON.stringify(JSON.parse(raw)) would: member order, duplicate
	// members, number and string forms. The members of the normalised
	// object are then compact JavaScript JSON already.
	norm := raw
	// (MarshalJSON directly: json.Marshal would escape <, > and & again.)
	if out, err := (session.ContentBlock{Type: session.BlockToolCall, Arguments: raw}).MarshalJSON(); err == nil {
		if bytes.HasPrefix(out, blockPrefix) && bytes.HasSuffix(out, []byte("}")) {
			norm = out[len(blockPrefix) : len(out)-1]
		} else {
			var v struct {
				Arguments json.RawMessage `json:"arguments"`
			}
			if json.Unmarshal(out, &v) == nil && len(v.Arguments) > 0 {
				norm = v.Arguments
			}
		}
	}
	s := scan{b: norm}
	s.ws()
	if !s.eat('{') {
		return string(raw)
	}
	var b strings.Builder
	for {
		s.ws()
		if s.eat('}') {
			return b.String()
		}
		k, ok := s.str()
		if !ok {
			return string(raw)
		}
		s.ws()
		if !s.eat(':') {
			return string(raw)
		}
		s.ws()
		start := s.i
		if !s.skip() {
			return string(raw)
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.Write(norm[start:s.i])
		s.ws()
		s.eat(',')
	}
}

// cutUTF16 returns the first n UTF-16 code units of s and how many units
// follow them (0 when s is no longer than n). When the cut splits a
// surrogate pair, the head ends with U+FFFD where JavaScript keeps the
// lone high surrogate (which becomes U+FFFD once encoded as UTF-8).
func cutUTF16(s string, n int) (head string, more int) {
	units, cut, split := 0, -1, false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if cut < 0 && units+w > n {
			cut, split = i, w == 2 && units == n-1
		}
		units += w
		i += size
	}
	if units <= n {
		return s, 0
	}
	if split {
		return s[:cut] + "\uFFFD", units - n
	}
	return s[:cut], units - n
}
