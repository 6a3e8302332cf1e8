package llmtest

// This file renders replies as OpenAI chat completions: SSE "data:" chunks
// ending in [DONE], and errors as the OpenAI API sends them.

import (
	"fmt"
	"net/http"
)

// openAIFinish maps a script finish reason to OpenAI's finish_reason.
func openAIFinish(reason string) string {
	if reason == "toolUse" {
		return "tool_calls"
	}
	return reason
}

func (t *turn) openAI() {
	if p, ok := t.errorPart(); ok {
		t.openAIError(p)
		return
	}
	id := fmt.Sprintf("chatcmpl-llmtest-%d", t.n)
	t.startStream("X-Request-Id", fmt.Sprintf("req_llmtest_%d", t.n))

	includeUsage := t.req.Field("stream_options.include_usage") == true
	head := `{"id":` + jsonString(id) + `,"object":"chat.completion.chunk","created":` + itoa(1700000000+t.n) +
		`,"model":` + jsonString(t.model()) + `,"system_fingerprint":"fp_llmtest","choices":[{"index":0,"delta":`
	tail := `,"logprobs":null,"finish_reason":null}]`
	if includeUsage {
		tail += `,"usage":null`
	}
	tail += `}`
	chunk := func(delta string) {
		t.event("", []byte(head+delta+tail))
	}

	chunk(`{"role":"assistant","content":"","refusal":null}`)
	tools := 0
	for _, p := range t.reply.Parts {
		switch p.Type {
		case PartText:
			for _, f := range fragments(p.Text, p.Fragments, true) {
				t.generated += len(f)
				chunk(`{"content":` + jsonString(f) + `}`)
			}
		case PartThinking:
			field := p.ReasoningField
			if field == "" {
				field = "reasoning_content"
			}
			for _, f := range fragments(p.Text, p.Fragments, true) {
				t.generated += len(f)
				chunk(`{"` + field + `":` + jsonString(f) + `}`)
			}
		case PartToolCall:
			callID := p.ID
			if callID == "" {
				callID = fmt.Sprintf("call_llmtest_%d_%d", t.n, tools)
			}
			idx := itoa(tools)
			tools++
			chunk(`{"tool_calls":[{"index":` + idx + `,"id":` + jsonString(callID) + `,"type":"function","function":{"name":` + jsonString(p.Name) + `,"arguments":""}}]}`)
			for _, f := range fragments(p.argumentText(), p.Fragments, false) {
				t.generated += len(f)
				chunk(`{"tool_calls":[{"index":` + idx + `,"function":{"arguments":` + jsonString(f) + `}}]}`)
			}
		case PartStreamError:
			typ, msg := p.ErrorType, p.Text
			if typ == "" {
				typ = "server_error"
			}
			if msg == "" {
				msg = "The server had an error while processing your request. Sorry about that!"
			}
			t.event("", []byte(`{"error":{"message":`+jsonString(msg)+`,"type":`+jsonString(typ)+`,"param":null,"code":null}}`))
			return
		case PartDisconnect:
			t.disconnect()
		case PartHang:
			t.hang()
			return
		case PartPause:
			if !t.pause() {
				return
			}
		}
	}
	final := `{"id":` + jsonString(id) + `,"object":"chat.completion.chunk","created":` + itoa(1700000000+t.n) +
		`,"model":` + jsonString(t.model()) + `,"system_fingerprint":"fp_llmtest","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":` +
		jsonString(openAIFinish(t.finish())) + `}]`
	if includeUsage {
		final += `,"usage":null`
	}
	t.event("", []byte(final+`}`))
	if includeUsage {
		u := t.usage()
		prompt := u.Input + u.CacheRead + u.CacheWrite
		t.event("", []byte(`{"id":`+jsonString(id)+`,"object":"chat.completion.chunk","created":`+itoa(1700000000+t.n)+
			`,"model":`+jsonString(t.model())+`,"system_fingerprint":"fp_llmtest","choices":[],"usage":{"prompt_tokens":`+itoa(prompt)+
			`,"completion_tokens":`+itoa(u.Output)+`,"total_tokens":`+itoa(prompt+u.Output)+
			`,"prompt_tokens_details":{"cached_tokens":`+itoa(u.CacheRead)+`,"cache_write_tokens":`+itoa(u.CacheWrite)+`,"audio_tokens":0}`+
			`,"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`))
	}
	t.event("", []byte("[DONE]"))
}

// openAIError writes an HTTP error as the OpenAI API does.
func (t *turn) openAIError(p Part) {
	status, typ, code, param, msg := p.Status, "invalid_request_error", "null", "null", p.Text
	if p.Type == PartContextOverflow {
		status, code, param = http.StatusBadRequest, `"context_length_exceeded"`, `"messages"`
		if msg == "" {
			msg = fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", p.Max, p.Input)
		}
	} else {
		var def string
		switch {
		case status == http.StatusUnauthorized:
			code = `"invalid_api_key"`
			def = "Incorrect API key provided: " + maskKey(t.r) + ". You can find your API key at https://platform.openai.com/account/api-keys."
		case status == http.StatusForbidden:
			code = `"unsupported_country_region_territory"`
			def = "Country, region, or territory not supported"
		case status == http.StatusNotFound:
			code = `"model_not_found"`
			def = "The model `" + t.model() + "` does not exist or you do not have access to it."
		case status == http.StatusTooManyRequests:
			typ, code = "tokens", `"rate_limit_exceeded"`
			def = "Rate limit reached for " + t.model() + " in organization org-llmtest on tokens per min (TPM): Limit 30000, Used 30000, Requested 1000. Please try again in 2s. Visit https://platform.openai.com/account/rate-limits to learn more."
		case status == http.StatusServiceUnavailable || status == 529:
			typ = "server_error"
			def = "The engine is currently overloaded, please try again later"
		case status >= 500:
			typ = "server_error"
			def = "The server had an error while processing your request. Sorry about that!"
		default:
			def = "Invalid request"
		}
		if msg == "" {
			msg = def
		}
	}
	if p.ErrorType != "" {
		typ = p.ErrorType
	}
	t.writeError(status, `{"error":{"message":`+jsonString(msg)+`,"type":`+jsonString(typ)+`,"param":`+param+`,"code":`+code+"}}\n", p)
}
