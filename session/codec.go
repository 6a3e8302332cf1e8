package session

// Encoding and decoding of entries, messages and content blocks in pi's
// exact byte form: keys in the order pi's objects have them, absent
// optionals omitted, JSON.stringify's escaping and number formats.

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// MarshalJSON encodes the block as pi writes it. Note that encoding/json
// re-escapes U+2028/U+2029 in a Marshaler's output: call MarshalJSON
// directly where bytes must match pi's.
func (b ContentBlock) MarshalJSON() ([]byte, error) {
	return appendBlock(nil, &b)
}

// UnmarshalJSON decodes a content block.
func (b *ContentBlock) UnmarshalJSON(data []byte) error {
	d := decoder{scanner: scanner{data: data}}
	*b = ContentBlock{}
	if err := d.block(b); err != nil {
		return fmt.Errorf("content block: %w", err)
	}
	return d.end()
}

// MarshalJSON encodes the message as pi writes it (key order per role).
func (m Message) MarshalJSON() ([]byte, error) {
	return appendMessage(nil, &m)
}

// UnmarshalJSON decodes a message. Unknown keys are ignored; a known key
// holding the wrong type is an error.
func (m *Message) UnmarshalJSON(data []byte) error {
	d := decoder{scanner: scanner{data: data}}
	*m = Message{}
	if err := d.message(m); err != nil {
		return fmt.Errorf("message: %w", err)
	}
	return d.end()
}

// MarshalJSON returns the line an entry was loaded from (a loaded entry is
// never re-encoded), else encodes the entry as pi writes it. Clear Raw
// after changing fields of a decoded entry.
func (e Entry) MarshalJSON() ([]byte, error) {
	if e.Raw != nil {
		return append([]byte(nil), e.Raw...), nil
	}
	if e.inPlace != nil {
		return e.inPlace.rebuild(), nil
	}
	return appendEntry(nil, &e)
}

// UnmarshalJSON decodes an entry of any type and keeps the input in Raw
// (so that entries of unknown types survive a round trip).
func (e *Entry) UnmarshalJSON(data []byte) error {
	d := decoder{scanner: scanner{data: data}}
	*e = Entry{}
	if _, err := d.entry(e); err != nil {
		return fmt.Errorf("entry: %w", err)
	}
	if err := d.end(); err != nil {
		return err
	}
	e.Raw = bytes.Clone(bytes.TrimSpace(data))
	return nil
}

// MarshalJSON returns Raw when set, else the header as pi writes it.
func (h Header) MarshalJSON() ([]byte, error) {
	if h.Raw != nil {
		return append([]byte(nil), h.Raw...), nil
	}
	return appendHeader(nil, &h), nil
}

// UnmarshalJSON decodes a header line and keeps it in Raw.
func (h *Header) UnmarshalJSON(data []byte) error {
	d := decoder{scanner: scanner{data: data}}
	*h = Header{}
	if _, err := d.header(h); err != nil {
		return fmt.Errorf("header: %w", err)
	}
	if err := d.end(); err != nil {
		return err
	}
	h.Raw = bytes.Clone(bytes.TrimSpace(data))
	return nil
}

// ---- encoding ----

func appendHeader(b []byte, h *Header) []byte {
	b = append(b, `{"type":"session","version":`...)
	b = appendJSNumber(b, float64(h.Version))
	b = append(b, `,"id":`...)
	b = appendJSString(b, h.ID)
	b = append(b, `,"timestamp":`...)
	b = appendJSString(b, h.Timestamp)
	b = append(b, `,"cwd":`...)
	b = appendJSString(b, h.Cwd)
	if h.ParentSession != "" {
		b = append(b, `,"parentSession":`...)
		b = appendJSString(b, h.ParentSession)
	}
	return append(b, '}')
}

// appendBase writes `{"type":…,"id":…,"parentId":…,"timestamp":…`.
func appendBase(b []byte, e *Entry) []byte {
	b = append(b, `{"type":`...)
	b = appendJSString(b, e.Type)
	return appendIDs(append(b, ','), e)
}

// appendIDs writes `"id":…,"parentId":…,"timestamp":…`.
func appendIDs(b []byte, e *Entry) []byte {
	b = append(b, `"id":`...)
	b = appendJSString(b, e.ID)
	b = append(b, `,"parentId":`...)
	if e.ParentID == "" {
		b = append(b, "null"...)
	} else {
		b = appendJSString(b, e.ParentID)
	}
	b = append(b, `,"timestamp":`...)
	return appendJSString(b, e.Timestamp)
}

// appendRaw writes an embedded JSON value normalised as JSON.stringify
// would write it.
func appendRaw(b []byte, name string, raw json.RawMessage) ([]byte, error) {
	out, err := appendNormalized(b, raw)
	if err != nil {
		return b, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

func appendInt(b []byte, n int64) []byte { return appendJSNumber(b, float64(n)) }

// appendEntry encodes e from its fields (Raw is ignored).
func appendEntry(b []byte, e *Entry) ([]byte, error) {
	var err error
	switch e.Type {
	case TypeMessage:
		if e.Message == nil {
			return b, fmt.Errorf("message entry without a message")
		}
		b = appendBase(b, e)
		b = append(b, `,"message":`...)
		if b, err = appendMessage(b, e.Message); err != nil {
			return b, err
		}
	case TypeModelChange:
		b = appendBase(b, e)
		b = append(b, `,"provider":`...)
		b = appendJSString(b, e.Provider())
		b = append(b, `,"modelId":`...)
		b = appendJSString(b, e.ModelID())
	case TypeThinkingLevelChange:
		b = appendBase(b, e)
		b = append(b, `,"thinkingLevel":`...)
		b = appendJSString(b, e.ThinkingLevel())
	case TypeCompaction:
		b = appendBase(b, e)
		b = append(b, `,"summary":`...)
		b = appendJSString(b, e.Summary())
		b = append(b, `,"firstKeptEntryId":`...)
		b = appendJSString(b, e.FirstKeptEntryID())
		b = append(b, `,"tokensBefore":`...)
		b = appendInt(b, int64(e.TokensBefore()))
		if e.Details() != nil {
			b = append(b, `,"details":`...)
			if b, err = appendRaw(b, "details", e.Details()); err != nil {
				return b, err
			}
		}
		b = append(b, `,"fromHook":`...)
		b = appendBool(b, e.FromHook())
	case TypeBranchSummary:
		b = appendBase(b, e)
		b = append(b, `,"fromId":`...)
		b = appendJSString(b, e.FromID())
		b = append(b, `,"summary":`...)
		b = appendJSString(b, e.Summary())
		if e.Details() != nil {
			b = append(b, `,"details":`...)
			if b, err = appendRaw(b, "details", e.Details()); err != nil {
				return b, err
			}
		}
		b = append(b, `,"fromHook":`...)
		b = appendBool(b, e.FromHook())
	case TypeCustom:
		b = append(b, `{"type":"custom","customType":`...)
		b = appendJSString(b, e.CustomType())
		if e.Data() != nil {
			b = append(b, `,"data":`...)
			if b, err = appendRaw(b, "data", e.Data()); err != nil {
				return b, err
			}
		}
		b = appendIDs(append(b, ','), e)
	case TypeCustomMessage:
		b = append(b, `{"type":"custom_message","customType":`...)
		b = appendJSString(b, e.CustomType())
		b = append(b, `,"content":`...)
		if b, err = appendContent(b, e.Content(), e.ContentIsString()); err != nil {
			return b, err
		}
		b = append(b, `,"display":`...)
		b = appendBool(b, e.Display())
		if e.Details() != nil {
			b = append(b, `,"details":`...)
			if b, err = appendRaw(b, "details", e.Details()); err != nil {
				return b, err
			}
		}
		b = appendIDs(append(b, ','), e)
	case TypeLabel:
		b = appendBase(b, e)
		b = append(b, `,"targetId":`...)
		b = appendJSString(b, e.TargetID())
		if e.Label() != "" {
			b = append(b, `,"label":`...)
			b = appendJSString(b, e.Label())
		}
	case TypeSessionInfo:
		b = appendBase(b, e)
		b = append(b, `,"name":`...)
		b = appendJSString(b, e.Name())
	default:
		return b, fmt.Errorf("cannot encode an entry of unknown type %q without its raw line", e.Type)
	}
	return append(b, '}'), nil
}

// appendMessage encodes m with pi's key order for its role. Roles pi does
// not know get role, content (if any) and timestamp.
func appendMessage(b []byte, m *Message) ([]byte, error) {
	var err error
	b = append(b, `{"role":`...)
	b = appendJSString(b, m.Role)
	content := func() {
		b = append(b, `,"content":`...)
		b, err = appendContent(b, m.Content, m.ContentIsString)
	}
	details := func() {
		if m.Details != nil && err == nil {
			b = append(b, `,"details":`...)
			b, err = appendRaw(b, "details", m.Details)
		}
	}
	timestamp := func() {
		b = append(b, `,"timestamp":`...)
		b = appendInt(b, m.Timestamp)
	}
	str := func(key, v string) {
		b = append(b, key...)
		b = appendJSString(b, v)
	}
	optStr := func(key, v string) {
		if v != "" {
			str(key, v)
		}
	}
	switch m.Role {
	case RoleUser:
		content()
		timestamp()
	case RoleAssistant:
		content()
		str(`,"api":`, m.API)
		str(`,"provider":`, m.Provider)
		str(`,"model":`, m.Model)
		if m.Usage != nil {
			b = append(b, `,"usage":`...)
			b = appendUsage(b, m.Usage)
		}
		str(`,"stopReason":`, m.StopReason)
		timestamp()
		optStr(`,"responseModel":`, m.ResponseModel())
		optStr(`,"responseId":`, m.ResponseID())
		if m.Diagnostics() != nil && err == nil {
			b = append(b, `,"diagnostics":`...)
			b, err = appendRaw(b, "diagnostics", m.Diagnostics())
		}
		optStr(`,"errorMessage":`, m.ErrorMessage())
	case RoleToolResult:
		str(`,"toolCallId":`, m.ToolCallID)
		str(`,"toolName":`, m.ToolName)
		content()
		details()
		b = append(b, `,"isError":`...)
		b = appendBool(b, m.IsError)
		timestamp()
	case RoleBashExecution:
		str(`,"command":`, m.Command())
		str(`,"output":`, m.Output())
		if m.ExitCode() != nil {
			b = append(b, `,"exitCode":`...)
			b = appendInt(b, int64(*m.ExitCode()))
		}
		b = append(b, `,"cancelled":`...)
		b = appendBool(b, m.Cancelled())
		b = append(b, `,"truncated":`...)
		b = appendBool(b, m.Truncated())
		optStr(`,"fullOutputPath":`, m.FullOutputPath())
		timestamp()
		if m.ExcludeFromContext() {
			b = append(b, `,"excludeFromContext":true`...)
		}
	case RoleCustom:
		str(`,"customType":`, m.CustomType())
		content()
		b = append(b, `,"display":`...)
		b = appendBool(b, m.Display())
		details()
		timestamp()
	case RoleBranchSummary:
		str(`,"summary":`, m.Summary())
		str(`,"fromId":`, m.FromID())
		timestamp()
	case RoleCompactionSummary:
		str(`,"summary":`, m.Summary())
		b = append(b, `,"tokensBefore":`...)
		b = appendInt(b, int64(m.TokensBefore()))
		timestamp()
	default:
		if m.Content != nil {
			content()
		}
		timestamp()
	}
	if err != nil {
		return b, err
	}
	return append(b, '}'), nil
}

func appendUsage(b []byte, u *Usage) []byte {
	b = append(b, `{"input":`...)
	b = appendInt(b, int64(u.Input))
	b = append(b, `,"output":`...)
	b = appendInt(b, int64(u.Output))
	b = append(b, `,"cacheRead":`...)
	b = appendInt(b, int64(u.CacheRead))
	b = append(b, `,"cacheWrite":`...)
	b = appendInt(b, int64(u.CacheWrite))
	b = append(b, `,"totalTokens":`...)
	b = appendInt(b, int64(u.TotalTokens))
	b = append(b, `,"cost":{"input":`...)
	b = appendJSNumber(b, u.Cost.Input)
	b = append(b, `,"output":`...)
	b = appendJSNumber(b, u.Cost.Output)
	b = append(b, `,"cacheRead":`...)
	b = appendJSNumber(b, u.Cost.CacheRead)
	b = append(b, `,"cacheWrite":`...)
	b = appendJSNumber(b, u.Cost.CacheWrite)
	b = append(b, `,"total":`...)
	b = appendJSNumber(b, u.Cost.Total)
	return append(b, "}}"...)
}

// appendContent writes content as a string (isString: the text of its
// text blocks) or as an array of blocks (nil writes []).
func appendContent(b []byte, blocks []ContentBlock, isString bool) ([]byte, error) {
	if isString {
		var text string
		for i := range blocks {
			if blocks[i].Type == BlockText {
				text += blocks[i].Text
			}
		}
		return appendJSString(b, text), nil
	}
	b = append(b, '[')
	var err error
	for i := range blocks {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = appendBlock(b, &blocks[i]); err != nil {
			return b, fmt.Errorf("content block %d: %w", i, err)
		}
	}
	return append(b, ']'), nil
}

// appendBlock writes one content block with pi's key order for its type.
// Unknown types get their type and every non-empty field.
func appendBlock(b []byte, c *ContentBlock) ([]byte, error) {
	b = append(b, `{"type":`...)
	b = appendJSString(b, c.Type)
	str := func(key, v string) {
		b = append(b, key...)
		b = appendJSString(b, v)
	}
	optStr := func(key, v string) {
		if v != "" {
			str(key, v)
		}
	}
	var err error
	switch c.Type {
	case BlockText:
		str(`,"text":`, c.Text)
		optStr(`,"textSignature":`, c.TextSignature())
	case BlockThinking:
		str(`,"thinking":`, c.Thinking)
		optStr(`,"thinkingSignature":`, c.ThinkingSignature)
		if c.Redacted() {
			b = append(b, `,"redacted":true`...)
		}
	case BlockImage:
		str(`,"data":`, c.Data())
		str(`,"mimeType":`, c.MimeType())
	case BlockToolCall:
		str(`,"id":`, c.ID)
		str(`,"name":`, c.Name)
		b = append(b, `,"arguments":`...)
		if c.Arguments == nil {
			b = append(b, "{}"...)
		} else if b, err = appendRaw(b, "arguments", c.Arguments); err != nil {
			return b, err
		}
		optStr(`,"thoughtSignature":`, c.ThoughtSignature())
	default:
		optStr(`,"text":`, c.Text)
		optStr(`,"textSignature":`, c.TextSignature())
		optStr(`,"thinking":`, c.Thinking)
		optStr(`,"thinkingSignature":`, c.ThinkingSignature)
		if c.Redacted() {
			b = append(b, `,"redacted":true`...)
		}
		optStr(`,"data":`, c.Data())
		optStr(`,"mimeType":`, c.MimeType())
		optStr(`,"id":`, c.ID)
		optStr(`,"name":`, c.Name)
		if c.Arguments != nil {
			b = append(b, `,"arguments":`...)
			if b, err = appendRaw(b, "arguments", c.Arguments); err != nil {
				return b, err
			}
		}
		optStr(`,"thoughtSignature":`, c.ThoughtSignature())
	}
	return append(b, '}'), nil
}

// ---- decoding ----

// decoder decodes session JSON into the typed structs. In lenient mode
// (loading files) a known key holding an unexpected type is skipped, as pi
// never validates what it loads; otherwise it is an error.
type decoder struct {
	scanner
	lenient bool
	slab    *slab // nil: allocate objects one by one
	scratch []ContentBlock
	keyBuf  []byte
}

// mismatch handles a value of the wrong type for a known key.
func (d *decoder) mismatch(key, want string) error {
	if d.lenient {
		return d.skip(0)
	}
	got := "end of input"
	switch c := d.peek(); c {
	case '{':
		got = "an object"
	case '[':
		got = "an array"
	case '"':
		got = "a string"
	case 't', 'f':
		got = "a boolean"
	case 'n':
		got = "null"
	default:
		if c != 0 {
			got = "a number"
		}
	}
	return fmt.Errorf("%s: want %s, got %s", key, want, got)
}

// strVal reads a string; null reads as "".
func (d *decoder) strVal(dst *string, key string) error {
	switch d.peek() {
	case '"':
		v, err := d.str()
		*dst = v
		return err
	case 'n':
		*dst = ""
		return d.literal("null")
	}
	return d.mismatch(key, "a string")
}

// intVal reads a number as an integer; null reads as 0.
func (d *decoder) intVal(dst *int64, key string) error {
	switch c := d.peek(); {
	case c == '-' || '0' <= c && c <= '9':
		v, err := d.int()
		*dst = v
		return err
	case c == 'n':
		*dst = 0
		return d.literal("null")
	}
	return d.mismatch(key, "a number")
}

func (d *decoder) intField(dst *int, key string) error {
	var v int64
	err := d.intVal(&v, key)
	*dst = int(v)
	return err
}

func (d *decoder) floatVal(dst *float64, key string) error {
	switch c := d.peek(); {
	case c == '-' || '0' <= c && c <= '9':
		v, err := d.float()
		*dst = v
		return err
	case c == 'n':
		*dst = 0
		return d.literal("null")
	}
	return d.mismatch(key, "a number")
}

// boolVal reads a boolean; null reads as false.
func (d *decoder) boolVal(dst *bool, key string) error {
	switch d.peek() {
	case 't', 'f':
		v, err := d.boolean()
		*dst = v
		return err
	case 'n':
		*dst = false
		return d.literal("null")
	}
	return d.mismatch(key, "a boolean")
}

// rawVal keeps any JSON value verbatim (null included).
func (d *decoder) rawVal(dst *json.RawMessage) error {
	v, err := d.raw()
	*dst = v
	return err
}

// members calls fn for each member of an object; fn must consume the value.
func (d *decoder) members(fn func(key []byte) error) error {
	if d.peek() != '{' {
		return d.errorf("want an object")
	}
	empty, err := d.objectStart()
	if err != nil || empty {
		return err
	}
	for {
		k, err := d.key(&d.keyBuf)
		if err != nil {
			return err
		}
		if err := fn(k); err != nil {
			return err
		}
		more, err := d.objectNext()
		if err != nil || !more {
			return err
		}
	}
}

// header decodes a header line. valid reports pi's header test: type
// "session" and a string id.
func (d *decoder) header(h *Header) (valid bool, err error) {
	var idIsString bool
	h.Version = 1 // v1 headers have no version
	err = d.members(func(k []byte) error {
		switch string(k) {
		case "type":
			return d.strVal(&h.Type, "type")
		case "version":
			var v int64
			if c := d.peek(); c == '-' || '0' <= c && c <= '9' {
				var err error
				v, err = d.int()
				h.Version = int(v)
				return err
			}
			return d.skip(0)
		case "id":
			idIsString = d.peek() == '"'
			return d.strVal(&h.ID, "id")
		case "timestamp":
			return d.strVal(&h.Timestamp, "timestamp")
		case "cwd":
			return d.strVal(&h.Cwd, "cwd")
		case "parentSession":
			return d.strVal(&h.ParentSession, "parentSession")
		}
		return d.skip(0)
	})
	return err == nil && h.Type == TypeSession && idIsString, err
}

// entry decodes an entry of any type. hasID reports whether it has a
// string id (entries without one cannot be part of the tree).
func (d *decoder) entry(e *Entry) (hasID bool, err error) {
	err = d.members(func(k []byte) error {
		switch string(k) {
		case "type":
			return d.strVal(&e.Type, "type")
		case "id":
			hasID = d.peek() == '"'
			return d.strVal(&e.ID, "id")
		case "parentId":
			return d.strVal(&e.ParentID, "parentId")
		case "timestamp":
			return d.strVal(&e.Timestamp, "timestamp")
		case "message":
			if d.peek() != '{' {
				if null, err := d.isNull(); null || err != nil {
					return err
				}
				return d.mismatch("message", "an object")
			}
			m := d.newMessage()
			e.Message = m
			if err := d.message(m); err != nil {
				return fmt.Errorf("message: %w", err)
			}
			return nil
		case "provider":
			return d.strVal(&e.fields().Provider, "provider")
		case "modelId":
			return d.strVal(&e.fields().ModelID, "modelId")
		case "thinkingLevel":
			return d.strVal(&e.fields().ThinkingLevel, "thinkingLevel")
		case "summary":
			return d.strVal(&e.fields().Summary, "summary")
		case "firstKeptEntryId":
			return d.strVal(&e.fields().FirstKeptEntryID, "firstKeptEntryId")
		case "tokensBefore":
			return d.intField(&e.fields().TokensBefore, "tokensBefore")
		case "details":
			return d.rawVal(&e.fields().Details)
		case "fromHook":
			return d.boolVal(&e.fields().FromHook, "fromHook")
		case "fromId":
			return d.strVal(&e.fields().FromID, "fromId")
		case "customType":
			return d.strVal(&e.fields().CustomType, "customType")
		case "data":
			return d.rawVal(&e.fields().Data)
		case "content":
			var err error
			f := e.fields()
			f.Content, f.ContentIsString, err = d.content()
			return err
		case "display":
			return d.boolVal(&e.fields().Display, "display")
		case "targetId":
			return d.strVal(&e.fields().TargetID, "targetId")
		case "label":
			return d.strVal(&e.fields().Label, "label")
		case "name":
			return d.strVal(&e.fields().Name, "name")
		}
		return d.skip(0)
	})
	return hasID, err
}

func (d *decoder) newMessage() *Message {
	if d.slab != nil {
		return d.slab.message()
	}
	return new(Message)
}

// message decodes a message of any role.
func (d *decoder) message(m *Message) error {
	return d.members(func(k []byte) error {
		switch string(k) {
		case "role":
			return d.strVal(&m.Role, "role")
		case "content":
			var err error
			m.Content, m.ContentIsString, err = d.content()
			return err
		case "timestamp":
			return d.intVal(&m.Timestamp, "timestamp")
		case "api":
			return d.strVal(&m.API, "api")
		case "provider":
			return d.strVal(&m.Provider, "provider")
		case "model":
			return d.strVal(&m.Model, "model")
		case "usage":
			if d.peek() != '{' {
				if null, err := d.isNull(); null || err != nil {
					return err
				}
				return d.mismatch("usage", "an object")
			}
			var u *Usage
			if d.slab != nil {
				u = d.slab.usage()
			} else {
				u = new(Usage)
			}
			m.Usage = u
			return d.usage(u)
		case "stopReason":
			return d.strVal(&m.StopReason, "stopReason")
		case "responseModel":
			return d.strVal(&m.extra().ResponseModel, "responseModel")
		case "responseId":
			return d.strVal(&m.extra().ResponseID, "responseId")
		case "diagnostics":
			return d.rawVal(&m.extra().Diagnostics)
		case "errorMessage":
			return d.strVal(&m.extra().ErrorMessage, "errorMessage")
		case "toolCallId":
			return d.strVal(&m.ToolCallID, "toolCallId")
		case "toolName":
			return d.strVal(&m.ToolName, "toolName")
		case "details":
			return d.rawVal(&m.Details)
		case "isError":
			return d.boolVal(&m.IsError, "isError")
		case "command":
			return d.strVal(&m.extra().Command, "command")
		case "output":
			return d.strVal(&m.extra().Output, "output")
		case "exitCode":
			if null, err := d.isNull(); null || err != nil {
				return err
			}
			var v int64
			if c := d.peek(); c != '-' && (c < '0' || c > '9') {
				return d.mismatch("exitCode", "a number")
			}
			if err := d.intVal(&v, "exitCode"); err != nil {
				return err
			}
			n := int(v)
			m.extra().ExitCode = &n
			return nil
		case "cancelled":
			return d.boolVal(&m.extra().Cancelled, "cancelled")
		case "truncated":
			return d.boolVal(&m.extra().Truncated, "truncated")
		case "fullOutputPath":
			return d.strVal(&m.extra().FullOutputPath, "fullOutputPath")
		case "excludeFromContext":
			return d.boolVal(&m.extra().ExcludeFromContext, "excludeFromContext")
		case "customType":
			return d.strVal(&m.extra().CustomType, "customType")
		case "display":
			return d.boolVal(&m.extra().Display, "display")
		case "summary":
			return d.strVal(&m.extra().Summary, "summary")
		case "fromId":
			return d.strVal(&m.extra().FromID, "fromId")
		case "tokensBefore":
			return d.intField(&m.extra().TokensBefore, "tokensBefore")
		}
		return d.skip(0)
	})
}

func (d *decoder) usage(u *Usage) error {
	return d.members(func(k []byte) error {
		switch string(k) {
		case "input":
			return d.intField(&u.Input, "usage.input")
		case "output":
			return d.intField(&u.Output, "usage.output")
		case "cacheRead":
			return d.intField(&u.CacheRead, "usage.cacheRead")
		case "cacheWrite":
			return d.intField(&u.CacheWrite, "usage.cacheWrite")
		case "totalTokens":
			return d.intField(&u.TotalTokens, "usage.totalTokens")
		case "cost":
			if d.peek() != '{' {
				return d.mismatch("usage.cost", "an object")
			}
			return d.members(func(k []byte) error {
				switch string(k) {
				case "input":
					return d.floatVal(&u.Cost.Input, "cost.input")
				case "output":
					return d.floatVal(&u.Cost.Output, "cost.output")
				case "cacheRead":
					return d.floatVal(&u.Cost.CacheRead, "cost.cacheRead")
				case "cacheWrite":
					return d.floatVal(&u.Cost.CacheWrite, "cost.cacheWrite")
				case "total":
					return d.floatVal(&u.Cost.Total, "cost.total")
				}
				return d.skip(0)
			})
		}
		return d.skip(0)
	})
}

// content decodes message content: a string (one text block, isString
// set) or an array of blocks; null gives nil.
func (d *decoder) content() (blocks []ContentBlock, isString bool, err error) {
	switch d.peek() {
	case '"':
		s, err := d.str()
		if err != nil {
			return nil, false, err
		}
		one := []ContentBlock{{Type: BlockText, Text: s}}
		if d.slab != nil {
			one = d.slab.blockSlice(one)
		}
		return one, true, nil
	case 'n':
		return nil, false, d.literal("null")
	case '[':
	default:
		return nil, false, d.mismatch("content", "a string or an array")
	}
	empty, err := d.arrayStart()
	if err != nil {
		return nil, false, err
	}
	if empty {
		return []ContentBlock{}, false, nil
	}
	// Blocks are decoded into scratch, then copied to exactly sized
	// storage. scratch is taken over so that nested decoding (there is
	// none today) could not clobber it.
	scratch := d.scratch[:0]
	d.scratch = nil
	for {
		if d.peek() != '{' {
			if err := d.mismatch("content block", "an object"); err != nil {
				return nil, false, err
			}
		} else {
			scratch = append(scratch, ContentBlock{})
			if err := d.block(&scratch[len(scratch)-1]); err != nil {
				return nil, false, fmt.Errorf("content block %d: %w", len(scratch)-1, err)
			}
		}
		more, err := d.arrayNext()
		if err != nil {
			return nil, false, err
		}
		if !more {
			break
		}
	}
	if d.slab != nil {
		blocks = d.slab.blockSlice(scratch)
	} else {
		blocks = append([]ContentBlock(nil), scratch...)
	}
	clear(scratch)
	d.scratch = scratch[:0]
	return blocks, false, nil
}

func (d *decoder) block(c *ContentBlock) error {
	return d.members(func(k []byte) error {
		switch string(k) {
		case "type":
			return d.strVal(&c.Type, "type")
		case "text":
			return d.strVal(&c.Text, "text")
		case "textSignature":
			return d.strVal(&c.extra().TextSignature, "textSignature")
		case "thinking":
			return d.strVal(&c.Thinking, "thinking")
		case "thinkingSignature":
			return d.strVal(&c.ThinkingSignature, "thinkingSignature")
		case "redacted":
			return d.boolVal(&c.extra().Redacted, "redacted")
		case "data":
			return d.strVal(&c.extra().Data, "data")
		case "mimeType":
			return d.strVal(&c.extra().MimeType, "mimeType")
		case "id":
			return d.strVal(&c.ID, "id")
		case "name":
			return d.strVal(&c.Name, "name")
		case "arguments":
			return d.rawVal(&c.Arguments)
		case "thoughtSignature":
			return d.strVal(&c.extra().ThoughtSignature, "thoughtSignature")
		}
		return d.skip(0)
	})
}

// slab hands out entries, messages, usages and content block slices from
// shared chunks: loading 100k entries then costs a few hundred allocations
// instead of several hundred thousand.
type slab struct {
	entries []Entry
	msgs    []Message
	usages  []Usage
	blocks  []ContentBlock
	lines   []inPlaceLine
	patches []patch
	n       int // chunk length, grows to slabMax
}

const slabMax = 1024

func (s *slab) grow() int {
	if s.n < 16 {
		s.n = 16
	} else if s.n < slabMax {
		s.n *= 2
	}
	return s.n
}

func (s *slab) entry() *Entry {
	if len(s.entries) == cap(s.entries) {
		s.entries = make([]Entry, 0, s.grow())
	}
	s.entries = s.entries[:len(s.entries)+1]
	return &s.entries[len(s.entries)-1]
}

func (s *slab) message() *Message {
	if len(s.msgs) == cap(s.msgs) {
		s.msgs = make([]Message, 0, s.grow())
	}
	s.msgs = s.msgs[:len(s.msgs)+1]
	return &s.msgs[len(s.msgs)-1]
}

func (s *slab) usage() *Usage {
	if len(s.usages) == cap(s.usages) {
		s.usages = make([]Usage, 0, s.grow())
	}
	s.usages = s.usages[:len(s.usages)+1]
	return &s.usages[len(s.usages)-1]
}

func (s *slab) inPlaceLine() *inPlaceLine {
	if len(s.lines) == cap(s.lines) {
		s.lines = make([]inPlaceLine, 0, s.grow())
	}
	s.lines = s.lines[:len(s.lines)+1]
	return &s.lines[len(s.lines)-1]
}

// patchSlice copies src into chunk storage (capacity ending at its length).
func (s *slab) patchSlice(src []patch) []patch {
	n := len(src)
	if cap(s.patches)-len(s.patches) < n {
		size := 2 * s.grow()
		if n > size/4 {
			return append([]patch(nil), src...)
		}
		s.patches = make([]patch, 0, size)
	}
	start := len(s.patches)
	s.patches = append(s.patches, src...)
	return s.patches[start : start+n : start+n]
}

// blockSlice copies src into chunk storage and returns a slice whose
// capacity ends at its length (appending to it reallocates).
func (s *slab) blockSlice(src []ContentBlock) []ContentBlock {
	n := len(src)
	if cap(s.blocks)-len(s.blocks) < n {
		size := 2 * s.grow()
		if n > size/4 {
			return append([]ContentBlock(nil), src...)
		}
		s.blocks = make([]ContentBlock, 0, size)
	}
	start := len(s.blocks)
	s.blocks = append(s.blocks, src...)
	return s.blocks[start : start+n : start+n]
}
