package agent

// This file holds provider errors: the one-line ProviderError, the
// classifiers the loop uses (context overflow, rate limit), and the parsing
// of the error bodies the services send.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lunar-cli/lunar/agent/compaction"
	"github.com/lunar-cli/lunar/session"
)

// ProviderError is a failed model call: an HTTP error response, an error
// event inside the stream, a broken stream or a transport failure. Its
// message is one line and never contains the API key.
type ProviderError struct {
	Provider   string        // provider name ("openai", "anthropic", "groq", ...)
	StatusCode int           // HTTP status of an error response; 0 otherwise
	Type       string        // the service's error type or code ("rate_limit_error", "context_length_exceeded")
	Message    string        // what the service said, API key redacted
	RetryAfter time.Duration // the retry-after the service asked for, if any
	Stream     bool          // the error arrived inside or broke the stream
	Err        error         // the underlying error, if any
}

// Error returns e.g. "openai: 429 rate limited: Rate limit reached for …",
// "anthropic: stream error (overloaded_error): Overloaded" or
// "openai: stream interrupted: unexpected EOF".
func (e *ProviderError) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	b.WriteString(": ")
	switch {
	case e.StatusCode >= 400:
		b.WriteString(strconv.Itoa(e.StatusCode))
		b.WriteByte(' ')
		b.WriteString(provStatusSummary(e.StatusCode))
		if e.StatusCode == http.StatusBadRequest && e.Type != "" && e.Type != "invalid_request_error" {
			b.WriteString(" (" + e.Type + ")")
		}
	case e.Stream && e.Type != "":
		b.WriteString("stream error (" + e.Type + ")")
	case e.Stream:
		b.WriteString("stream interrupted")
	default:
		b.WriteString("request failed")
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *ProviderError) Unwrap() error { return e.Err }

// provStatusSummary names an HTTP error status in a few words.
func provStatusSummary(code int) string {
	switch code {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return "bad request"
	case http.StatusUnauthorized:
		return "authentication failed"
	case http.StatusPaymentRequired:
		return "payment required"
	case http.StatusForbidden:
		return "permission denied"
	case http.StatusNotFound:
		return "not found"
	case http.StatusRequestEntityTooLarge:
		return "request too large"
	case http.StatusTooManyRequests:
		return "rate limited"
	case http.StatusServiceUnavailable:
		return "service unavailable"
	case 529:
		return "overloaded"
	}
	if code >= 500 {
		return "server error"
	}
	if t := http.StatusText(code); t != "" {
		return strings.ToLower(t)
	}
	return "error"
}

// rateLimitPattern matches rate-limit and quota messages, which can mention
// tokens without being context overflows ("tokens per min (TPM)").
var rateLimitPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)rate.?limit|too many requests|\b429\b|tokens per min|requests per min|\b[TR]PM\b|quota|resource.?exhausted`)
})

// IsContextOverflow reports whether an assistant message shows that the
// prompt did not fit the model's context (see compaction.IsContextOverflow:
// pi's patterns and usage rules, one list for the loop and compaction).
func IsContextOverflow(msg *session.Message, contextWindow int) bool {
	return compaction.IsContextOverflow(msg, contextWindow)
}

// ErrContextOverflow is wrapped by the error of a run whose reply failed
// because the conversation did not fit the model's context window (see
// IsContextOverflow); the error's message is the provider's.
var ErrContextOverflow = errors.New("context overflow")

// overflowError marks a provider error as a context overflow.
type overflowError struct{ err error }

func (e *overflowError) Error() string   { return e.err.Error() }
func (e *overflowError) Unwrap() []error { return []error{e.err, ErrContextOverflow} }

// Error types and codes that mean "rate limited".
var rateLimitTypes = map[string]bool{
	"rate_limit_error": true, "rate_limit_exceeded": true, "rate_limited": true,
	"tokens": true, "requests": true,
}

// IsRateLimit reports whether err is a rate-limit failure: HTTP 429, a
// rate-limit error type, or a message saying so.
func IsRateLimit(err error) bool {
	if err == nil {
		return false
	}
	var pe *ProviderError
	if errors.As(err, &pe) {
		if pe.StatusCode == http.StatusTooManyRequests || rateLimitTypes[pe.Type] {
			return true
		}
		return rateLimitPattern().MatchString(pe.Message)
	}
	return rateLimitPattern().MatchString(err.Error())
}

// provErrorBody extracts the error type and message from an error response
// body: {"error":{"type","code","message"}} (OpenAI, Anthropic and most
// compatible services), {"error":"text"} (Ollama), {"message"} or
// {"detail"}; anything else is quoted as text.
func provErrorBody(body []byte) (typ, msg string) {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var e struct {
			Type    string `json:"type"`
			Code    any    `json:"code"`
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &e) == nil && (e.Message != "" || e.Type != ""):
			typ = e.Type
			if c, ok := e.Code.(string); ok && c != "" {
				typ = c
			}
			return typ, provOneLine(e.Message)
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return "", provOneLine(s)
		case v.Message != "":
			return "", provOneLine(v.Message)
		case v.Detail != nil:
			d, _ := json.Marshal(v.Detail)
			if s, ok := v.Detail.(string); ok {
				return "", provOneLine(s)
			}
			return "", provOneLine(string(d))
		}
	}
	text := provOneLine(string(body))
	if text == "" {
		return "", "(no body)"
	}
	if len(text) > 300 {
		text = text[:300] + "…"
	}
	return "", text
}

// provHTTPError builds the ProviderError of an HTTP error response whose body
// the SDK has buffered (both SDKs put it back into res.Body).
func provHTTPError(provider string, secrets []string, res *http.Response, cause error) *ProviderError {
	var body []byte
	if res.Body != nil {
		body, _ = io.ReadAll(io.LimitReader(res.Body, 1<<20))
	}
	typ, msg := provErrorBody(body)
	return &ProviderError{Provider: provider, StatusCode: res.StatusCode, Type: typ, Message: provRedact(msg, secrets),
		RetryAfter: provRetryAfter(res.Header), Err: cause}
}

// provStreamError builds the ProviderError of an error event inside a stream,
// whose data is an error body.
func provStreamError(provider string, secrets []string, data []byte, cause error) *ProviderError {
	typ, msg := provErrorBody(data)
	if typ == "" {
		typ = "error"
	}
	return &ProviderError{Provider: provider, Type: typ, Message: provRedact(msg, secrets), Stream: true, Err: cause}
}

// provTransportError builds the ProviderError of a failure with no response or
// a stream that broke off. A stall is told in the stall guard's words; any
// other failure names the request's URL without credentials or query.
func provTransportError(provider string, secrets []string, err error, stream bool) *ProviderError {
	var se *StallError
	if errors.As(err, &se) {
		return &ProviderError{Provider: provider, Message: se.Error(), Stream: stream || se.Streaming, Err: err}
	}
	text := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		text = fmt.Sprintf("%s %q: %v", ue.Op, redactURL(ue.URL), ue.Err)
	}
	return &ProviderError{Provider: provider, Message: provRedact(provOneLine(text), secrets), Stream: stream, Err: err}
}

// redactURL returns raw without user information, query or fragment:
// keys travel there for some services.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.IndexAny(raw, "?#"); i >= 0 {
			raw = raw[:i]
		}
		return raw
	}
	u.User, u.RawQuery, u.Fragment, u.RawFragment, u.ForceQuery = nil, "", "", "", false
	return u.String()
}

// withAttempts adds to the error of a request given up on after a stall
// before its response how many times it was tried: the SDKs retry a stall
// like any failed connection, up to maxRetries times.
func withAttempts(err error, maxRetries int) error {
	var pe *ProviderError
	var se *StallError
	if maxRetries > 0 && errors.As(err, &pe) && errors.As(err, &se) && !se.Streaming {
		pe.Message += fmt.Sprintf(" (%d attempts)", maxRetries+1)
	}
	return err
}

// provRetryAfter reads retry-after-ms / retry-after (seconds).
func provRetryAfter(h http.Header) time.Duration {
	if v, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && v > 0 {
		return time.Duration(v * float64(time.Millisecond))
	}
	if v, err := strconv.ParseFloat(h.Get("Retry-After"), 64); err == nil && v > 0 {
		return time.Duration(v * float64(time.Second))
	}
	return 0
}

// provRedact removes the secrets (see requestSecrets) from text; those
// shorter than 8 characters are left alone: replacing them would garble
// the message and they are not real secrets.
func provRedact(text string, secrets []string) string {
	for _, s := range secrets {
		if len(s) >= 8 {
			text = strings.ReplaceAll(text, s, "***")
		}
	}
	return text
}

// SecretHeader reports whether a request header carries a credential, so
// that its value is never shown: Authorization, Proxy-Authorization,
// Cookie, and any name containing "key", "token", "secret", "auth",
// "password", "passwd", "session", "signature" or "credential" (ignoring
// case: X-Api-Key, X-Auth-Token, X-Goog-Api-Key, Ocp-Apim-Subscription-Key).
func SecretHeader(name string) bool {
	n := strings.ToLower(name)
	if n == "cookie" {
		return true
	}
	for _, part := range []string{"key", "token", "secret", "auth", "password", "passwd", "session", "signature", "credential"} {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// requestSecrets are what an error about req must not show: the API key
// and the values of its secret headers (the model's and the hooks'), a
// value such as "Bearer xyz" also without its scheme; the longest first,
// so that a value is replaced before a part of it.
func requestSecrets(req *Request) []string {
	secrets := []string{req.APIKey}
	for k, v := range mergedHeaders(req) {
		if !SecretHeader(k) {
			continue
		}
		secrets = append(secrets, v)
		if _, cred, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
			secrets = append(secrets, strings.TrimSpace(cred))
		}
	}
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	return secrets
}

// provOneLine collapses whitespace runs (newlines included) into single spaces.
func provOneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
