package agent

// This file holds what the OpenAI and Anthropic providers share: the
// assistant message being built while a reply streams (blocks, stream
// events, partial tool-call arguments), the history transformation that
// makes a session replayable to any model, and HTTP/retry defaults.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/lunar-cli/lunar/session"
)

// DefaultMaxRetries is how many times the registry's providers retry a
// request the service rejected with 408, 409, 429 or 5xx (or that failed to
// connect), waiting as the SDKs do: the service's retry-after when it sends
// one, else exponential backoff from 0.5 s.
const DefaultMaxRetries = 3

// abortedMessage is the errorMessage of an aborted reply, as pi writes it.
const abortedMessage = "Request was aborted"

// providerHTTPClient is the HTTP client of providers that have none: the
// default transport, on its own connection pool, built on first use (a
// run that makes no model call never builds it). Stalls are bounded by
// the stall guard every provider wraps its client in (stall.go).
var providerHTTPClient = sync.OnceValue(func() *http.Client {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		return &http.Client{Transport: t.Clone()}
	}
	return &http.Client{Transport: http.DefaultTransport}
})

// newAssistantMessage starts the assistant message of a reply from m.
func newAssistantMessage(m Model) *session.Message {
	return &session.Message{Role: session.RoleAssistant, API: m.API, Provider: m.Provider, Model: m.ID,
		Usage: &session.Usage{}, StopReason: session.StopStop, Timestamp: time.Now().UnixMilli()}
}

// setUsage records the token counts of a reply and prices them.
func setUsage(msg *session.Message, m Model, input, output, cacheRead, cacheWrite int) {
	u := session.Usage{Input: input, Output: output, CacheRead: cacheRead, CacheWrite: cacheWrite,
		TotalTokens: input + output + cacheRead + cacheWrite}
	u.Cost = CostOf(m, u)
	*msg.Usage = u
}

// providerName is how errors of a model's provider are prefixed.
func providerName(m Model, api string) string {
	if m.Provider != "" {
		return m.Provider
	}
	return api
}

// streamBuilder builds the assistant message while a reply streams and
// emits the stream events. Blocks are addressed by their content index.
type streamBuilder struct {
	msg     *session.Message
	emit    func(StreamEvent)
	blocks  []blockState // parallel to msg.Content
	open    int          // index of the block receiving deltas, or -1
	started bool
}

// blockState is the streaming state of one content block.
type blockState struct {
	sb     strings.Builder // text or thinking so far
	args   partialJSON     // tool-call arguments so far
	ended  bool
	deltas int
}

func newStreamBuilder(msg *session.Message, emit func(StreamEvent)) *streamBuilder {
	if emit == nil {
		emit = func(StreamEvent) {}
	}
	return &streamBuilder{msg: msg, emit: emit, open: -1}
}

func (b *streamBuilder) event(typ string, i int, delta string) {
	b.emit(StreamEvent{Type: typ, ContentIndex: i, Delta: delta, Partial: b.msg})
}

// start emits the start event once the response has begun.
func (b *streamBuilder) start() {
	if !b.started {
		b.started = true
		b.event(StreamStart, 0, "")
	}
}

// add appends a block, ending the open one first, and makes it the open
// block.
func (b *streamBuilder) add(block session.ContentBlock, startEvent string) int {
	b.endOpen()
	b.msg.Content = append(b.msg.Content, block)
	b.blocks = append(b.blocks, blockState{})
	b.open = len(b.msg.Content) - 1
	b.event(startEvent, b.open, "")
	return b.open
}

// text appends a text delta to block i.
func (b *streamBuilder) text(i int, delta string) {
	s := &b.blocks[i]
	s.sb.WriteString(delta)
	b.msg.Content[i].Text = s.sb.String()
	b.event(StreamTextDelta, i, delta)
}

// thinking appends a thinking delta to block i.
func (b *streamBuilder) thinking(i int, delta string) {
	s := &b.blocks[i]
	s.sb.WriteString(delta)
	b.msg.Content[i].Thinking = s.sb.String()
	b.event(StreamThinkingDelta, i, delta)
}

// toolArgs appends an arguments delta to tool-call block i; the block's
// Arguments become the valid JSON object received so far (a buffer reused
// by the next delta: Partial is only valid during the callback).
func (b *streamBuilder) toolArgs(i int, delta string) {
	s := &b.blocks[i]
	s.deltas++
	s.args.write(delta)
	b.msg.Content[i].Arguments = s.args.partial()
	b.event(StreamToolCallDelta, i, delta)
}

// end finishes block i: final arguments of a tool call, and the end event.
func (b *streamBuilder) end(i int) {
	if i < 0 || i >= len(b.blocks) || b.blocks[i].ended {
		return
	}
	b.blocks[i].ended = true
	if b.open == i {
		b.open = -1
	}
	switch b.msg.Content[i].Type {
	case session.BlockText:
		b.event(StreamTextEnd, i, "")
	case session.BlockThinking:
		b.event(StreamThinkingEnd, i, "")
	case session.BlockToolCall:
		b.msg.Content[i].Arguments = finalArguments(b.blocks[i].args.raw)
		b.event(StreamToolCallEnd, i, "")
	}
}

func (b *streamBuilder) endOpen() { b.end(b.open) }

// endAll finishes every block still open, in order.
func (b *streamBuilder) endAll() {
	for i := range b.blocks {
		b.end(i)
	}
}

// hasToolCalls reports whether the reply called tools.
func (b *streamBuilder) hasToolCalls() bool {
	for _, c := range b.msg.Content {
		if c.Type == session.BlockToolCall {
			return true
		}
	}
	return false
}

// fail ends the reply in failure, keeping the partial content: "aborted"
// when ctx was cancelled, else "error" with err's message. It returns the
// error Stream reports.
func (b *streamBuilder) fail(ctx context.Context, err error) error {
	for i := range b.blocks { // keep partial arguments, without end events
		if b.msg.Content[i].Type == session.BlockToolCall && !b.blocks[i].ended {
			b.msg.Content[i].Arguments = finalArguments(b.blocks[i].args.raw)
		}
		b.blocks[i].ended = true
	}
	b.open = -1
	if cerr := ctx.Err(); cerr != nil {
		b.msg.StopReason = session.StopAborted
		b.msg.SetErrorMessage(abortedMessage)
		if errors.Is(err, cerr) {
			return err
		}
		return cerr
	}
	b.msg.StopReason = session.StopError
	b.msg.SetErrorMessage(err.Error())
	return err
}

// finalArguments turns the complete argument text of a tool call into the
// block's Arguments: the compacted JSON when it is valid JSON ("" counts
// as {}), else the raw text as a JSON string, so the loop can answer the
// model with an error result quoting what it sent.
func finalArguments(raw []byte) json.RawMessage {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return json.RawMessage(`{}`)
	}
	if json.Valid(trimmed) {
		var out bytes.Buffer
		out.Grow(len(trimmed))
		if json.Compact(&out, trimmed) == nil {
			return out.Bytes()
		}
	}
	q, _ := json.Marshal(string(raw))
	return q
}

// partialJSON accumulates the streamed text of a JSON object and keeps,
// after every write, the longest valid JSON object it can make of what has
// arrived: complete members, plus an unfinished string or number value,
// with the open containers closed. It scans each byte once.
type partialJSON struct {
	raw []byte
	out []byte // the last partial value, reused

	stack  []byte // open containers: '{' or '['
	expect uint8
	broken bool // not JSON: partial stays at the last safe point
	object bool // the top-level value is an object

	tok      uint8 // token in progress
	strKey   bool  // the string in progress is an object key
	esc      int   // in a string: 1 after '\', 2..5 hex digits of \u left+1
	strSafe  int   // raw length up to the last complete character of the string
	tokStart int   // where the number or literal began
	lit      string

	safeLen, safeDepth int // the last point where raw[:safeLen] + closers is valid
}

// Scanner expectations and tokens of partialJSON.
const (
	pjValue        = iota // a value must come
	pjValueOrClose        // after '['
	pjKeyOrClose          // after '{'
	pjKey                 // after ',' in an object
	pjColon               // after a key
	pjCommaOrClose        // after a value in a container
	pjDone                // the top-level value is complete

	pjNone = iota
	pjString
	pjNumber
	pjLiteral
)

func (p *partialJSON) write(s string) {
	start := len(p.raw)
	p.raw = append(p.raw, s...)
	for i := start; i < len(p.raw) && !p.broken; i++ {
		p.feed(p.raw[i], i)
	}
}

func (p *partialJSON) feed(c byte, i int) {
	switch p.tok {
	case pjString:
		switch {
		case p.esc == 1:
			switch c {
			case 'u':
				p.esc = 5
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.esc = 0
				p.strSafe = i + 1
			default:
				p.broken = true
			}
		case p.esc > 1:
			if !isHexDigit(c) {
				p.broken = true
				return
			}
			if p.esc--; p.esc == 1 {
				p.esc = 0
				p.strSafe = i + 1
			}
		case c == '\\':
			p.esc = 1
		case c == '"':
			p.tok = pjNone
			if p.strKey {
				p.expect = pjColon
			} else {
				p.valueDone(i + 1)
			}
		case c < 0x20:
			p.broken = true
		default:
			p.strSafe = i + 1
		}
		return
	case pjNumber:
		if (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' {
			return
		}
		p.tok = pjNone
		if !json.Valid(p.raw[p.tokStart:i]) {
			p.broken = true
			return
		}
		p.valueDone(i) // and c is structural: go on below
	case pjLiteral:
		n := i - p.tokStart
		if c != p.lit[n] {
			p.broken = true
			return
		}
		if n+1 == len(p.lit) {
			p.tok = pjNone
			p.valueDone(i + 1)
		}
		return
	}
	switch c {
	case ' ', '\t', '\n', '\r':
		return
	}
	switch p.expect {
	case pjValue, pjValueOrClose:
		if p.expect == pjValueOrClose && c == ']' {
			p.pop(i)
			return
		}
		p.startValue(c, i)
	case pjKeyOrClose, pjKey:
		switch {
		case p.expect == pjKeyOrClose && c == '}':
			p.pop(i)
		case c == '"':
			p.tok, p.strKey, p.esc = pjString, true, 0
		default:
			p.broken = true
		}
	case pjColon:
		if c != ':' {
			p.broken = true
			return
		}
		p.expect = pjValue
	case pjCommaOrClose:
		top := p.stack[len(p.stack)-1]
		switch {
		case c == ',' && top == '{':
			p.expect = pjKey
		case c == ',':
			p.expect = pjValue
		case (c == '}' && top == '{') || (c == ']' && top == '['):
			p.pop(i)
		default:
			p.broken = true
		}
	default: // pjDone: nothing may follow
		p.broken = true
	}
}

func (p *partialJSON) startValue(c byte, i int) {
	if len(p.stack) == 0 {
		p.object = c == '{'
	}
	switch {
	case c == '{' || c == '[':
		p.stack = append(p.stack, c)
		p.expect = pjKeyOrClose
		if c == '[' {
			p.expect = pjValueOrClose
		}
		p.safeLen, p.safeDepth = i+1, len(p.stack)
	case c == '"':
		p.tok, p.strKey, p.esc, p.strSafe = pjString, false, 0, i+1
	case c == '-' || (c >= '0' && c <= '9'):
		p.tok, p.tokStart = pjNumber, i
	case c == 't' || c == 'f' || c == 'n':
		p.tok, p.tokStart = pjLiteral, i
		switch c {
		case 't':
			p.lit = "true"
		case 'f':
			p.lit = "false"
		default:
			p.lit = "null"
		}
	default:
		p.broken = true
	}
}

func (p *partialJSON) pop(i int) {
	p.stack = p.stack[:len(p.stack)-1]
	p.valueDone(i + 1)
}

// valueDone records that a value ended at raw[:end].
func (p *partialJSON) valueDone(end int) {
	if len(p.stack) == 0 {
		p.expect = pjDone
	} else {
		p.expect = pjCommaOrClose
	}
	p.safeLen, p.safeDepth = end, len(p.stack)
}

// partial returns the valid JSON object made of what has arrived ({} until
// an object has begun).
func (p *partialJSON) partial() json.RawMessage {
	if !p.object {
		return json.RawMessage(`{}`)
	}
	p.out = p.out[:0]
	depth := p.safeDepth
	switch {
	case p.broken || p.tok == pjNone || p.tok == pjLiteral || (p.tok == pjString && p.strKey):
		p.out = append(p.out, p.raw[:p.safeLen]...)
	case p.tok == pjString:
		p.out = append(p.out, p.raw[:completeUTF8(p.raw, p.strSafe)]...)
		p.out = append(p.out, '"')
		depth = len(p.stack)
	case json.Valid(p.raw[p.tokStart:]): // a number that could end here
		p.out = append(p.out, p.raw...)
		depth = len(p.stack)
	default:
		p.out = append(p.out, p.raw[:p.safeLen]...)
	}
	for j := depth - 1; j >= 0; j-- {
		if p.stack[j] == '{' {
			p.out = append(p.out, '}')
		} else {
			p.out = append(p.out, ']')
		}
	}
	return p.out
}

// completeUTF8 shortens n so that b[:n] does not end inside a UTF-8
// sequence.
func completeUTF8(b []byte, n int) int {
	for k := n - 1; k >= 0 && k >= n-utf8.UTFMax; k-- {
		if utf8.RuneStart(b[k]) {
			if !utf8.FullRune(b[k:n]) {
				return k
			}
			return n
		}
	}
	return n
}

func isHexDigit(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// llmMessage is one message as a provider sends it: the session message
// (read only) with the content and tool-call id transformMessages chose
// for the model. Converters read content and toolCallID, never
// msg.Content or msg.ToolCallID.
type llmMessage struct {
	msg        *session.Message
	content    []session.ContentBlock
	toolCallID string
}

// messageRefs returns the request's messages by reference.
func (r *Request) messageRefs() []*session.Message {
	if r.MessageRefs != nil {
		return r.MessageRefs
	}
	refs := make([]*session.Message, len(r.Messages))
	for i := range r.Messages {
		refs[i] = &r.Messages[i]
	}
	return refs
}

// transformMessages prepares a session's messages for model m as pi's
// transformMessages does. Replies of another model (provider, API or id
// differ) lose what only their model understands: redacted thinking goes,
// other thinking becomes a text block (empty thinking goes), text loses
// its signature, a tool call its thoughtSignature, and its id is rewritten
// by normalizeID (when given) in the call and in its result. Errored and
// aborted replies are dropped; tool calls left without a result get an
// error result "No result provided" (before the next assistant or user
// message, or at the end) so the history is valid for every API. For a
// model that takes no images, the images of user messages and tool
// results become placeholder texts (see withoutImages). msgs is not
// modified.
func transformMessages(msgs []*session.Message, m Model, normalizeID func(string) string) []llmMessage {
	images := m.TakesImages()
	out := make([]llmMessage, 0, len(msgs)+2)
	var idMap map[string]string
	var pending []*session.ContentBlock // the calls of the last reply
	var answered map[string]bool
	flush := func() {
		for _, c := range pending {
			if !answered[c.ID] {
				res := &session.Message{Role: session.RoleToolResult, ToolCallID: c.ID, ToolName: c.Name,
					Content: []session.ContentBlock{{Type: session.BlockText, Text: "No result provided"}}, IsError: true,
					Timestamp: time.Now().UnixMilli()}
				out = append(out, llmMessage{msg: res, content: res.Content, toolCallID: c.ID})
			}
		}
		pending = pending[:0]
		clear(answered)
	}
	for _, msg := range msgs {
		switch msg.Role {
		case session.RoleAssistant:
			content := msg.Content
			if msg.Provider != m.Provider || msg.API != m.API || msg.Model != m.ID {
				// Ids are mapped even in replies dropped below: pi maps them
				// all before it drops any, and their results stay.
				content = foreignContent(content, normalizeID, &idMap)
			}
			flush()
			if msg.StopReason == session.StopError || msg.StopReason == session.StopAborted {
				continue
			}
			for j := range content {
				if content[j].Type == session.BlockToolCall {
					pending = append(pending, &content[j])
				}
			}
			out = append(out, llmMessage{msg: msg, content: content})
		case session.RoleToolResult:
			id := msg.ToolCallID
			if to, ok := idMap[id]; ok {
				id = to
			}
			if answered == nil {
				answered = map[string]bool{}
			}
			answered[id] = true
			content := msg.Content
			if !images {
				content = withoutImages(content, toolImagePlaceholder)
			}
			out = append(out, llmMessage{msg: msg, content: content, toolCallID: id})
		default:
			flush()
			content := msg.Content
			if !images && msg.Role == session.RoleUser && !msg.ContentIsString {
				content = withoutImages(content, userImagePlaceholder)
			}
			out = append(out, llmMessage{msg: msg, content: content})
		}
	}
	flush()
	return out
}

// The texts that stand for images sent to a model that takes none, as
// pi's.
const (
	userImagePlaceholder = "(image omitted: model does not support images)"
	toolImagePlaceholder = "(tool image omitted: model does not support images)"
)

// withoutImages is content with each run of images replaced by one
// placeholder text, as pi's replaceImagesWithPlaceholder: an image right
// after a text equal to the placeholder adds none. Content without images
// is returned as it is (not copied).
func withoutImages(content []session.ContentBlock, placeholder string) []session.ContentBlock {
	if !hasImages(content) {
		return content
	}
	out := make([]session.ContentBlock, 0, len(content))
	after := false // the previous block is (or stands for) a placeholder
	for _, c := range content {
		if c.Type == session.BlockImage {
			if !after {
				out = append(out, session.ContentBlock{Type: session.BlockText, Text: placeholder})
			}
			after = true
			continue
		}
		out = append(out, c)
		after = c.Type == session.BlockText && c.Text == placeholder
	}
	return out
}

// foreignContent rewrites the blocks of another model's reply, as pi does.
func foreignContent(blocks []session.ContentBlock, normalizeID func(string) string, idMap *map[string]string) []session.ContentBlock {
	out := make([]session.ContentBlock, 0, len(blocks))
	for _, c := range blocks {
		switch c.Type {
		case session.BlockThinking:
			if c.Redacted() || strings.TrimSpace(c.Thinking) == "" {
				continue
			}
			out = append(out, session.ContentBlock{Type: session.BlockText, Text: c.Thinking})
		case session.BlockText:
			out = append(out, session.ContentBlock{Type: session.BlockText, Text: c.Text})
		case session.BlockToolCall:
			c.SetThoughtSignature("")
			if normalizeID != nil {
				if id := normalizeID(c.ID); id != c.ID {
					if *idMap == nil {
						*idMap = map[string]string{}
					}
					(*idMap)[c.ID] = id
					c.ID = id
				}
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

// toolIDChars rewrites an id to the characters both Anthropic and OpenAI
// accept (a-z, A-Z, 0-9, '_' and '-'; every other UTF-16 unit becomes
// '_', as pi's regular expression replaces them) and cuts it to max
// characters.
func toolIDChars(id string, max int) string {
	ok := len(id) <= max
	for i := 0; ok && i < len(id); i++ {
		ok = toolIDByte(id[i])
	}
	if ok {
		return id
	}
	b := make([]byte, 0, min(len(id), max))
	for _, r := range id {
		if len(b) >= max {
			break
		}
		switch {
		case r < utf8.RuneSelf && toolIDByte(byte(r)):
			b = append(b, byte(r))
		case r > 0xFFFF: // two UTF-16 units
			b = append(b, '_', '_')
		default:
			b = append(b, '_')
		}
	}
	return string(b[:min(len(b), max)])
}

func toolIDByte(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'
}

// mergedHeaders returns the model's headers overlaid by the request's.
func mergedHeaders(req *Request) map[string]string {
	if len(req.Model.Headers) == 0 {
		return req.Headers
	}
	h := make(map[string]string, len(req.Model.Headers)+len(req.Headers))
	for k, v := range req.Model.Headers {
		h[k] = v
	}
	for k, v := range req.Headers {
		h[k] = v
	}
	return h
}

// sortedKeys returns the keys of a map in order, for deterministic bodies.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// hasImages reports whether content holds an image.
func hasImages(content []session.ContentBlock) bool {
	for _, c := range content {
		if c.Type == session.BlockImage {
			return true
		}
	}
	return false
}

// Transport is how both providers send a request: the SDK's retries and
// lunar's HTTP client with its stall and connect guards. The zero value
// works (no retries, the shared client, the default timeouts).
type Transport struct {
	// MaxRetries is how often a request rejected with 408/409/429/5xx (and
	// Anthropic's 529) or a connection failure is retried by the SDK,
	// honouring retry-after.
	MaxRetries int
	// HTTPClient, if set, sends the requests.
	HTTPClient *http.Client
	// IdleTimeout is how long the service may send nothing, before the
	// response headers (the attempt fails and is retried) or within the
	// stream (the reply ends with an error, keeping what arrived). 0 means
	// IdleTimeoutEnv or DefaultIdleTimeout; negative, no limit.
	IdleTimeout time.Duration
	// ConnectTimeout bounds making a connection; 0 means
	// DefaultConnectTimeout, negative no limit.
	ConnectTimeout time.Duration
}

// retries is MaxRetries as the SDKs take it.
func (t Transport) retries() int { return max(0, t.MaxRetries) }

// client is the HTTP client a request goes through.
func (t Transport) client() *http.Client {
	return guardedClient(t.HTTPClient, idleTimeout(t.IdleTimeout), connectTimeout(t.ConnectTimeout))
}
