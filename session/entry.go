package session

import "encoding/json"

// Entry types, as pi writes them.
const (
	TypeSession             = "session" // the header line
	TypeMessage             = "message"
	TypeModelChange         = "model_change"
	TypeThinkingLevelChange = "thinking_level_change"
	TypeCompaction          = "compaction"
	TypeBranchSummary       = "branch_summary"
	TypeCustom              = "custom"
	TypeCustomMessage       = "custom_message"
	TypeLabel               = "label"
	TypeSessionInfo         = "session_info"
)

// CurrentVersion is the session format version lunar writes.
const CurrentVersion = 3

// Header is the first line of a session file.
type Header struct {
	Type          string // "session"
	Version       int
	ID            string // UUIDv7
	Timestamp     string // ISO 8601 with milliseconds, UTC
	Cwd           string
	ParentSession string // optional

	Raw []byte // the line as loaded; nil for a header lunar created
}

// Entry is one line of a session file after the header. Which fields are
// used depends on Type:
//
//	message                Message
//	model_change           Provider, ModelID
//	thinking_level_change  ThinkingLevel
//	compaction             Summary, FirstKeptEntryID, TokensBefore, Details?, FromHook
//	branch_summary         FromID, Summary, Details?, FromHook
//	custom                 CustomType, Data?
//	custom_message         CustomType, Content (+ContentIsString), Display, Details?
//	label                  TargetID, Label?
//	session_info           Name
//
// The fields of the types other than message are in Fields (nil for a
// message entry: a long session is almost all messages, and they are
// loaded as they are in the file) and read with the methods of the same
// names, which give the zero value when Fields is nil.
//
// Entries of types lunar does not know keep only the common fields and Raw.
type Entry struct {
	Type      string
	ID        string // 8 lowercase hex chars
	ParentID  string // "" for the first entry (written as null)
	Timestamp string // ISO 8601 with milliseconds, UTC

	Message *Message
	Fields  *EntryFields

	// Raw is the exact line as loaded (without the newline), or as
	// encoded by Append. A loaded entry is written back byte for byte and
	// never re-encoded. Raw is nil for a loaded line whose long escaped
	// strings were decoded into the line's own memory to save it:
	// MarshalJSON rebuilds that line exactly.
	Raw []byte

	inPlace *inPlaceLine // set when Raw is nil for that reason
}

// EntryFields are the fields of the entry types other than message (see
// Entry).
type EntryFields struct {
	Provider      string
	ModelID       string
	ThinkingLevel string

	Summary          string
	FirstKeptEntryID string
	TokensBefore     int
	Details          json.RawMessage
	FromHook         bool
	FromID           string

	CustomType      string
	Data            json.RawMessage
	Content         []ContentBlock
	ContentIsString bool
	Display         bool

	TargetID string
	Label    string

	Name string
}

// fields returns e.Fields, allocated when nil (for decoding and building
// entries).
func (e *Entry) fields() *EntryFields {
	if e.Fields == nil {
		e.Fields = new(EntryFields)
	}
	return e.Fields
}

// noFields is what the accessors read for an entry without Fields.
var noFields EntryFields

func (e *Entry) f() *EntryFields {
	if e.Fields == nil {
		return &noFields
	}
	return e.Fields
}

// Provider is the provider a model_change entry sets.
func (e *Entry) Provider() string { return e.f().Provider }

// ModelID is the model a model_change entry sets.
func (e *Entry) ModelID() string { return e.f().ModelID }

// ThinkingLevel is the level a thinking_level_change entry sets.
func (e *Entry) ThinkingLevel() string { return e.f().ThinkingLevel }

// Summary is the summary of a compaction or branch_summary entry.
func (e *Entry) Summary() string { return e.f().Summary }

// FirstKeptEntryID is the first entry a compaction keeps.
func (e *Entry) FirstKeptEntryID() string { return e.f().FirstKeptEntryID }

// TokensBefore is the context's size before a compaction.
func (e *Entry) TokensBefore() int { return e.f().TokensBefore }

// Details is the details value of a compaction, branch_summary or
// custom_message entry (nil: absent).
func (e *Entry) Details() json.RawMessage { return e.f().Details }

// FromHook reports whether a hook wrote a compaction or branch summary.
func (e *Entry) FromHook() bool { return e.f().FromHook }

// FromID is the entry a branch_summary entry summarises the branch from.
func (e *Entry) FromID() string { return e.f().FromID }

// CustomType is the type of a custom or custom_message entry.
func (e *Entry) CustomType() string { return e.f().CustomType }

// Data is the data of a custom entry (nil: absent).
func (e *Entry) Data() json.RawMessage { return e.f().Data }

// Content is the content of a custom_message entry.
func (e *Entry) Content() []ContentBlock { return e.f().Content }

// ContentIsString reports whether a custom_message's content is a string.
func (e *Entry) ContentIsString() bool { return e.f().ContentIsString }

// Display reports whether a custom_message entry is shown.
func (e *Entry) Display() bool { return e.f().Display }

// TargetID is the entry a label entry labels.
func (e *Entry) TargetID() string { return e.f().TargetID }

// Label is the label a label entry sets ("" clears it).
func (e *Entry) Label() string { return e.f().Label }

// Name is the name a session_info entry gives the session.
func (e *Entry) Name() string { return e.f().Name }

// line returns the entry's exact line: Raw, or the loaded line rebuilt
// from its in-place decoded strings. nil for an entry that was never
// encoded.
func (e *Entry) line() []byte {
	if e.Raw == nil && e.inPlace != nil {
		return e.inPlace.rebuild()
	}
	return e.Raw
}
