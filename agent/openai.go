package agent

// This file holds the openai-completions provider: streaming chat
// completions through the official openai-go SDK, for OpenAI and every
// OpenAI-compatible service (Ollama, OpenRouter, Groq, Gemini, xAI,
// DeepSeek, Mistral, llama.cpp, ...).

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

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
	// MaxRetries is how often a request rejected with 408/409/429/5xx or a
	// connection failure is retried by the SDK (honouring retry-after).
	MaxRetries int
	// MaxRetryDelay caps the wait between retries; 0 keeps the SDK's
	// limits (retry-after up to 2 minutes, backoff up to 8 s).
	MaxRetryDelay time.Duration
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
func (p *OpenAIProvider) Stream(ctx context.Context, req *Request, emit func(StreamEvent)) (*session.Message, error) {
	msg := newAssistantMessage(req.Model)
	b := newStreamBuilder(msg, emit)
	name := providerName(req.Model, "openai")

	params, opts := openAIRequest(req)
	var res *http.Response
	opts = append(opts, option.WithResponseInto(&res), option.WithMaxRetries(max(0, p.MaxRetries)))
	if p.MaxRetryDelay > 0 {
		opts = append(opts, option.WithMaxRetryDelay(p.MaxRetryDelay))
	}
	opts = append(opts, option.WithHTTPClient(guardedClient(p.HTTPClient, idleTimeout(p.IdleTimeout), connectTimeout(p.ConnectTimeout))))
	svc := openai.NewChatCompletionService(opts...)
	stream := svc.NewStreaming(ctx, params)
	defer stream.Close()
	if err := stream.Err(); err != nil {
		return msg, b.fail(ctx, withAttempts(openAIError(name, req.APIKey, err, res, false), p.MaxRetries))
	}
	b.start()

	var finish string
	tools := map[int64]int{} // tool_calls index → content index
	for stream.Next() {
		chunk := stream.Current()
		if msg.ResponseID == "" && chunk.ID != "" {
			msg.ResponseID = chunk.ID
		}
		if chunk.JSON.Usage.Valid() {
			openAIUsage(msg, req.Model, &chunk.Usage)
		}
		if len(chunk.Choices) == 0 {
			continue
		}
		choice := &chunk.Choices[0]
		if choice.FinishReason != "" {
			finish = choice.FinishReason
		}
		d := &choice.Delta
		for _, field := range [...]string{"reasoning_content", "reasoning"} {
			f, ok := d.JSON.ExtraFields[field] // extra fields are never Valid(): read the raw JSON
			if !ok || len(f.Raw()) < 3 || f.Raw()[0] != '"' {
				continue
			}
			var text string
			if json.Unmarshal([]byte(f.Raw()), &text) != nil || text == "" {
				continue
			}
			i := b.open
			if i < 0 || msg.Content[i].Type != session.BlockThinking {
				i = b.add(session.ContentBlock{Type: session.BlockThinking, ThinkingSignature: field}, StreamThinkingStart)
			}
			b.thinking(i, text)
		}
		for _, text := range [...]string{d.Content, d.Refusal} { // a refusal is the model's answer too
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
			if tc.Function.Arguments != "" {
				b.toolArgs(i, tc.Function.Arguments)
			}
		}
	}
	if err := stream.Err(); err != nil {
		return msg, b.fail(ctx, openAIError(name, req.APIKey, err, nil, true))
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

// openAIUsage records a usage chunk: prompt_tokens include cached (and
// cache-written) tokens, which are reported apart; completion_tokens
// already include reasoning tokens.
func openAIUsage(msg *session.Message, m Model, u *openai.CompletionUsage) {
	cacheRead := int(u.PromptTokensDetails.CachedTokens)
	if cacheRead == 0 { // DeepSeek reports cache hits at the top level
		if f, ok := u.JSON.ExtraFields["prompt_cache_hit_tokens"]; ok {
			_ = json.Unmarshal([]byte(f.Raw()), &cacheRead)
		}
	}
	cacheWrite := int(u.PromptTokensDetails.CacheWriteTokens)
	input := max(0, int(u.PromptTokens)-cacheRead-cacheWrite)
	setUsage(msg, m, input, int(u.CompletionTokens), cacheRead, cacheWrite)
}

// openAIError turns an SDK error into a ProviderError: an HTTP error
// response (res, or the SDK's own error), an error event in the stream, or
// a transport failure (inStream: after the response began).
func openAIError(name, apiKey string, err error, res *http.Response, inStream bool) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if res != nil && res.StatusCode >= 400 {
		return provHTTPError(name, apiKey, res, err)
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) && apiErr.StatusCode >= 400 {
		if apiErr.Response != nil {
			return provHTTPError(name, apiKey, apiErr.Response, err)
		}
		typ := apiErr.Code
		if typ == "" {
			typ = apiErr.Type
		}
		return &ProviderError{Provider: name, StatusCode: apiErr.StatusCode, Type: typ, Message: provRedact(provOneLine(apiErr.Message), apiKey), Err: err}
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		return provStreamError(name, apiKey, se.Event.Data, err)
	}
	return provTransportError(name, apiKey, err, inStream)
}

// openAIRequest builds the request body and options for req.
func openAIRequest(req *Request) (openai.ChatCompletionNewParams, []option.RequestOption) {
	m := req.Model
	base := m.BaseURL
	if base == "" {
		base = DefaultOpenAIBaseURL
	}
	official := m.Provider == "openai" || strings.Contains(base, "api.openai.com")
	mistral := m.Provider == "mistral" || strings.Contains(base, "mistral.ai")

	params := openai.ChatCompletionNewParams{
		Model:         shared.ChatModel(m.ID),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if req.SystemPrompt != "" {
		if official && m.Reasoning {
			params.Messages = append(params.Messages, openai.DeveloperMessage(req.SystemPrompt))
		} else {
			params.Messages = append(params.Messages, openai.SystemMessage(req.SystemPrompt))
		}
	}
	var normalize func(string) string
	if mistral {
		normalize = mistralToolID
	}
	for _, msg := range transformMessages(req.Messages, m, normalize) {
		params.Messages = append(params.Messages, openAIMessages(&msg, mistral)...)
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fn.Description = openai.String(t.Description)
		}
		schema := t.Parameters
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		fn.SetExtraFields(map[string]any{"parameters": schema})
		params.Tools = append(params.Tools, openai.ChatCompletionToolUnionParam{OfFunction: &openai.ChatCompletionFunctionToolParam{Function: fn}})
	}
	if n := req.Params.MaxTokens; n > 0 {
		if official {
			params.MaxCompletionTokens = openai.Int(int64(n))
		} else {
			params.MaxTokens = openai.Int(int64(n))
		}
	}
	if t := req.Params.Temperature; t != nil {
		params.Temperature = openai.Float(*t)
	}
	if t := req.Params.TopP; t != nil {
		params.TopP = openai.Float(*t)
	}
	if effort := openAIEffort(m, req.Params.ThinkingLevel); effort != "" && m.Provider != "xai" && !strings.Contains(base, "api.x.ai") {
		params.ReasoningEffort = shared.ReasoningEffort(effort)
	}
	if official {
		params.Store = openai.Bool(false)
	}

	opts := []option.RequestOption{option.WithBaseURL(base), option.WithAPIKey(req.APIKey)}
	headers := mergedHeaders(req)
	for _, k := range sortedKeys(headers) {
		opts = append(opts, option.WithHeader(k, headers[k]))
	}
	for _, k := range sortedKeys(req.Params.Extra) {
		opts = append(opts, option.WithJSONSet(sjsonKey(k), req.Params.Extra[k]))
	}
	return params, opts
}

// openAIEffort maps a thinking level to reasoning_effort for reasoning
// models ("" = leave the service's default). "minimal" exists only for
// the gpt-5 family; others get "low".
func openAIEffort(m Model, level string) string {
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
		return level
	}
	return ""
}

// reasoningField matches the thinking signatures the provider writes
// (delta field names), so nothing else is sent back as a field.
var reasoningField = regexp.MustCompile(`^reasoning(_content|_text)?$`)

// openAIMessages converts one session message (already transformed for
// the model) into chat messages.
func openAIMessages(msg *session.Message, mistral bool) []openai.ChatCompletionMessageParamUnion {
	switch msg.Role {
	case session.RoleUser:
		if !hasImages(msg.Content) {
			text := blockText(msg.Content, "\n")
			if text == "" {
				return nil
			}
			return []openai.ChatCompletionMessageParamUnion{openai.UserMessage(text)}
		}
		var parts []openai.ChatCompletionContentPartUnionParam
		for _, c := range msg.Content {
			switch c.Type {
			case session.BlockText:
				parts = append(parts, openai.TextContentPart(c.Text))
			case session.BlockImage:
				parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: dataURI(c)}))
			}
		}
		return []openai.ChatCompletionMessageParamUnion{openai.UserMessage(parts)}

	case session.RoleAssistant:
		var a openai.ChatCompletionAssistantMessageParam
		if text := blockText(msg.Content, "\n"); text != "" {
			a.Content.OfString = openai.String(text)
		}
		var thinking []string
		field := ""
		for _, c := range msg.Content {
			switch c.Type {
			case session.BlockThinking:
				if field == "" && reasoningField.MatchString(c.ThinkingSignature) {
					field = c.ThinkingSignature
				}
				thinking = append(thinking, c.Thinking)
			case session.BlockToolCall:
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: c.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: argumentText(c.Arguments)}}})
			}
		}
		if field != "" && !mistral {
			a.SetExtraFields(map[string]any{field: strings.Join(thinking, "\n")})
		}
		if a.Content.OfString.Valid() || len(a.ToolCalls) > 0 {
			return []openai.ChatCompletionMessageParamUnion{{OfAssistant: &a}}
		}
		return nil

	case session.RoleToolResult:
		text := blockText(msg.Content, "\n")
		images := hasImages(msg.Content)
		if text == "" && images {
			text = "(see attached image)"
		}
		tm := openai.ChatCompletionToolMessageParam{ToolCallID: msg.ToolCallID}
		tm.Content.OfString = openai.String(text)
		if mistral && msg.ToolName != "" {
			tm.SetExtraFields(map[string]any{"name": msg.ToolName})
		}
		out := []openai.ChatCompletionMessageParamUnion{{OfTool: &tm}}
		if images { // tool messages carry text only: images follow as a user message
			parts := []openai.ChatCompletionContentPartUnionParam{openai.TextContentPart("Attached image(s) from tool result:")}
			for _, c := range msg.Content {
				if c.Type == session.BlockImage {
					parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: dataURI(c)}))
				}
			}
			out = append(out, openai.UserMessage(parts))
		}
		return out
	}
	return nil
}

// argumentText is the arguments string sent back for a tool call: the JSON
// object, or the raw text the model produced when it was not valid JSON.
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
	return string(args)
}

// dataURI is an image block as a data: URI.
func dataURI(c session.ContentBlock) string {
	return "data:" + c.MimeType + ";base64," + c.Data
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
