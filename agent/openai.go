package agent

// This file holds the openai-completions provider: streaming chat
// completions through the official openai-go SDK, for OpenAI and every
// OpenAI-compatible service (Ollama, OpenRouter, Groq, Gemini, xAI,
// DeepSeek, Mistral, llama.cpp, ...).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/lunar-cli/lunar/session"
)

// DefaultOpenAIBaseURL is used by models without a base URL.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

// OpenAIProvider streams replies from the chat completions API. The zero
// value works (no retries, a shared HTTP client).
//
// Thinking arrives as reasoning_content (DeepSeek, llama.cpp) or reasoning
// (OpenRouter) deltas and becomes thinking blocks whose ThinkingSignature
// names that field, so it can be sent back the same way.
type OpenAIProvider struct {
	Transport
	// MaxRetryDelay caps the wait between retries; 0 keeps the SDK's
	// limits (retry-after up to 2 minutes, backoff up to 8 s). Only the
	// OpenAI SDK has this option; the Anthropic SDK's limits are fixed.
	MaxRetryDelay time.Duration
}

// Stream implements Provider.
func (p *OpenAIProvider) Stream(ctx context.Context, req *Request, emit func(StreamEvent)) (*session.Message, error) {
	msg := newAssistantMessage(req.Model)
	b := newStreamBuilder(msg, emit)
	name := providerName(req.Model, "openai")

	body, opts, err := openAIRequest(req)
	if err != nil {
		if pe, ok := errors.AsType[*ProviderError](err); ok {
			pe.Provider = name
		}
		return msg, b.fail(ctx, err)
	}
	var res *http.Response
	opts = append(opts, option.WithResponseInto(&res), option.WithMaxRetries(p.retries()), option.WithHTTPClient(p.client()))
	if p.MaxRetryDelay > 0 {
		opts = append(opts, option.WithMaxRetryDelay(p.MaxRetryDelay))
	}
	raw, mws := body.prepare(ctx, req, endpoint(openAIServiceOf(req.Model).base, "chat/completions"))
	for _, mw := range mws {
		opts = append(opts, option.WithMiddleware(mw))
	}
	// The body is lunar's own (see body.go); the SDK sends it, retries it
	// and parses the stream exactly as its NewStreaming would.
	var httpRes *http.Response
	client := openai.Client{Options: opts}
	sdkCtx, refused, release := noLocalRetries(ctx)
	defer release()
	err = client.Execute(sdkCtx, http.MethodPost, "chat/completions", raw, &httpRes)
	events := ssestream.NewDecoder(httpRes)
	if events != nil {
		defer events.Close()
	}
	if err != nil {
		if rerr := refused(); rerr != nil { // a local server that is not running: no retries
			return msg, b.fail(ctx, provTransportError(name, requestSecrets(req), rerr, false))
		}
		return msg, b.fail(ctx, withAttempts(openAIError(name, requestSecrets(req), err, res, false), p.MaxRetries))
	}
	b.start()

	var finish string
	tools := map[int64]int{} // tool_calls index → content index
	var streamErr error
	for chunk := range openAIChunks(events, &streamErr) {
		if msg.ResponseID() == "" && chunk.ID != "" {
			msg.SetResponseID(chunk.ID)
		}
		if chunk.Usage != nil {
			openAIUsage(msg, req.Model, chunk.Usage)
		}
		if len(chunk.Choices) == 0 {
			continue
		}
		choice := &chunk.Choices[0]
		if choice.FinishReason != "" {
			finish = choice.FinishReason
		}
		d := &choice.Delta
		for _, r := range [...]struct{ field, text string }{{"reasoning_content", d.ReasoningContent}, {"reasoning", d.Reasoning}, {"", d.Content.thinking}} {
			field, text := r.field, r.text
			if text == "" {
				continue
			}
			i := b.open
			if i < 0 || msg.Content[i].Type != session.BlockThinking {
				i = b.add(session.ContentBlock{Type: session.BlockThinking, ThinkingSignature: field}, StreamThinkingStart)
			}
			b.thinking(i, text)
		}
		for _, text := range [...]string{d.Content.text, d.Refusal} { // a refusal is the model's answer too
			if text == "" {
				continue
			}
			i := b.open
			if i < 0 || msg.Content[i].Type != session.BlockText {
				i = b.add(session.ContentBlock{Type: session.BlockText}, StreamTextStart)
			}
			b.text(i, text)
		}
		for k := range d.ToolCalls {
			tc := &d.ToolCalls[k]
			i, seen := tools[tc.Index]
			if !seen || (tc.ID != "" && msg.Content[i].ID != "" && tc.ID != msg.Content[i].ID) {
				i = b.add(session.ContentBlock{Type: session.BlockToolCall, ID: tc.ID, Name: tc.Function.Name,
					Arguments: json.RawMessage(`{}`)}, StreamToolCallStart)
				tools[tc.Index] = i
			} else if i != b.open && !b.blocks[i].ended {
				b.endOpen()
				b.open = i
			}
			if tc.ID != "" {
				msg.Content[i].ID = tc.ID
			}
			if tc.Function.Name != "" {
				msg.Content[i].Name = tc.Function.Name
			}
			b.toolArgs(i, tc.Function.Arguments) // an empty delta too, as pi reports every chunk
		}
		if d.ReasoningDetails != nil {
			openAIReasoningDetails(msg, d.ReasoningDetails)
		}
	}
	if streamErr != nil {
		return msg, b.fail(ctx, openAIError(name, requestSecrets(req), streamErr, nil, true))
	}
	if ctx.Err() != nil {
		return msg, b.fail(ctx, ctx.Err())
	}
	if finish == "" {
		return msg, b.fail(ctx, &ProviderError{Provider: name, Stream: true, Message: "the stream ended before the reply was complete"})
	}
	b.endAll()
	switch finish {
	case "length":
		msg.StopReason = session.StopLength
	case "tool_calls", "function_call":
		msg.StopReason = session.StopToolUse
	case "content_filter":
		return msg, b.fail(ctx, &ProviderError{Provider: name, Stream: true, Type: "content_filter",
			Message: "the reply was stopped by the content filter"})
	default:
		msg.StopReason = session.StopStop
	}
	if msg.StopReason == session.StopStop && b.hasToolCalls() {
		msg.StopReason = session.StopToolUse // some services say "stop" after tool calls
	}
	return msg, nil
}

// openAIReasoningDetails keeps OpenRouter's encrypted reasoning of a tool
// call as its thoughtSignature, as pi does, so that it goes back with the
// call (see reasoningDetail).
func openAIReasoningDetails(msg *session.Message, raw json.RawMessage) {
	var details []json.RawMessage
	if json.Unmarshal(raw, &details) != nil {
		return
	}
	for _, d := range details {
		var head struct {
			Type string `json:"type"`
			ID   string `json:"id"`
			Data string `json:"data"`
		}
		if json.Unmarshal(d, &head) != nil || head.Type != "reasoning.encrypted" || head.ID == "" || head.Data == "" {
			continue
		}
		for i := range msg.Content {
			if c := &msg.Content[i]; c.Type == session.BlockToolCall && c.ID == head.ID {
				c.SetThoughtSignature(string(compactJSON(d)))
				break
			}
		}
	}
}

// openAIUsage records a usage chunk: prompt_tokens include cached (and
// cache-written) tokens, which are reported apart; completion_tokens
// already include reasoning tokens.
func openAIUsage(msg *session.Message, m Model, u *openAIChunkUsage) {
	cacheRead := int(u.PromptTokensDetails.CachedTokens)
	if cacheRead == 0 { // DeepSeek reports cache hits at the top level
		cacheRead = int(u.PromptCacheHitTokens)
	}
	cacheWrite := int(u.PromptTokensDetails.CacheWriteTokens)
	input := max(0, int(u.PromptTokens)-cacheRead-cacheWrite)
	setUsage(msg, m, input, int(u.CompletionTokens), cacheRead, cacheWrite)
}

// openAIChunk is what lunar reads of a chat completion chunk: the SDK's
// ChatCompletionChunk models every field of every service and builds its
// decoders by reflection on first use, which cost every one-shot run
// ~1.5 ms before the first token; this is decoded by encoding/json.
// Fields some services add (reasoning_content, reasoning,
// reasoning_details, prompt_cache_hit_tokens) are fields here, not extra
// fields read back from raw JSON.
type openAIChunk struct {
	ID      string            `json:"id"`
	Choices []openAIChoice    `json:"choices"`
	Usage   *openAIChunkUsage `json:"usage"`
	Error   json.RawMessage   `json:"error"` // an error event
}

type openAIChoice struct {
	FinishReason string      `json:"finish_reason"`
	Delta        openAIDelta `json:"delta"`
}

type openAIDelta struct {
	Content          openAIContent   `json:"content"`
	Refusal          string          `json:"refusal"`
	ReasoningContent string          `json:"reasoning_content"` // DeepSeek, vLLM, llama.cpp
	Reasoning        string          `json:"reasoning"`         // OpenRouter, Ollama
	ReasoningDetails json.RawMessage `json:"reasoning_details"` // OpenRouter
	ToolCalls        []struct {
		Index    int64  `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type openAIChunkUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails struct {
		CachedTokens     int64 `json:"cached_tokens"`
		CacheWriteTokens int64 `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
	PromptCacheHitTokens int64 `json:"prompt_cache_hit_tokens"` // DeepSeek
}

// openAIContent is a delta's content: a string, or, from Mistral's
// reasoning models, a list of parts: {"type":"text","text":…} and
// {"type":"thinking","thinking":[{"type":"text","text":…}]}. Their
// thinking becomes a thinking block without a signature (not sent back,
// as no field carries it). Anything else is left empty.
type openAIContent struct{ text, thinking string }

func (c *openAIContent) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		return json.Unmarshal(data, &c.text)
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Thinking []struct {
			Text string `json:"text"`
		} `json:"thinking"`
	}
	if json.Unmarshal(data, &parts) != nil {
		return nil
	}
	for _, p := range parts {
		switch p.Type {
		case "text":
			c.text += p.Text
		case "thinking":
			for _, t := range p.Thinking {
				c.thinking += t.Text
			}
		}
	}
	return nil
}

// openAIChunks yields the chunks of a stream as the SDK's stream did,
// each decoded by one call of encoding/json (see unmarshalLenient) into
// one reused chunk. The SDK's stream first looked for an "error" field
// with a scan of its own and then decoded the chunk into a type whose own
// UnmarshalJSON decoded it again: encoding/json read each chunk four
// times, and the whole five. An error event or malformed JSON ends the
// stream and is left in *errp, as is a failure to read it.
func openAIChunks(events ssestream.Decoder, errp *error) iter.Seq[*openAIChunk] {
	return func(yield func(*openAIChunk) bool) {
		if events == nil {
			return
		}
		var chunk openAIChunk
		for events.Next() {
			ev := events.Event()
			if bytes.HasPrefix(ev.Data, []byte("[DONE]")) {
				return
			}
			chunk = openAIChunk{} // nothing of the last chunk is kept (a json.RawMessage would be written over)
			if err := unmarshalLenient(ev.Data, &chunk); err != nil {
				*errp = err
				return
			}
			if chunk.Error != nil { // even null, as the SDK had it
				var text string
				if json.Unmarshal(chunk.Error, &text) != nil {
					text = string(chunk.Error)
				}
				*errp = &ssestream.StreamError{Message: "received error while streaming: " + text, Event: ev}
				return
			}
			if !yield(&chunk) {
				return
			}
		}
		*errp = events.Err()
	}
}

// unmarshalLenient is json.Unmarshal that keeps what it could decode when
// a field has an unexpected type (encoding/json decodes the rest and
// reports the first such field), as the SDKs' types did: a field of an
// unexpected type is left empty and the rest is kept; malformed JSON is
// still an error.
func unmarshalLenient(data []byte, v any) error {
	err := json.Unmarshal(data, v)
	if _, ok := err.(*json.UnmarshalTypeError); ok {
		return nil
	}
	return err
}

// openAIError turns an SDK error into a ProviderError: an HTTP error
// response (res, or the SDK's own error), an error event in the stream, or
// a transport failure (inStream: after the response began).
func openAIError(name string, secrets []string, err error, res *http.Response, inStream bool) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if res != nil && res.StatusCode >= 400 {
		return provHTTPError(name, secrets, res, err)
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) && apiErr.StatusCode >= 400 {
		if apiErr.Response != nil {
			return provHTTPError(name, secrets, apiErr.Response, err)
		}
		typ := apiErr.Code
		if typ == "" {
			typ = apiErr.Type
		}
		return &ProviderError{Provider: name, StatusCode: apiErr.StatusCode, Type: typ, Message: provRedact(provOneLine(apiErr.Message), secrets), Err: err}
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		return provStreamError(name, secrets, se.Event.Data, err)
	}
	return provTransportError(name, secrets, err, inStream)
}

// openAIService is how a service's chat completions differ from OpenAI's,
// told from the provider name and base URL as pi's detectCompat tells it.
// lunar sends store, the developer role and max_completion_tokens to
// OpenAI only (pi sends them to every service it does not know as
// non-standard: some compatible services reject them).
type openAIService struct {
	base       string
	official   bool // OpenAI itself
	mistral    bool // nine-character tool ids, tool names in results, no reasoning fields
	deepseek   bool // a thinking switch; every assistant message carries reasoning_content
	openrouter bool // reasoning: {effort}
	noEffort   bool // xAI takes no reasoning_effort
}

func openAIServiceOf(m Model) openAIService {
	base := m.BaseURL
	if base == "" {
		base = DefaultOpenAIBaseURL
	}
	return openAIService{
		base:       base,
		official:   m.Provider == "openai" || strings.Contains(base, "api.openai.com"),
		mistral:    m.Provider == "mistral" || strings.Contains(base, "mistral.ai"),
		deepseek:   m.Provider == "deepseek" || strings.Contains(base, "deepseek.com"),
		openrouter: m.Provider == "openrouter" || strings.Contains(base, "openrouter.ai"),
		noEffort:   m.Provider == "xai" || strings.Contains(base, "api.x.ai"),
	}
}

// openAIToolID is pi's tool-call id normalisation for chat completions,
// applied to other models' calls: an OpenAI Responses id "call_X|fc_Y"
// becomes its call id in the characters OpenAI accepts, at most 40 long;
// OpenAI's own provider gets ids cut to 40.
func openAIToolID(provider string) func(string) string {
	return func(id string) string {
		if callID, _, ok := strings.Cut(id, "|"); ok {
			return toolIDChars(callID, 40)
		}
		if provider == "openai" {
			return utf16Prefix(id, 40)
		}
		return id
	}
}

// openAIRequest builds the request body and options for req.
func openAIRequest(req *Request) (*requestBody, []option.RequestOption, error) {
	if err := checkExtra(req.Params.Extra); err != nil {
		return nil, nil, err
	}
	m := req.Model
	svc := openAIServiceOf(m)
	normalize := openAIToolID(m.Provider)
	if svc.mistral {
		normalize = mistralToolID
	}
	msgs := transformMessages(req.messageRefs(), m, normalize)
	body := &requestBody{estimate: estimateBody(req, msgs), encode: func(w *jsonWriter) {
		svc.encode(w, req, msgs)
	}}
	opts := []option.RequestOption{option.WithBaseURL(svc.base), option.WithAPIKey(req.APIKey)}
	headers := mergedHeaders(req)
	for _, k := range sortedKeys(headers) {
		opts = append(opts, option.WithHeader(k, headers[k]))
	}
	return body, opts, nil
}

// encode writes the request body: pi's convertMessages and buildParams
// for this service.
func (svc openAIService) encode(w *jsonWriter, req *Request, msgs []llmMessage) {
	m := req.Model
	o := w.object(req.Params.Extra)
	if o.key("model") {
		w.str(m.ID)
	}
	if o.key("messages") {
		w.raw("[")
		svc.messages(w, req, msgs)
		w.raw("]")
	}
	if o.key("stream") {
		w.raw("true")
	}
	if req.SessionID != "" && strings.Contains(svc.base, "api.openai.com") && o.key("prompt_cache_key") {
		w.str(req.SessionID)
	}
	if o.key("stream_options") {
		w.raw(`{"include_usage":true}`)
	}
	if svc.official && o.key("store") {
		w.raw("false")
	}
	if n := req.Params.MaxTokens; n > 0 {
		field := "max_tokens"
		if svc.official {
			field = "max_completion_tokens"
		}
		if o.key(field) {
			w.int(int64(n))
		}
	}
	if t := req.Params.Temperature; t != nil && o.key("temperature") {
		w.float(*t)
	}
	if t := req.Params.TopP; t != nil && o.key("top_p") {
		w.float(*t)
	}
	if len(req.Tools) > 0 && o.key("tools") {
		w.raw("[")
		for i, t := range req.Tools {
			if i > 0 {
				w.raw(",")
			}
			w.raw(`{"type":"function","function":{"name":`)
			w.str(t.Name)
			if t.Description != "" {
				w.raw(`,"description":`)
				w.str(t.Description)
			}
			w.raw(`,"parameters":`)
			if len(t.Parameters) == 0 {
				w.raw(`{"type":"object","properties":{}}`)
			} else {
				w.rawJSON(compactJSON(t.Parameters))
			}
			w.raw("}}")
		}
		w.raw("]")
	}
	effort := openAIEffort(m, req.Params.ThinkingLevel)
	switch {
	case !m.Reasoning:
	case svc.deepseek:
		if o.key("thinking") {
			if effort != "" {
				w.raw(`{"type":"enabled"}`)
			} else {
				w.raw(`{"type":"disabled"}`)
			}
		}
		if effort != "" && o.key("reasoning_effort") {
			w.str(effort)
		}
	case svc.openrouter:
		if effort == "" {
			effort = "none"
		}
		if o.key("reasoning") {
			w.raw(`{"effort":`)
			w.str(effort)
			w.raw("}")
		}
	case svc.noEffort:
	case effort != "":
		if o.key("reasoning_effort") {
			w.str(effort)
		}
	}
	o.end()
}

// messages writes the system prompt and the conversation.
func (svc openAIService) messages(w *jsonWriter, req *Request, msgs []llmMessage) {
	n := 0
	sep := func() {
		if n > 0 {
			w.raw(",")
		}
		n++
		w.flush(false)
	}
	if req.SystemPrompt != "" {
		sep()
		if svc.official && req.Model.Reasoning {
			w.raw(`{"role":"developer","content":`)
		} else {
			w.raw(`{"role":"system","content":`)
		}
		w.text(req.SystemPrompt)
		w.raw("}")
	}
	for i := 0; i < len(msgs); i++ {
		lm := &msgs[i]
		switch lm.msg.Role {
		case session.RoleUser:
			if lm.msg.ContentIsString {
				sep()
				w.raw(`{"role":"user","content":`)
				w.text(firstText(lm.content))
				w.raw("}")
				continue
			}
			if countParts(lm.content) == 0 {
				continue
			}
			sep()
			w.raw(`{"role":"user","content":[`)
			w.parts(lm.content, 0, openAIImage)
			w.raw("]}")
		case session.RoleAssistant:
			if !openAIHasAssistant(lm.content) {
				continue
			}
			sep()
			svc.assistant(w, req.Model, lm.content)
		case session.RoleToolResult:
			// All results of a turn come first, then one user message with
			// their images: a tool message holds text only, and OpenAI wants
			// the results right after the calls.
			j := i
			images := false
			for ; j < len(msgs) && msgs[j].msg.Role == session.RoleToolResult; j++ {
				r := &msgs[j]
				sep()
				w.raw(`{"role":"tool","content":`)
				if joinedLen(r.content) > 0 {
					w.joinedText(r.content, `\n`, true)
				} else {
					w.raw(`"(see attached image)"`)
				}
				w.raw(`,"tool_call_id":`)
				w.str(r.toolCallID)
				if svc.mistral && r.msg.ToolName != "" {
					w.raw(`,"name":`)
					w.str(r.msg.ToolName)
				}
				w.raw("}")
				images = images || hasImages(r.content)
			}
			if images {
				sep()
				w.raw(`{"role":"user","content":[{"type":"text","text":"Attached image(s) from tool result:"}`)
				for _, r := range msgs[i:j] {
					for _, c := range r.content {
						if c.Type == session.BlockImage {
							w.raw(",")
							openAIImage(w, c)
						}
					}
				}
				w.raw("]}")
			}
			i = j - 1
		}
	}
}

// openAIEffort maps a thinking level to reasoning_effort for reasoning
// models ("" = leave the service's default). "minimal" exists only for
// the gpt-5 family; others get "low".
func openAIEffort(m Model, level ThinkingLevel) string {
	if !m.Reasoning {
		return ""
	}
	switch level {
	case ThinkingMinimal:
		if strings.Contains(m.ID, "gpt-5") {
			return "minimal"
		}
		return "low"
	case ThinkingLow, ThinkingMedium, ThinkingHigh:
		return string(level)
	}
	return ""
}

// reasoningField reports whether a thinking signature is one the provider
// writes (a delta field name), so nothing else is sent back as a field.
func reasoningField(sig string) bool {
	return sig == "reasoning" || sig == "reasoning_content" || sig == "reasoning_text"
}

// openAIHasAssistant reports whether an assistant message is sent: pi
// leaves out one with neither text (after removing lone surrogates) nor
// tool calls.
func openAIHasAssistant(content []session.ContentBlock) bool {
	for i := range content {
		c := &content[i]
		switch c.Type {
		case session.BlockToolCall:
			return true
		case session.BlockText:
			if !isJSBlank(c.Text) && sanitizedLen(c.Text) > 0 {
				return true
			}
		}
	}
	return false
}

// assistant writes an assistant message as pi does: the non-blank text
// blocks joined with nothing between them (null when there is none), the
// model's own reasoning under the field it came in, the tool calls, and
// the reasoning details of signed tool calls.
func (svc openAIService) assistant(w *jsonWriter, m Model, content []session.ContentBlock) {
	w.raw(`{"role":"assistant","content":`)
	texts := 0
	for i := range content {
		if c := &content[i]; c.Type == session.BlockText && !isJSBlank(c.Text) {
			texts += sanitizedLen(c.Text)
		}
	}
	if texts == 0 {
		w.raw("null")
	} else {
		w.raw(`"`)
		for i := range content {
			if c := &content[i]; c.Type == session.BlockText && !isJSBlank(c.Text) {
				w.buf = appendJSONBody(w.buf, c.Text, true)
			}
		}
		w.raw(`"`)
	}
	field := ""
	first := true
	for i := range content {
		if c := &content[i]; c.Type == session.BlockThinking && !isJSBlank(c.Thinking) {
			if first && !svc.mistral && reasoningField(c.ThinkingSignature) {
				field = c.ThinkingSignature
			}
			first = false
		}
	}
	if field != "" {
		w.raw(",")
		w.str(field)
		w.raw(`:"`)
		k := 0
		for i := range content {
			if c := &content[i]; c.Type == session.BlockThinking && !isJSBlank(c.Thinking) {
				if k++; k > 1 {
					w.raw(`\n`)
				}
				w.buf = appendJSONBody(w.buf, c.Thinking, false)
			}
		}
		w.raw(`"`)
	}
	calls, details := 0, 0
	for i := range content {
		c := &content[i]
		if c.Type != session.BlockToolCall {
			continue
		}
		if calls++; calls == 1 {
			w.raw(`,"tool_calls":[`)
		} else {
			w.raw(",")
		}
		w.raw(`{"id":`)
		w.str(c.ID)
		w.raw(`,"type":"function","function":{"name":`)
		w.str(c.Name)
		w.raw(`,"arguments":`)
		w.arguments(c.Arguments)
		w.raw("}}")
		if reasoningDetail(c.ThoughtSignature()) != nil {
			details++
		}
	}
	if calls > 0 {
		w.raw("]")
	}
	if details > 0 {
		w.raw(`,"reasoning_details":[`)
		k := 0
		for i := range content {
			if c := &content[i]; c.Type == session.BlockToolCall {
				if d := reasoningDetail(c.ThoughtSignature()); d != nil {
					if k++; k > 1 {
						w.raw(",")
					}
					w.rawJSON(d)
				}
			}
		}
		w.raw("]")
	}
	if svc.deepseek && m.Reasoning && field != "reasoning_content" {
		w.raw(`,"reasoning_content":""`)
	}
	w.raw("}")
}

// reasoningDetail is a tool call's thoughtSignature as pi sends it back in
// reasoning_details (OpenRouter's encrypted reasoning): the JSON it holds,
// or nil when it holds none or a falsy value.
func reasoningDetail(sig string) []byte {
	if sig == "" || !json.Valid([]byte(sig)) {
		return nil
	}
	var v any
	if json.Unmarshal([]byte(sig), &v) != nil {
		return nil
	}
	switch x := v.(type) {
	case nil:
		return nil
	case bool:
		if !x {
			return nil
		}
	case float64:
		if x == 0 {
			return nil
		}
	case string:
		if x == "" {
			return nil
		}
	}
	return compactJSON([]byte(sig))
}

// openAIImage writes an image content part.
func openAIImage(w *jsonWriter, c session.ContentBlock) {
	w.raw(`{"type":"image_url","image_url":{"url":`)
	w.str(dataURI(c))
	w.raw("}}")
}

// argumentText is the arguments string sent back for a tool call: the JSON
// object as JSON.stringify writes it, or the raw text the model produced
// when it was not valid JSON.
func argumentText(args json.RawMessage) string {
	if len(args) > 0 && args[0] == '"' {
		var s string
		if json.Unmarshal(args, &s) == nil {
			return s
		}
	}
	if len(args) == 0 {
		return "{}"
	}
	return string(compactJSON(args))
}

// dataURI is an image block as a data: URI.
func dataURI(c session.ContentBlock) string {
	return "data:" + c.MimeType() + ";base64," + c.Data()
}

// mistralToolID makes a tool-call id Mistral accepts: exactly nine
// letters and digits, derived from the original.
func mistralToolID(id string) string {
	var b strings.Builder
	for _, r := range id {
		if (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if len(s) >= 9 {
		return s[:9]
	}
	return s + "ABCDEFGHI"[:9-len(s)]
}
