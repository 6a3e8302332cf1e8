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
// Entries of types lunar does not know keep only the common fields and Raw.
type Entry struct {
	Type      string
	ID        string // 8 lowercase hex chars
	ParentID  string // "" for the first entry (written as null)
	Timestamp string // ISO 8601 with milliseconds, UTC

	Message *Message

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

	// Raw is the exact line as loaded (without the newline), or as
	// encoded by Append. A loaded entry is written back byte for byte and
	// never re-encoded. Raw is nil for a loaded line whose long escaped
	// strings were decoded into the line's own memory to save it:
	// MarshalJSON rebuilds that line exactly.
	Raw []byte

	inPlace *inPlaceLine // set when Raw is nil for that reason
}

// line returns the entry's exact line: Raw, or the loaded line rebuilt
// from its in-place decoded strings. nil for an entry that was never
// encoded.
func (e *Entry) line() []byte {
	if e.Raw == nil && e.inPlace != nil {
		return e.inPlace.rebuild()
	}
	return e.Raw
}
