package agent

// This file holds the anthropic-messages provider: streaming messages
// through the official anthropic-sdk-go, with extended thinking (signed and
// redacted blocks round-tripped) and prompt caching.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/ssestream"

	"github.com/lunar-cli/lunar/session"
)

// DefaultAnthropicBaseURL is used by models without a base URL.
const DefaultAnthropicBaseURL = "https://api.anthropic.com"

// ThinkingBudgets are the extended-thinking token budgets per thinking
// level; max_tokens is raised by the budget (up to the model's limit).
var ThinkingBudgets = map[ThinkingLevel]int{
	ThinkingMinimal: 1024,
	ThinkingLow:     2048,
	ThinkingMedium:  8192,
	ThinkingHigh:    16384,
}

// redactedThinking is the text pi stores for a redacted thinking block.
const redactedThinking = "[Reasoning redacted]"

// AnthropicProvider streams replies from the Anthropic messages API. The
// zero value works (no retries, a shared HTTP client).
//
// The system prompt and the last user message carry cache_control
// (ephemeral). A redacted_thinking block becomes a thinking block with
// Redacted set and its data in ThinkingSignature; both kinds go back to the
// same model as they came.
type AnthropicProvider struct {
	Transport
}

// Stream implements Provider.
func (p *AnthropicProvider) Stream(ctx context.Context, req *Request, emit func(StreamEvent)) (*session.Message, error) {
	msg := newAssistantMessage(req.Model)
	b := newStreamBuilder(msg, emit)
	name := providerName(req.Model, "anthropic")

	body, opts, err := anthropicRequest(req)
	if err != nil {
		if pe, ok := errors.AsType[*ProviderError](err); ok {
			pe.Provider = name
		}
		return msg, b.fail(ctx, err)
	}
	var res *http.Response
	opts = append(opts, option.WithResponseInto(&res), option.WithMaxRetries(p.retries()), option.WithHTTPClient(p.client()))
	raw, mws := body.prepare(ctx, req, endpoint(anthropicBase(req.Model), "v1/messages"))
	for _, mw := range mws {
		opts = append(opts, option.WithMiddleware(mw))
	}
	// The body is lunar's own (see body.go); the SDK sends it, retries it
	// and parses the stream exactly as its NewStreaming would.
	var httpRes *http.Response
	sdk := anthropic.Client{Options: opts}
	sdkCtx, refused, release := noLocalRetries(ctx)
	defer release()
	err = sdk.Execute(sdkCtx, http.MethodPost, "v1/messages", raw, &httpRes)
	events := ssestream.NewDecoder(httpRes)
	if events != nil {
		defer events.Close()
	}
	if err != nil {
		if rerr := refused(); rerr != nil { // a local server that is not running: no retries
			return msg, b.fail(ctx, provTransportError(name, requestSecrets(req), rerr, false))
		}
		return msg, b.fail(ctx, withAttempts(anthropicError(name, requestSecrets(req), err, res, false), p.MaxRetries))
	}
	b.start()

	var usage struct{ input, output, cacheRead, cacheWrite int }
	var stopReason string
	stopped := false
	blocks := map[int64]int{} // stream index → content index
	var streamErr error
	for ev := range anthropicEvents(events, &streamErr) {
		switch ev.Type {
		case "message_start":
			msg.SetResponseID(ev.Message.ID)
			u := &ev.Message.Usage
			usage.input, usage.output = int(u.InputTokens), int(u.OutputTokens)
			usage.cacheRead, usage.cacheWrite = int(u.CacheReadInputTokens), int(u.CacheCreationInputTokens)
			setUsage(msg, req.Model, usage.input, usage.output, usage.cacheRead, usage.cacheWrite)
		case "content_block_start":
			cb := &ev.ContentBlock
			switch cb.Type {
			case "text":
				i := b.add(session.ContentBlock{Type: session.BlockText}, StreamTextStart)
				blocks[ev.Index] = i
				if cb.Text != "" {
					b.text(i, cb.Text)
				}
			case "thinking":
				i := b.add(session.ContentBlock{Type: session.BlockThinking, ThinkingSignature: cb.Signature}, StreamThinkingStart)
				blocks[ev.Index] = i
				if cb.Thinking != "" {
					b.thinking(i, cb.Thinking)
				}
			case "redacted_thinking":
				i := b.add(session.ContentBlock{Type: session.BlockThinking, Thinking: redactedThinking, ThinkingSignature: cb.Data,
					Extra: &session.BlockExtra{Redacted: true}}, StreamThinkingStart)
				blocks[ev.Index] = i
			case "tool_use":
				i := b.add(session.ContentBlock{Type: session.BlockToolCall, ID: cb.ID, Name: cb.Name,
					Arguments: json.RawMessage(`{}`)}, StreamToolCallStart)
				blocks[ev.Index] = i
				if raw := string(cb.Input); raw != "" && raw != "{}" && raw != "null" {
					b.blocks[i].args.write(raw) // a proxy that sends the whole input up front
				}
			}
		case "content_block_delta":
			i, ok := blocks[ev.Index]
			if !ok {
				continue
			}
			d := &ev.Delta
			switch d.Type {
			case "text_delta":
				b.text(i, d.Text)
			case "thinking_delta":
				b.thinking(i, d.Thinking)
			case "signature_delta":
				msg.Content[i].ThinkingSignature += d.Signature
			case "input_json_delta":
				if d.PartialJSON == "" {
					b.event(StreamToolCallDelta, i, "") // as pi reports every chunk; an up-front input stays
					continue
				}
				if s := &b.blocks[i]; s.deltas == 0 && len(s.args.raw) > 0 {
					s.args = partialJSON{} // deltas replace an up-front input
				}
				b.toolArgs(i, d.PartialJSON)
			}
		case "content_block_stop":
			if i, ok := blocks[ev.Index]; ok {
				b.end(i)
			}
		case "message_delta":
			if ev.Delta.StopReason != "" {
				stopReason = ev.Delta.StopReason
			}
			u := &ev.Usage
			for _, f := range [...]struct {
				from *int64
				to   *int
			}{{u.InputTokens, &usage.input}, {u.OutputTokens, &usage.output}, {u.CacheReadInputTokens, &usage.cacheRead}, {u.CacheCreationInputTokens, &usage.cacheWrite}} {
				if f.from != nil { // a count the delta does not give stays as it was
					*f.to = int(*f.from)
				}
			}
			setUsage(msg, req.Model, usage.input, usage.output, usage.cacheRead, usage.cacheWrite)
		case "message_stop":
			stopped = true
		}
	}
	if streamErr != nil {
		return msg, b.fail(ctx, anthropicError(name, requestSecrets(req), streamErr, nil, true))
	}
	if ctx.Err() != nil {
		return msg, b.fail(ctx, ctx.Err())
	}
	if !stopped {
		return msg, b.fail(ctx, &ProviderError{Provider: name, Stream: true, Message: "the stream ended before message_stop"})
	}
	b.endAll()
	switch stopReason {
	case "max_tokens", "model_context_window_exceeded":
		msg.StopReason = session.StopLength
	case "tool_use":
		msg.StopReason = session.StopToolUse
	case "refusal", "sensitive":
		return msg, b.fail(ctx, &ProviderError{Provider: name, Stream: true, Type: stopReason,
			Message: "the model declined to continue"})
	default: // end_turn, stop_sequence, pause_turn
		msg.StopReason = session.StopStop
	}
	return msg, nil
}

// anthropicEvent is what lunar reads of a stream event: the SDK's
// MessageStreamEventUnion models every event and block type and builds
// its decoders by reflection on first use (a one-shot run paid that
// before its first token); this is decoded by encoding/json.
type anthropicEvent struct {
	Type    string `json:"type"`
	Index   int64  `json:"index"`
	Message struct {
		ID    string `json:"id"`
		Usage struct {
			InputTokens              int64 `json:"input_tokens"`
			OutputTokens             int64 `json:"output_tokens"`
			CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
			CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
		} `json:"usage"`
	} `json:"message"` // message_start
	ContentBlock struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		Signature string          `json:"signature"`
		Data      string          `json:"data"` // redacted_thinking
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"content_block"` // content_block_start
	Delta struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"` // message_delta
	} `json:"delta"`
	Usage struct { // message_delta: nil when the delta does not give a count
		InputTokens              *int64 `json:"input_tokens"`
		OutputTokens             *int64 `json:"output_tokens"`
		CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
		CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
	} `json:"usage"`
}

// anthropicEvents yields the events of a stream as the SDK's stream did
// (pings and empty events skipped), each decoded by one call of
// encoding/json into one reused event, where the SDK's stream decoded it
// into a type whose own UnmarshalJSON decoded it again (see
// openAIChunks). An error event or malformed JSON ends the stream and is
// left in *errp, as is a failure to read it.
func anthropicEvents(events ssestream.Decoder, errp *error) iter.Seq[*anthropicEvent] {
	return func(yield func(*anthropicEvent) bool) {
		if events == nil {
			return
		}
		var ev anthropicEvent
		for events.Next() {
			e := events.Event()
			switch e.Type {
			case "ping", "":
				continue
			case "error":
				*errp = &anthropicStreamError{data: e.Data}
				return
			}
			if len(bytes.TrimSuffix(e.Data, []byte("\n"))) == 0 {
				continue
			}
			ev = anthropicEvent{} // nothing of the last event is kept (a json.RawMessage would be written over)
			if err := unmarshalLenient(e.Data, &ev); err != nil {
				*errp = err
				return
			}
			if !yield(&ev) {
				return
			}
		}
		*errp = events.Err()
	}
}

// anthropicStreamError is an error event of a stream; data is its error
// body.
type anthropicStreamError struct{ data []byte }

func (e *anthropicStreamError) Error() string {
	return "received error while streaming: " + string(e.data)
}

// anthropicError turns an SDK error into a ProviderError: an HTTP error
// response, an error event in the stream (the SDK reports it as an API
// error with the stream's 200 status), or a transport failure.
func anthropicError(name string, secrets []string, err error, res *http.Response, inStream bool) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if res != nil && res.StatusCode >= 400 {
		return provHTTPError(name, secrets, res, err)
	}
	var se *anthropicStreamError
	if errors.As(err, &se) {
		return provStreamError(name, secrets, se.data, err)
	}
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		if apiErr.StatusCode >= 400 && apiErr.Response != nil {
			return provHTTPError(name, secrets, apiErr.Response, err)
		}
		return provStreamError(name, secrets, []byte(apiErr.RawJSON()), err)
	}
	return provTransportError(name, secrets, err, inStream)
}

// anthropicBase is the base URL of m's service.
func anthropicBase(m Model) string {
	if m.BaseURL == "" {
		return DefaultAnthropicBaseURL
	}
	return m.BaseURL
}

// anthropicRequest builds the request body and options for req.
func anthropicRequest(req *Request) (*requestBody, []option.RequestOption, error) {
	if err := checkExtra(req.Params.Extra); err != nil {
		return nil, nil, err
	}
	m := req.Model
	base := anthropicBase(m)
	maxTokens := req.Params.MaxTokens
	if maxTokens <= 0 {
		maxTokens = min(m.MaxTokens, 32000)
		if maxTokens <= 0 {
			maxTokens = 8192
		}
	}
	budget := 0
	if m.Reasoning {
		budget = ThinkingBudgets[req.Params.ThinkingLevel]
	}
	adaptive := budget > 0 && anthropicAdaptive(m.ID)
	if budget > 0 && !adaptive {
		maxTokens += budget
		if m.MaxTokens > 0 {
			maxTokens = min(maxTokens, m.MaxTokens)
		}
		if maxTokens <= budget { // leave room for the answer
			budget = maxTokens - 1024
		}
		if budget < 1024 { // below the API's minimum: no thinking
			budget = 0
		}
	}
	msgs := transformMessages(req.messageRefs(), m, anthropicToolID)
	ar := &anthropicBody{req: req, msgs: msgs, maxTokens: maxTokens, budget: budget, adaptive: adaptive}
	body := &requestBody{estimate: estimateBody(req, msgs), encode: ar.encode}

	opts := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithBaseURL(base), option.WithAPIKey(req.APIKey)}
	if budget > 0 && !adaptive { // adaptive thinking interleaves by itself
		opts = append(opts, option.WithHeaderAdd("anthropic-beta", "interleaved-thinking-2025-05-14"))
	}
	headers := mergedHeaders(req)
	for _, k := range sortedKeys(headers) {
		opts = append(opts, option.WithHeader(k, headers[k]))
	}
	return body, opts, nil
}

// anthropicBody is what one request body is encoded from.
type anthropicBody struct {
	req       *Request
	msgs      []llmMessage
	maxTokens int
	budget    int
	adaptive  bool
}

// cacheControl marks a prompt-cache breakpoint (pi's default retention).
const cacheControl = `"cache_control":{"type":"ephemeral"}`

// encode writes the request body: pi's buildParams and convertMessages.
// The system prompt, the last tool and the last block of a final user
// message are cache breakpoints.
func (ab *anthropicBody) encode(w *jsonWriter) {
	req, m := ab.req, ab.req.Model
	o := w.object(req.Params.Extra)
	if o.key("model") {
		w.str(m.ID)
	}
	if o.key("messages") {
		w.raw("[")
		ab.messages(w)
		w.raw("]")
	}
	if o.key("max_tokens") {
		w.int(int64(ab.maxTokens))
	}
	if o.key("stream") {
		w.raw("true")
	}
	if req.SystemPrompt != "" && o.key("system") {
		w.raw(`[{"type":"text","text":`)
		w.text(req.SystemPrompt)
		w.raw("," + cacheControl + "}]")
	}
	thinking := ab.budget > 0
	if !thinking { // the API rejects temperature and top_p with thinking
		if t := req.Params.Temperature; t != nil && o.key("temperature") {
			w.float(*t)
		}
		if t := req.Params.TopP; t != nil && o.key("top_p") {
			w.float(*t)
		}
	}
	if len(req.Tools) > 0 && o.key("tools") {
		w.raw("[")
		for i, t := range req.Tools {
			if i > 0 {
				w.raw(",")
			}
			anthropicTool(w, t, i == len(req.Tools)-1)
		}
		w.raw("]")
	}
	switch {
	case !m.Reasoning:
	case ab.adaptive: // the model decides how much to think; the level sets the effort
		if o.key("thinking") {
			w.raw(`{"type":"adaptive","display":"summarized"}`)
		}
		effort := req.Params.ThinkingLevel
		if effort == ThinkingMinimal {
			effort = ThinkingLow
		}
		if o.key("output_config") {
			w.raw(`{"effort":`)
			w.str(string(effort))
			w.raw("}")
		}
	case thinking:
		if o.key("thinking") {
			w.raw(`{"type":"enabled","budget_tokens":`)
			w.int(int64(ab.budget))
			w.raw(`,"display":"summarized"}`)
		}
	default:
		if o.key("thinking") {
			w.raw(`{"type":"disabled"}`)
		}
	}
	o.end()
}

// anthropicAdaptive reports whether a model takes adaptive thinking
// (with an effort) instead of a token budget, which it deprecates.
func anthropicAdaptive(id string) bool {
	for _, s := range []string{"opus-4-6", "opus-4.6", "opus-4-7", "opus-4.7", "sonnet-4-6", "sonnet-4.6", "mythos"} {
		if strings.Contains(id, s) {
			return true
		}
	}
	return false
}

// anthropicTool writes a tool: input_schema carries the schema's
// properties and required list, and its other keywords as they are.
func anthropicTool(w *jsonWriter, t ToolSpec, last bool) {
	w.raw(`{"name":`)
	w.str(t.Name)
	if t.Description != "" {
		w.raw(`,"description":`)
		w.str(t.Description)
	}
	w.raw(`,"input_schema":{"type":"object","properties":`)
	var schema map[string]json.RawMessage
	_ = json.Unmarshal(t.Parameters, &schema)
	if p, ok := schema["properties"]; ok {
		w.rawJSON(compactJSON(p))
	} else {
		w.raw("{}")
	}
	if r, ok := schema["required"]; ok {
		w.raw(`,"required":`)
		w.rawJSON(compactJSON(r))
	}
	for _, k := range sortedKeys(schema) {
		if k == "type" || k == "properties" || k == "required" {
			continue
		}
		w.raw(",")
		w.str(k)
		w.raw(":")
		w.rawJSON(compactJSON(schema[k]))
	}
	w.raw("}")
	if last {
		w.raw("," + cacheControl)
	}
	w.raw("}")
}

// anthropicToolID makes another provider's tool-call id acceptable, as
// pi does: ^[a-zA-Z0-9_-]+$, at most 64 characters.
func anthropicToolID(id string) string { return toolIDChars(id, 64) }

// messages writes the conversation as pi's convertMessages does:
// consecutive tool results become one user message; blank text is left
// out; a message left with nothing is not sent.
func (ab *anthropicBody) messages(w *jsonWriter) {
	msgs := ab.msgs
	// The last message sent gets the cache breakpoint when it is a user
	// message: find it first.
	last := -1
find:
	for i := len(msgs) - 1; i >= 0; i-- {
		switch lm := &msgs[i]; lm.msg.Role {
		case session.RoleUser:
			if anthropicUserSent(lm) {
				last = i
				break find
			}
		case session.RoleAssistant:
			if anthropicAssistantSent(lm.content) {
				break find // the conversation ends with the model: no breakpoint
			}
		case session.RoleToolResult:
			last = i
			break find
		}
	}
	n := 0
	sep := func() {
		if n > 0 {
			w.raw(",")
		}
		n++
		w.flush(false)
	}
	for i := 0; i < len(msgs); i++ {
		lm := &msgs[i]
		switch lm.msg.Role {
		case session.RoleUser:
			if !anthropicUserSent(lm) {
				continue
			}
			sep()
			cache := i == last
			if lm.msg.ContentIsString {
				if cache {
					w.raw(`{"role":"user","content":[{"type":"text","text":`)
					w.text(firstText(lm.content))
					w.raw("," + cacheControl + "}]}")
				} else {
					w.raw(`{"role":"user","content":`)
					w.text(firstText(lm.content))
					w.raw("}")
				}
				continue
			}
			w.raw(`{"role":"user","content":[`)
			k, count := 0, anthropicUserBlocks(lm.content)
			for _, c := range lm.content {
				switch {
				case c.Type == session.BlockText && !isJSBlank(sanitizeText(c.Text)):
					if k++; k > 1 {
						w.raw(",")
					}
					w.raw(`{"type":"text","text":`)
					w.text(c.Text)
				case c.Type == session.BlockImage:
					if k++; k > 1 {
						w.raw(",")
					}
					anthropicImage(w, c)
				default:
					continue
				}
				if cache && k == count {
					w.raw("," + cacheControl)
				}
				w.raw("}")
			}
			w.raw("]}")
		case session.RoleAssistant:
			if !anthropicAssistantSent(lm.content) {
				continue
			}
			sep()
			anthropicAssistant(w, lm.content)
		case session.RoleToolResult:
			sep()
			w.raw(`{"role":"user","content":[`)
			j := i
			for ; j < len(msgs) && msgs[j].msg.Role == session.RoleToolResult; j++ {
				if j > i {
					w.raw(",")
				}
				anthropicToolResult(w, &msgs[j], j == last)
			}
			w.raw("]}")
			i = j - 1
		}
	}
}

// anthropicUserSent reports whether pi sends a user message: a string
// that is not blank, or at least one image or non-blank text block.
func anthropicUserSent(lm *llmMessage) bool {
	if lm.msg.ContentIsString {
		return !isJSBlank(firstText(lm.content))
	}
	return anthropicUserBlocks(lm.content) > 0
}

// anthropicUserBlocks counts the blocks pi sends of a user message's
// content: images, and text that is not blank once lone surrogates are
// removed.
func anthropicUserBlocks(content []session.ContentBlock) int {
	n := 0
	for i := range content {
		c := &content[i]
		if c.Type == session.BlockImage || (c.Type == session.BlockText && !isJSBlank(sanitizeText(c.Text))) {
			n++
		}
	}
	return n
}

// anthropicAssistantSent reports whether an assistant message has a block
// pi sends.
func anthropicAssistantSent(content []session.ContentBlock) bool {
	for i := range content {
		c := &content[i]
		switch c.Type {
		case session.BlockText:
			if !isJSBlank(c.Text) {
				return true
			}
		case session.BlockThinking:
			if c.Redacted() || !isJSBlank(c.Thinking) {
				return true
			}
		case session.BlockToolCall:
			return true
		}
	}
	return false
}

// anthropicAssistant writes an assistant message: text, thinking with its
// signature (unsigned thinking, as from an aborted stream, as text),
// redacted thinking with its data, and tool calls.
func anthropicAssistant(w *jsonWriter, content []session.ContentBlock) {
	w.raw(`{"role":"assistant","content":[`)
	k := 0
	sep := func() {
		if k++; k > 1 {
			w.raw(",")
		}
	}
	for i := range content {
		c := &content[i]
		switch c.Type {
		case session.BlockText:
			if isJSBlank(c.Text) {
				continue
			}
			sep()
			w.raw(`{"type":"text","text":`)
			w.text(c.Text)
			w.raw("}")
		case session.BlockThinking:
			switch {
			case c.Redacted():
				sep()
				w.raw(`{"type":"redacted_thinking","data":`)
				w.str(c.ThinkingSignature)
				w.raw("}")
			case isJSBlank(c.Thinking):
			case isJSBlank(c.ThinkingSignature):
				sep()
				w.raw(`{"type":"text","text":`)
				w.text(c.Thinking)
				w.raw("}")
			default:
				sep()
				w.raw(`{"type":"thinking","thinking":`)
				w.text(c.Thinking)
				w.raw(`,"signature":`)
				w.str(c.ThinkingSignature)
				w.raw("}")
			}
		case session.BlockToolCall:
			sep()
			w.raw(`{"type":"tool_use","id":`)
			w.str(c.ID)
			w.raw(`,"name":`)
			w.str(c.Name)
			w.raw(`,"input":`)
			if len(c.Arguments) > 0 && c.Arguments[0] == '{' {
				w.rawJSON(compactJSON(c.Arguments))
			} else {
				w.raw("{}")
			}
			w.raw("}")
		}
	}
	w.raw("]}")
}

// anthropicToolResult writes one tool result as pi does: its text blocks
// joined by newlines as a string; with images, its blocks in order, after
// a placeholder text when it has no text block.
func anthropicToolResult(w *jsonWriter, lm *llmMessage, cache bool) {
	w.raw(`{"type":"tool_result","tool_use_id":`)
	w.str(lm.toolCallID)
	w.raw(`,"content":`)
	if !hasImages(lm.content) {
		w.joinedText(lm.content, `\n`, true)
	} else {
		w.raw("[")
		k := 0
		if !hasText(lm.content) {
			w.raw(`{"type":"text","text":"(see attached image)"}`)
			k++
		}
		w.parts(lm.content, k, func(w *jsonWriter, c session.ContentBlock) {
			anthropicImage(w, c)
			w.raw("}")
		})
		w.raw("]")
	}
	w.raw(`,"is_error":`)
	w.bool(lm.msg.IsError)
	if cache {
		w.raw("," + cacheControl)
	}
	w.raw("}")
}

// anthropicImage writes an image block without its closing brace.
func anthropicImage(w *jsonWriter, c session.ContentBlock) {
	w.raw(`{"type":"image","source":{"type":"base64","media_type":`)
	w.str(c.MimeType())
	w.raw(`,"data":`)
	w.str(c.Data())
	w.raw("}")
}

// hasText reports whether content holds a text block.
func hasText(content []session.ContentBlock) bool {
	for i := range content {
		if content[i].Type == session.BlockText {
			return true
		}
	}
	return false
}
