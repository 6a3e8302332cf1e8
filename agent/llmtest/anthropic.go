package llmtest

// This file renders replies as Anthropic messages streams (event: + data:
// lines from message_start to message_stop) and errors as the Anthropic
// API sends them.

import (
	"fmt"
	"net/http"
)

// anthropicStop maps a script finish reason to Anthropic's stop_reason.
func anthropicStop(reason string) string {
	switch reason {
	case "stop":
		return "end_turn"
	case "length":
		return "max_tokens"
	case "toolUse":
		return "tool_use"
	}
	return reason
}

func (t *turn) anthropic() {
	if p, ok := t.errorPart(); ok {
		t.anthropicError(p)
		return
	}
	t.startStream("Request-Id", fmt.Sprintf("req_llmtest_%d", t.n))

	// message_start reports the input side of usage before anything streams.
	u := t.usage()
	t.event("message_start", []byte(`{"type":"message_start","message":{"id":"msg_llmtest_`+itoa(t.n)+
		`","type":"message","role":"assistant","model":`+jsonString(t.model())+
		`,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":`+itoa(u.Input)+
		`,"cache_creation_input_tokens":`+itoa(u.CacheWrite)+`,"cache_read_input_tokens":`+itoa(u.CacheRead)+
		`,"output_tokens":1,"service_tier":"standard"}}}`))

	index := 0
	pinged := false
	block := func(start string) string {
		idx := itoa(index)
		t.event("content_block_start", []byte(`{"type":"content_block_start","index":`+idx+`,"content_block":`+start+`}`))
		if !pinged {
			pinged = true
			t.event("ping", []byte(`{"type": "ping"}`))
		}
		return idx
	}
	delta := func(idx, d string) {
		t.event("content_block_delta", []byte(`{"type":"content_block_delta","index":`+idx+`,"delta":`+d+`}`))
	}
	stop := func(idx string) {
		t.event("content_block_stop", []byte(`{"type":"content_block_stop","index":`+idx+`}`))
		index++
	}
	tools := 0
	for _, p := range t.reply.Parts {
		switch p.Type {
		case PartText:
			idx := block(`{"type":"text","text":""}`)
			for _, f := range fragments(p.Text, p.Fragments, true) {
				t.generated += len(f)
				delta(idx, `{"type":"text_delta","text":`+jsonString(f)+`}`)
			}
			stop(idx)
		case PartThinking:
			idx := block(`{"type":"thinking","thinking":"","signature":""}`)
			for _, f := range fragments(p.Text, p.Fragments, true) {
				t.generated += len(f)
				delta(idx, `{"type":"thinking_delta","thinking":`+jsonString(f)+`}`)
			}
			sig := p.Signature
			if sig == "" {
				sig = fmt.Sprintf("llmtest-signature-%d-%d", t.n, index)
			}
			delta(idx, `{"type":"signature_delta","signature":`+jsonString(sig)+`}`)
			stop(idx)
		case PartRedactedThinking:
			stop(block(`{"type":"redacted_thinking","data":` + jsonString(p.Text) + `}`))
		case PartToolCall:
			callID := p.ID
			if callID == "" {
				callID = fmt.Sprintf("toolu_llmtest_%d_%d", t.n, tools)
			}
			tools++
			idx := block(`{"type":"tool_use","id":` + jsonString(callID) + `,"name":` + jsonString(p.Name) + `,"input":{}}`)
			delta(idx, `{"type":"input_json_delta","partial_json":""}`)
			for _, f := range fragments(p.argumentText(), p.Fragments, false) {
				t.generated += len(f)
				delta(idx, `{"type":"input_json_delta","partial_json":`+jsonString(f)+`}`)
			}
			stop(idx)
		case PartStreamError:
			typ, msg := p.ErrorType, p.Text
			if typ == "" {
				typ = "overloaded_error"
			}
			if msg == "" {
				msg = "Overloaded"
			}
			t.event("error", []byte(`{"type":"error","error":{"type":`+jsonString(typ)+`,"message":`+jsonString(msg)+`}}`))
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
	u = t.usage()
	t.event("message_delta", []byte(`{"type":"message_delta","delta":{"stop_reason":`+jsonString(anthropicStop(t.finish()))+
		`,"stop_sequence":null},"usage":{"input_tokens":`+itoa(u.Input)+`,"cache_creation_input_tokens":`+itoa(u.CacheWrite)+
		`,"cache_read_input_tokens":`+itoa(u.CacheRead)+`,"output_tokens":`+itoa(u.Output)+`}}`))
	t.event("message_stop", []byte(`{"type":"message_stop"}`))
}

// anthropicError writes an HTTP error as the Anthropic API does.
func (t *turn) anthropicError(p Part) {
	status, typ, msg := p.Status, "invalid_request_error", p.Text
	if p.Type == PartContextOverflow {
		status = http.StatusBadRequest
		if msg == "" {
			msg = fmt.Sprintf("prompt is too long: %d tokens > %d maximum", p.Input, p.Max)
		}
	} else {
		var def string
		switch {
		case status == http.StatusUnauthorized:
			typ, def = "authentication_error", "invalid x-api-key"
		case status == http.StatusForbidden:
			typ, def = "permission_error", "Your API key does not have permission to use the specified resource."
		case status == http.StatusNotFound:
			typ, def = "not_found_error", "model: "+t.model()
		case status == http.StatusRequestEntityTooLarge:
			typ, def = "request_too_large", "Request exceeds the maximum allowed number of bytes."
		case status == http.StatusTooManyRequests:
			typ, def = "rate_limit_error", "This request would exceed the rate limit for your organization of 30,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later."
		case status == 529:
			typ, def = "overloaded_error", "Overloaded"
		case status >= 500:
			typ, def = "api_error", "Internal server error"
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
	t.w.Header().Set("Request-Id", fmt.Sprintf("req_llmtest_%d", t.n))
	t.writeError(status, `{"type":"error","error":{"type":`+jsonString(typ)+`,"message":`+jsonString(msg)+
		`},"request_id":"req_llmtest_`+itoa(t.n)+`"}`, p)
}
