package main

// --mode json: one JSON object per line on stdout for every agent event,
// in the shape of pi's --mode json.

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/session"
)

// jsonWriter writes events as JSON lines. It is safe for concurrent use.
type jsonWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf bytes.Buffer
	err error
}

func (j *jsonWriter) write(v any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.buf.Reset()
	enc := json.NewEncoder(&j.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		j.err = err
		return
	}
	if _, err := j.w.Write(j.buf.Bytes()); err != nil && j.err == nil {
		j.err = err
	}
}

type jsonHeader struct {
	Type          string `json:"type"`
	Version       int    `json:"version"`
	ID            string `json:"id"`
	Timestamp     string `json:"timestamp"`
	Cwd           string `json:"cwd"`
	ParentSession string `json:"parentSession,omitempty"`
}

func (j *jsonWriter) header(h session.Header) {
	j.write(jsonHeader{Type: "session", Version: session.CurrentVersion, ID: h.ID, Timestamp: h.Timestamp, Cwd: h.Cwd, ParentSession: h.ParentSession})
}

type jsonToolResult struct {
	Content   []session.ContentBlock `json:"content"`
	Details   json.RawMessage        `json:"details,omitempty"`
	Terminate bool                   `json:"terminate,omitempty"` // as pi's result object
}

// jsonStreamEvent is pi's assistantMessageEvent: text_end and
// thinking_end carry the block's whole content, toolcall_end the call.
type jsonStreamEvent struct {
	Type         string                `json:"type"`
	ContentIndex *int                  `json:"contentIndex,omitempty"`
	Delta        *string               `json:"delta,omitempty"`
	Content      *string               `json:"content,omitempty"`
	ToolCall     *session.ContentBlock `json:"toolCall,omitempty"`
	Partial      *session.Message      `json:"partial"`
}

func streamEventJSON(se *agent.StreamEvent) jsonStreamEvent {
	out := jsonStreamEvent{Type: se.Type, Partial: se.Partial}
	idx := se.ContentIndex
	out.ContentIndex = &idx
	var block *session.ContentBlock
	if se.Partial != nil && idx >= 0 && idx < len(se.Partial.Content) {
		block = &se.Partial.Content[idx]
	}
	switch se.Type {
	case agent.StreamTextDelta, agent.StreamThinkingDelta, agent.StreamToolCallDelta:
		d := se.Delta
		out.Delta = &d
	case agent.StreamTextEnd:
		if block != nil {
			out.Content = &block.Text
		}
	case agent.StreamThinkingEnd:
		if block != nil {
			out.Content = &block.Thinking
		}
	case agent.StreamToolCallEnd:
		out.ToolCall = block
	}
	return out
}

// event converts one loop event to pi's JSON shape.
func (j *jsonWriter) event(ev agent.Event) {
	type obj = map[string]any
	switch ev.Type {
	case agent.EventAgentStart, agent.EventTurnStart:
		j.write(struct {
			Type string `json:"type"`
		}{ev.Type})
	case agent.EventMessageStart, agent.EventMessageEnd:
		j.write(struct {
			Type    string           `json:"type"`
			Message *session.Message `json:"message"`
		}{ev.Type, ev.Message})
	case agent.EventMessageUpdate:
		if ev.Stream == nil || ev.Stream.Type == agent.StreamStart {
			return // pi reports the start of a reply as message_start only
		}
		se := streamEventJSON(ev.Stream)
		j.write(struct {
			Type                  string           `json:"type"`
			Message               *session.Message `json:"message"`
			AssistantMessageEvent jsonStreamEvent  `json:"assistantMessageEvent"`
		}{ev.Type, ev.Message, se})
	case agent.EventToolExecutionStart:
		j.write(struct {
			Type       string          `json:"type"`
			ToolCallID string          `json:"toolCallId"`
			ToolName   string          `json:"toolName"`
			Args       json.RawMessage `json:"args"`
		}{ev.Type, ev.ToolCallID, ev.ToolName, rawOrNull(ev.Args)})
	case agent.EventToolExecutionUpdate:
		j.write(struct {
			Type          string          `json:"type"`
			ToolCallID    string          `json:"toolCallId"`
			ToolName      string          `json:"toolName"`
			Args          json.RawMessage `json:"args"`
			PartialResult jsonToolResult  `json:"partialResult"`
		}{ev.Type, ev.ToolCallID, ev.ToolName, rawOrNull(ev.Args), toolResultJSON(ev.Result)})
	case agent.EventToolExecutionEnd:
		j.write(struct {
			Type       string         `json:"type"`
			ToolCallID string         `json:"toolCallId"`
			ToolName   string         `json:"toolName"`
			Result     jsonToolResult `json:"result"`
			IsError    bool           `json:"isError"`
		}{ev.Type, ev.ToolCallID, ev.ToolName, toolResultJSON(ev.Result), ev.IsError})
	case agent.EventTurnEnd:
		results := ev.ToolResults
		if results == nil {
			results = []session.Message{}
		}
		j.write(struct {
			Type        string            `json:"type"`
			Message     *session.Message  `json:"message"`
			ToolResults []session.Message `json:"toolResults"`
		}{ev.Type, ev.Message, results})
	case agent.EventAgentEnd:
		msgs := ev.Messages
		if msgs == nil {
			msgs = []session.Message{}
		}
		j.write(struct {
			Type     string            `json:"type"`
			Messages []session.Message `json:"messages"`
		}{ev.Type, msgs})
	default:
		j.write(obj{"type": ev.Type})
	}
}

func rawOrNull(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("null")
	}
	return r
}

func toolResultJSON(r *agent.ToolResult) jsonToolResult {
	if r == nil {
		return jsonToolResult{Content: []session.ContentBlock{}}
	}
	c := r.Content
	if c == nil {
		c = []session.ContentBlock{}
	}
	return jsonToolResult{Content: c, Details: r.Details, Terminate: r.Terminate}
}

type jsonCompactionStart struct {
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

type jsonCompactionResult struct {
	Summary          string `json:"summary"`
	FirstKeptEntryID string `json:"firstKeptEntryId"`
	TokensBefore     int    `json:"tokensBefore"`
}

type jsonCompactionEnd struct {
	Type         string                `json:"type"`
	Reason       string                `json:"reason"`
	Result       *jsonCompactionResult `json:"result,omitempty"`
	Aborted      bool                  `json:"aborted"`
	WillRetry    bool                  `json:"willRetry"`
	ErrorMessage string                `json:"errorMessage,omitempty"`
}

// jsonQueueUpdate is pi's queue_update session event.
type jsonQueueUpdate struct {
	Type     string   `json:"type"`
	Steering []string `json:"steering"`
	FollowUp []string `json:"followUp"`
}

// runtimeEvent writes loop events and pi's compaction_start,
// compaction_end, queue_update, thinking_level_changed and
// session_info_changed session events.
func (j *jsonWriter) runtimeEvent(ev agent.RuntimeEvent) {
	switch {
	case ev.Loop != nil:
		j.event(*ev.Loop)
	case ev.Compaction != nil && ev.Compaction.Type == agent.CompactionStart:
		j.write(jsonCompactionStart{Type: ev.Compaction.Type, Reason: ev.Compaction.Reason})
	case ev.Compaction != nil:
		c := ev.Compaction
		out := jsonCompactionEnd{Type: c.Type, Reason: c.Reason, Aborted: c.Aborted, WillRetry: c.WillRetry, ErrorMessage: c.ErrorMessage}
		if r := c.Result; r != nil {
			out.Result = &jsonCompactionResult{Summary: r.Summary, FirstKeptEntryID: r.FirstKeptEntryID, TokensBefore: r.TokensBefore}
		}
		j.write(out)
	case ev.Queue != nil:
		j.write(jsonQueueUpdate{Type: agent.EventQueueUpdate, Steering: nonNil(ev.Queue.Steering), FollowUp: nonNil(ev.Queue.FollowUp)})
	case ev.ThinkingLevel != nil:
		j.write(jsonThinkingLevelChanged{Type: agent.EventThinkingLevelChanged, Level: string(*ev.ThinkingLevel)})
	case ev.SessionInfo != nil:
		j.write(jsonSessionInfoChanged{Type: agent.EventSessionInfoChanged, Name: ev.SessionInfo.Name})
	}
}

// jsonThinkingLevelChanged is pi's thinking_level_changed session event.
type jsonThinkingLevelChanged struct {
	Type  string `json:"type"`
	Level string `json:"level"`
}

// jsonSessionInfoChanged is pi's session_info_changed session event; a
// cleared name is left out, as pi's undefined.
type jsonSessionInfoChanged struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
}

// nonNil makes a nil list encode as [].
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
