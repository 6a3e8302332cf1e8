package llmtest

// This file holds what both renderers share: the turn being served, SSE
// writing, default usage, and the terminal parts (disconnect, hang).

import (
	"net/http"
	"strings"
)

// turn is one reply being rendered for one request.
type turn struct {
	srv   *Server
	w     http.ResponseWriter
	r     *http.Request
	req   *Request
	reply Reply
	n     int // 1-based number of the model request, for ids

	buf       []byte
	generated int // bytes of text, thinking and arguments sent
}

// model is the model the client asked for.
func (t *turn) model() string {
	if m, ok := t.req.JSON["model"].(string); ok && m != "" {
		return m
	}
	return "llmtest-model"
}

// errorPart returns the reply's status or context-overflow part, if any.
func (t *turn) errorPart() (Part, bool) {
	for _, p := range t.reply.Parts {
		if p.Type == PartStatus || p.Type == PartContextOverflow {
			return p, true
		}
	}
	return Part{}, false
}

// usage returns the scripted usage, or the default estimate.
func (t *turn) usage() Part {
	for _, p := range t.reply.Parts {
		if p.Type == PartUsage {
			return p
		}
	}
	return Part{Input: (len(t.req.Body) + 3) / 4, Output: max(1, (t.generated+3)/4)}
}

// finish returns the scripted finish reason or the default.
func (t *turn) finish() string {
	hasTool := false
	for _, p := range t.reply.Parts {
		if p.Type == PartFinish {
			return p.Reason
		}
		if p.Type == PartToolCall {
			hasTool = true
		}
	}
	if hasTool {
		return "toolUse"
	}
	return "stop"
}

// writeError answers with an HTTP error: JSON body and headers.
func (t *turn) writeError(status int, body string, p Part) {
	h := t.w.Header()
	h.Set("Content-Type", "application/json")
	if status == http.StatusTooManyRequests || status >= 500 {
		h.Set("Retry-After", "0")
	}
	for k, v := range p.Headers {
		if v == "" {
			h.Del(k)
		} else {
			h.Set(k, v)
		}
	}
	t.w.WriteHeader(status)
	_, _ = t.w.Write([]byte(body))
}

// startStream writes the headers of an SSE response and flushes them, so
// the client's request returns and streaming begins.
func (t *turn) startStream(requestIDHeader, requestID string) {
	h := t.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set(requestIDHeader, requestID)
	t.w.WriteHeader(http.StatusOK)
	t.flush()
}

// event writes one SSE event ("" name: data line only) and flushes it.
func (t *turn) event(name string, data []byte) {
	t.buf = t.buf[:0]
	if name != "" {
		t.buf = append(t.buf, "event: "...)
		t.buf = append(t.buf, name...)
		t.buf = append(t.buf, '\n')
	}
	t.buf = append(t.buf, "data: "...)
	t.buf = append(t.buf, data...)
	t.buf = append(t.buf, '\n', '\n')
	_, _ = t.w.Write(t.buf)
	t.flush()
}

func (t *turn) flush() { _ = http.NewResponseController(t.w).Flush() }

// disconnect drops the connection mid-response: the client sees the body
// end without the terminating chunk (an unexpected EOF).
func (t *turn) disconnect() {
	t.flush()
	panic(http.ErrAbortHandler)
}

// hang blocks until the client goes away or the server closes.
func (t *turn) hang() {
	t.flush()
	select {
	case <-t.r.Context().Done():
	case <-t.srv.closed:
	}
}

// pause blocks until Server.Resume; false when the client went away or
// the server closed first.
func (t *turn) pause() bool {
	t.flush()
	select {
	case <-t.srv.resume:
		return true
	case <-t.r.Context().Done():
	case <-t.srv.closed:
	}
	return false
}

// maskKey returns the API key the request carried, masked as OpenAI echoes
// it in 401 errors ("sk-abc***wxyz").
func maskKey(r *http.Request) string {
	k := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if k == "" {
		k = r.Header.Get("X-Api-Key")
	}
	if len(k) <= 8 {
		return strings.Repeat("*", len(k))
	}
	return k[:3] + strings.Repeat("*", 8) + k[len(k)-4:]
}
