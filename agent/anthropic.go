package agent

// This file holds the anthropic-messages provider: streaming messages
// through the official anthropic-sdk-go, with extended thinking (signed and
// redacted blocks round-tripped) and prompt caching.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/lunar-cli/lunar/session"
)

// DefaultAnthropicBaseURL is used by models without a base URL.
const DefaultAnthropicBaseURL = "https://api.anthropic.com"

// ThinkingBudgets are the extended-thinking token budgets per thinking
// level; max_tokens is raised by the budget (up to the model's limit).
var ThinkingBudgets = map[string]int{
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
	// MaxRetries is how often a request rejected with 408/409/429/5xx/529
	// or a connection failure is retried by the SDK (honouring retry-after).
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

// Stream implements Provider.
func (p *AnthropicProvider) Stream(ctx context.Context, req *Request, emit func(StreamEvent)) (*session.Message, error) {
	msg := newAssistantMessage(req.Model)
	b := newStreamBuilder(msg, emit)
	name := providerName(req.Model, "anthropic")

	params, opts := anthropicRequest(req)
	var res *http.Response
	client := guardedClient(p.HTTPClient, idleTimeout(p.IdleTimeout), connectTimeout(p.ConnectTimeout))
	opts = append(opts, option.WithResponseInto(&res), option.WithMaxRetries(max(0, p.MaxRetries)), option.WithHTTPClient(client))
	svc := anthropic.NewMessageService(opts...)
	stream := svc.NewStreaming(ctx, params)
	defer stream.Close()
	if err := stream.Err(); err != nil {
		return msg, b.fail(ctx, withAttempts(anthropicError(name, req.APIKey, err, res, false), p.MaxRetries))
	}
	b.start()

	var usage struct{ input, output, cacheRead, cacheWrite int }
	var stopReason string
	stopped := false
	blocks := map[int64]int{} // stream index → content index
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "message_start":
			msg.ResponseID = ev.Message.ID
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
					Redacted: true}, StreamThinkingStart)
				blocks[ev.Index] = i
			case "tool_use":
				i := b.add(session.ContentBlock{Type: session.BlockToolCall, ID: cb.ID, Name: cb.Name,
					Arguments: json.RawMessage(`{}`)}, StreamToolCallStart)
				blocks[ev.Index] = i
				if raw := cb.JSON.Input.Raw(); raw != "" && raw != "{}" && raw != "null" {
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
				stopReason = string(ev.Delta.StopReason)
			}
			u := &ev.Usage
			if u.JSON.InputTokens.Valid() {
				usage.input = int(u.InputTokens)
			}
			if u.JSON.OutputTokens.Valid() {
				usage.output = int(u.OutputTokens)
			}
			if u.JSON.CacheReadInputTokens.Valid() {
				usage.cacheRead = int(u.CacheReadInputTokens)
			}
			if u.JSON.CacheCreationInputTokens.Valid() {
				usage.cacheWrite = int(u.CacheCreationInputTokens)
			}
			setUsage(msg, req.Model, usage.input, usage.output, usage.cacheRead, usage.cacheWrite)
		case "message_stop":
			stopped = true
		}
	}
	if err := stream.Err(); err != nil {
		return msg, b.fail(ctx, anthropicError(name, req.APIKey, err, nil, true))
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

// anthropicError turns an SDK error into a ProviderError: an HTTP error
// response, an error event in the stream (the SDK reports it as an API
// error with the stream's 200 status), or a transport failure.
func anthropicError(name, apiKey string, err error, res *http.Response, inStream bool) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if res != nil && res.StatusCode >= 400 {
		return provHTTPError(name, apiKey, res, err)
	}
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		if apiErr.StatusCode >= 400 && apiErr.Response != nil {
			return provHTTPError(name, apiKey, apiErr.Response, err)
		}
		return provStreamError(name, apiKey, []byte(apiErr.RawJSON()), err)
	}
	return provTransportError(name, apiKey, err, inStream)
}

// anthropicRequest builds the request body and options for req.
func anthropicRequest(req *Request) (anthropic.MessageNewParams, []option.RequestOption) {
	m := req.Model
	base := m.BaseURL
	if base == "" {
		base = DefaultAnthropicBaseURL
	}
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
	cache := anthropic.NewCacheControlEphemeralParam()
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(m.ID),
		MaxTokens: int64(maxTokens),
		Messages:  anthropicMessages(transformMessages(req.Messages, m, anthropicToolID)),
	}
	if req.SystemPrompt != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.SystemPrompt, CacheControl: cache}}
	}
	if n := len(params.Messages); n > 0 && params.Messages[n-1].Role == anthropic.MessageParamRoleUser {
		if blocks := params.Messages[n-1].Content; len(blocks) > 0 {
			last := &blocks[len(blocks)-1]
			switch {
			case last.OfText != nil:
				last.OfText.CacheControl = cache
			case last.OfImage != nil:
				last.OfImage.CacheControl = cache
			case last.OfToolResult != nil:
				last.OfToolResult.CacheControl = cache
			}
		}
	}
	for _, t := range req.Tools {
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: anthropicTool(t)})
	}
	switch {
	case adaptive: // the model decides how much to think; the level sets the effort
		params.Thinking = anthropic.ThinkingConfigParamUnion{OfAdaptive: &anthropic.ThinkingConfigAdaptiveParam{}}
		effort := anthropic.OutputConfigEffort(req.Params.ThinkingLevel)
		if req.Params.ThinkingLevel == ThinkingMinimal {
			effort = anthropic.OutputConfigEffortLow
		}
		params.OutputConfig = anthropic.OutputConfigParam{Effort: effort}
	case budget > 0:
		params.Thinking = anthropic.ThinkingConfigParamUnion{OfEnabled: &anthropic.ThinkingConfigEnabledParam{BudgetTokens: int64(budget)}}
	default:
		// The API rejects temperature and top_p with thinking.
		if t := req.Params.Temperature; t != nil {
			params.Temperature = anthropic.Float(*t)
		}
		if t := req.Params.TopP; t != nil {
			params.TopP = anthropic.Float(*t)
		}
	}

	opts := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithBaseURL(base), option.WithAPIKey(req.APIKey)}
	if budget > 0 {
		opts = append(opts, option.WithHeaderAdd("anthropic-beta", "interleaved-thinking-2025-05-14"))
	}
	headers := mergedHeaders(req)
	for _, k := range sortedKeys(headers) {
		opts = append(opts, option.WithHeader(k, headers[k]))
	}
	for _, k := range sortedKeys(req.Params.Extra) {
		opts = append(opts, option.WithJSONSet(sjsonKey(k), req.Params.Extra[k]))
	}
	return params, opts
}

// anthropicAdaptive reports whether a model takes adaptive thinking
// (with an effort) instead of a token budget, which it deprecates.
func anthropicAdaptive(id string) bool {
	return strings.Contains(id, "opus-4-6") || strings.Contains(id, "opus-4.6") || strings.Contains(id, "mythos")
}

// anthropicTool converts a tool spec: input_schema carries the schema's
// properties and required list, and its other keywords as they are.
func anthropicTool(t ToolSpec) *anthropic.ToolParam {
	tp := &anthropic.ToolParam{Name: t.Name}
	if t.Description != "" {
		tp.Description = anthropic.String(t.Description)
	}
	var schema map[string]json.RawMessage
	_ = json.Unmarshal(t.Parameters, &schema)
	tp.InputSchema.Properties = json.RawMessage(`{}`)
	if p, ok := schema["properties"]; ok {
		tp.InputSchema.Properties = p
	}
	if r, ok := schema["required"]; ok {
		_ = json.Unmarshal(r, &tp.InputSchema.Required)
	}
	for k, v := range schema {
		if k == "type" || k == "properties" || k == "required" {
			continue
		}
		if tp.InputSchema.ExtraFields == nil {
			tp.InputSchema.ExtraFields = map[string]any{}
		}
		tp.InputSchema.ExtraFields[k] = v
	}
	return tp
}

// anthropicToolIDChars matches what Anthropic does not accept in a tool id.
var anthropicToolIDChars = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// anthropicToolID makes another provider's tool-call id acceptable:
// ^[a-zA-Z0-9_-]+$, at most 64 characters.
func anthropicToolID(id string) string {
	id = anthropicToolIDChars.ReplaceAllString(id, "_")
	if len(id) > 64 {
		id = id[:64]
	}
	return id
}

// anthropicMessages converts transformed session messages; consecutive
// tool results become one user message.
func anthropicMessages(msgs []session.Message) []anthropic.MessageParam {
	var out []anthropic.MessageParam
	for i := 0; i < len(msgs); i++ {
		msg := &msgs[i]
		switch msg.Role {
		case session.RoleUser:
			var blocks []anthropic.ContentBlockParamUnion
			for _, c := range msg.Content {
				switch {
				case c.Type == session.BlockText && strings.TrimSpace(c.Text) != "":
					blocks = append(blocks, anthropic.NewTextBlock(c.Text))
				case c.Type == session.BlockImage:
					blocks = append(blocks, anthropic.NewImageBlockBase64(c.MimeType, c.Data))
				}
			}
			if len(blocks) > 0 {
				out = append(out, anthropic.NewUserMessage(blocks...))
			}
		case session.RoleAssistant:
			var blocks []anthropic.ContentBlockParamUnion
			for _, c := range msg.Content {
				switch c.Type {
				case session.BlockText:
					if strings.TrimSpace(c.Text) != "" {
						blocks = append(blocks, anthropic.NewTextBlock(c.Text))
					}
				case session.BlockThinking:
					switch {
					case c.Redacted:
						if c.ThinkingSignature != "" {
							blocks = append(blocks, anthropic.NewRedactedThinkingBlock(c.ThinkingSignature))
						}
					case strings.TrimSpace(c.Thinking) == "":
					case strings.TrimSpace(c.ThinkingSignature) == "": // unsigned (e.g. aborted): plain text
						blocks = append(blocks, anthropic.NewTextBlock(c.Thinking))
					default:
						blocks = append(blocks, anthropic.NewThinkingBlock(c.ThinkingSignature, c.Thinking))
					}
				case session.BlockToolCall:
					input := json.RawMessage(`{}`)
					if len(c.Arguments) > 0 && c.Arguments[0] == '{' {
						input = c.Arguments
					}
					blocks = append(blocks, anthropic.NewToolUseBlock(c.ID, input, c.Name))
				}
			}
			if len(blocks) > 0 {
				out = append(out, anthropic.NewAssistantMessage(blocks...))
			}
		case session.RoleToolResult:
			var blocks []anthropic.ContentBlockParamUnion
			for ; i < len(msgs) && msgs[i].Role == session.RoleToolResult; i++ {
				blocks = append(blocks, anthropicToolResult(&msgs[i]))
			}
			i--
			out = append(out, anthropic.NewUserMessage(blocks...))
		}
	}
	return out
}

// anthropicToolResult converts one tool result: its text, or text and
// images (with a placeholder text when there is none).
func anthropicToolResult(msg *session.Message) anthropic.ContentBlockParamUnion {
	tr := anthropic.ToolResultBlockParam{ToolUseID: msg.ToolCallID, IsError: anthropic.Bool(msg.IsError)}
	if !hasImages(msg.Content) {
		tr.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: blockText(msg.Content, "\n")}}}
		return anthropic.ContentBlockParamUnion{OfToolResult: &tr}
	}
	if blockText(msg.Content, "") == "" {
		tr.Content = append(tr.Content, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: "(see attached image)"}})
	}
	for _, c := range msg.Content {
		switch c.Type {
		case session.BlockText:
			if c.Text != "" {
				tr.Content = append(tr.Content, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: c.Text}})
			}
		case session.BlockImage:
			tr.Content = append(tr.Content, anthropic.ToolResultBlockParamContentUnion{OfImage: &anthropic.ImageBlockParam{
				Source: anthropic.ImageBlockParamSourceUnion{OfBase64: &anthropic.Base64ImageSourceParam{Data: c.Data,
					MediaType: anthropic.Base64ImageSourceMediaType(c.MimeType)}}}})
		}
	}
	return anthropic.ContentBlockParamUnion{OfToolResult: &tr}
}
