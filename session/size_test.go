package session

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// A long session holds an Entry, a Message and its content blocks for
// each line: fields few of them have belong in Entry.Fields,
// Message.Extra and ContentBlock.Extra (README, "Long sessions").
func TestLoadedStructsStaySmall(t *testing.T) {
	assert.LessOrEqual(t, unsafe.Sizeof(Entry{}), uintptr(112))
	assert.LessOrEqual(t, unsafe.Sizeof(Message{}), uintptr(200))
	assert.LessOrEqual(t, unsafe.Sizeof(ContentBlock{}), uintptr(128))
}

func TestAccessorsReadZeroWithoutExtra(t *testing.T) {
	e := &Entry{Type: TypeMessage}
	assert.Equal(t, "", e.Summary())
	assert.Nil(t, e.Details())
	m := &Message{Role: RoleAssistant}
	assert.Equal(t, "", m.ErrorMessage())
	assert.Nil(t, m.ExitCode())
	var b ContentBlock
	assert.False(t, b.Redacted())
	assert.Equal(t, "", b.Data())
}

func TestSettersLeaveCopiesAlone(t *testing.T) {
	m := Message{Role: RoleAssistant, Extra: &MessageExtra{ResponseID: "r1"}}
	cp := m
	cp.SetErrorMessage("boom")
	assert.Equal(t, "", m.ErrorMessage(), "the original keeps its Extra")
	assert.Equal(t, "boom", cp.ErrorMessage())
	assert.Equal(t, "r1", cp.ResponseID(), "the copy keeps the other fields")

	b := ContentBlock{Type: BlockToolCall, Extra: &BlockExtra{ThoughtSignature: "s"}}
	bc := b
	bc.SetThoughtSignature("")
	assert.Equal(t, "s", b.ThoughtSignature())
	assert.Nil(t, bc.Extra, "an Extra with nothing left is dropped")
}
