package session

// Identifiers and timestamps in the forms pi writes: 8-hex entry ids,
// UUIDv7 session ids and JavaScript toISOString() timestamps.

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"
)

// isoLayout is JavaScript's Date.prototype.toISOString format.
const isoLayout = "2006-01-02T15:04:05.000Z"

// nowFunc is the clock used for new entries and sessions; tests replace it.
var nowFunc = time.Now

// formatISO formats t like JavaScript's toISOString (UTC, milliseconds).
func formatISO(t time.Time) string {
	return t.UTC().Format(isoLayout)
}

// parseISO parses an entry timestamp. ok is false when s is not a valid
// ISO 8601 date (JavaScript would produce NaN).
func parseISO(s string) (t time.Time, ok bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// isoMillis converts an entry timestamp to Unix milliseconds, as
// new Date(ts).getTime() does; an invalid timestamp gives 0.
func isoMillis(s string) int64 {
	t, ok := parseISO(s)
	if !ok {
		return 0
	}
	return t.UnixMilli()
}

// randomBytes fills b from crypto/rand. crypto/rand.Read never fails on
// supported platforms (it panics or blocks instead).
func randomBytes(b []byte) {
	_, _ = rand.Read(b)
}

// NewEntryID returns a new entry id: 8 lowercase hex characters from a
// cryptographic random source, redrawn while exists reports a collision
// (up to 100 times, then a full random UUID, as pi does). exists may be nil.
func NewEntryID(exists func(string) bool) string {
	var b [4]byte
	for range 100 {
		randomBytes(b[:])
		id := hex.EncodeToString(b[:])
		if exists == nil || !exists(id) {
			return id
		}
	}
	return newUUIDv4()
}

// newUUIDv4 returns a random (version 4) UUID.
func newUUIDv4() string {
	var b [16]byte
	randomBytes(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

// newUUIDv7 returns a time-ordered (version 7, RFC 9562) UUID: 48 bits of
// Unix milliseconds followed by random bits.
func newUUIDv7(t time.Time) string {
	var b [16]byte
	randomBytes(b[6:])
	ms := uint64(t.UnixMilli())
	for i := 5; i >= 0; i-- {
		b[i] = byte(ms)
		ms >>= 8
	}
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

func formatUUID(b [16]byte) string {
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}

// fileName is the session file name pi uses: the header timestamp with
// ':' and '.' replaced by '-', an underscore and the session id.
func fileName(timestamp, id string) string {
	return strings.NewReplacer(":", "-", ".", "-").Replace(timestamp) + "_" + id + ".jsonl"
}
