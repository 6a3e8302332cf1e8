// Package llmtest is a scripted fake LLM server for tests. It speaks the
// real wire formats of OpenAI chat completions (SSE chunks, tool-call
// deltas, reasoning_content, usage chunk, [DONE]) and Anthropic messages
// (message_start … message_stop with event: lines, thinking and signature
// deltas, input_json_delta, ping, error events), so the official SDK clients
// work against it unmodified.
//
// A test queues replies and then inspects what the client sent:
//
//	srv := llmtest.New(t)
//	srv.Reply(llmtest.Thinking("hmm"), llmtest.Text("hi"), llmtest.Usage(10, 2, 0, 0))
//	srv.Reply(llmtest.ToolCall("bash", `{"command":"ls"}`).Split(5))
//	srv.Reply(llmtest.Status(429))
//	... point the client at srv.URL() ...
//	reqs := srv.Requests()
//
// The same script serves both APIs: the server renders each reply for the
// endpoint that was called. Unscripted requests get a 500 "llmtest: no
// scripted reply" (with x-should-retry: false) so tests fail loudly. The
// script has a JSON form (Script) used by cmd/llmtest-server, which runs the
// same server as a separate process for end-to-end tests.
package llmtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Wire APIs, as recorded in Request.API.
const (
	APIOpenAI    = "openai-completions"
	APIAnthropic = "anthropic-messages"
)

// Request is one request the server received.
type Request struct {
	Method string      `json:"method"`
	Path   string      `json:"path"`
	API    string      `json:"api,omitempty"` // APIOpenAI, APIAnthropic or "" (models, unknown paths)
	Header http.Header `json:"header"`
	// Body is the raw request body; JSON is it decoded (nil if not JSON).
	Body []byte         `json:"-"`
	JSON map[string]any `json:"-"`
	// Received is when the whole body had arrived (latency measurements).
	Received time.Time `json:"-"`
}

// MarshalJSON writes the request as one record of the JSONL log: the body
// as JSON when it is JSON, else as a string.
func (r Request) MarshalJSON() ([]byte, error) {
	type plain Request
	body := json.RawMessage(r.Body)
	if !json.Valid(r.Body) {
		s, _ := json.Marshal(string(r.Body))
		body = s
	}
	return json.Marshal(struct {
		plain
		Body json.RawMessage `json:"body"`
	}{plain(r), body})
}

// UnmarshalJSON reads a record written by MarshalJSON.
func (r *Request) UnmarshalJSON(data []byte) error {
	type plain Request
	var v struct {
		plain
		Body json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*r = Request(v.plain)
	r.Body = v.Body
	if len(v.Body) > 0 && v.Body[0] == '"' {
		var s string
		if json.Unmarshal(v.Body, &s) == nil {
			r.Body = []byte(s)
		}
	}
	r.JSON = nil
	_ = json.Unmarshal(r.Body, &r.JSON)
	return nil
}

// Field returns the value at a dot path of the decoded JSON body, with
// numbers for array indexes: "messages.0.content.1.cache_control.type".
// It returns nil when the path does not exist.
func (r Request) Field(path string) any {
	var cur any = r.JSON
	if r.JSON == nil {
		return nil
	}
	for _, key := range strings.Split(path, ".") {
		switch v := cur.(type) {
		case map[string]any:
			var ok bool
			if cur, ok = v[key]; !ok {
				return nil
			}
		case []any:
			i := 0
			for _, c := range key {
				if c < '0' || c > '9' {
					return nil
				}
				i = i*10 + int(c-'0')
			}
			if key == "" || i >= len(v) {
				return nil
			}
			cur = v[i]
		default:
			return nil
		}
	}
	return cur
}

// Server is a running fake LLM server.
type Server struct {
	hs *httptest.Server

	mu       sync.Mutex
	queue    []Reply
	def      *Reply
	requests []Request
	record   io.Writer
	models   []string
	served   int
	aborted  int // requests whose body broke off (the client went away)

	closed    chan struct{}
	closeOnce sync.Once
	resume    chan struct{} // releases a paused stream (see Pause)

	allowed map[string]bool // more top-level body fields to accept
	invalid []error         // bodies refused (see validate.go)
}

// NewServer starts a server on 127.0.0.1 with an empty script. Call Close
// when done.
func NewServer() *Server {
	s := &Server{closed: make(chan struct{}), resume: make(chan struct{}, 16), models: []string{"llmtest-model"}}
	s.hs = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	return s
}

// New starts a server that is closed when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := NewServer()
	t.Cleanup(s.Close)
	return s
}

// URL is the base URL to give a client of either API: ".../v1". OpenAI
// clients append /chat/completions; Anthropic clients append /v1/messages,
// which the server accepts too (it routes on the path's end).
func (s *Server) URL() string { return s.hs.URL + "/v1" }

// RootURL is the server's root URL, the usual Anthropic base URL.
func (s *Server) RootURL() string { return s.hs.URL }

// Close stops the server, releasing hanging streams first.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closed)
		s.hs.CloseClientConnections()
		s.hs.Close()
	})
}

// Resume releases the next (or the current) paused stream (see Pause).
func (s *Server) Resume() { s.resume <- struct{}{} }

// Reply queues one reply made of parts; it panics on a reply the server
// could not render (a scripting mistake).
func (s *Server) Reply(parts ...Part) *Server {
	r := Reply{Parts: parts}
	if err := r.Validate(); err != nil {
		panic("llmtest: " + err.Error())
	}
	s.mu.Lock()
	s.queue = append(s.queue, r)
	s.mu.Unlock()
	return s
}

// Load queues a script's replies and sets its default reply.
func (s *Server) Load(sc Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, sc.Replies...)
	if sc.Default != nil {
		d := *sc.Default
		s.def = &d
	}
}

// SetDefault sets the reply served whenever the queue is empty (for
// example Status(500) for "fails forever"). No parts restores the loud
// "llmtest: no scripted reply" error.
func (s *Server) SetDefault(parts ...Part) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(parts) == 0 {
		s.def = nil
		return
	}
	r := Reply{Parts: parts}
	if err := r.Validate(); err != nil {
		panic("llmtest: " + err.Error())
	}
	s.def = &r
}

// SetModels sets the model ids GET /v1/models lists.
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	s.models = append([]string(nil), ids...)
	s.mu.Unlock()
}

// RecordTo writes every request received from now on to w as one JSON line
// (see Request.MarshalJSON).
func (s *Server) RecordTo(w io.Writer) {
	s.mu.Lock()
	s.record = w
	s.mu.Unlock()
}

// AllowFields makes the server accept these top-level body fields besides
// the API's own (extra fields a test sends on purpose, such as a hook's
// chat.params extra). Every other body is checked against the SDKs'
// request types; one that does not pass gets a 400 naming the field.
func (s *Server) AllowFields(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.allowed == nil {
		s.allowed = map[string]bool{}
	}
	for _, n := range names {
		s.allowed[n] = true
	}
}

// Invalid returns why the bodies the server refused were refused.
func (s *Server) Invalid() []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]error(nil), s.invalid...)
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Pending returns how many queued replies have not been served.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// apiOf tells which API a path belongs to, by its end.
func apiOf(method, path string) string {
	switch {
	case method == http.MethodPost && strings.HasSuffix(path, "/chat/completions"):
		return APIOpenAI
	case method == http.MethodPost && strings.HasSuffix(path, "/messages"):
		return APIAnthropic
	}
	return ""
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		// The client went away mid-body (a killed process): there is no
		// request to record, check or answer, only a fragment of one.
		s.mu.Lock()
		s.aborted++
		s.mu.Unlock()
		return
	}
	rq := Request{Method: r.Method, Path: r.URL.Path, API: apiOf(r.Method, r.URL.Path), Header: r.Header.Clone(), Body: body, Received: time.Now()}
	_ = json.Unmarshal(body, &rq.JSON)

	s.mu.Lock()
	s.requests = append(s.requests, rq)
	if s.record != nil {
		line, _ := json.Marshal(rq)
		_, _ = s.record.Write(append(line, '\n'))
	}
	var reply *Reply
	var invalid error
	if rq.API != "" {
		if invalid = checkBody(rq.API, body, s.allowed); invalid != nil {
			s.invalid = append(s.invalid, invalid)
		}
	}
	if rq.API != "" && invalid == nil {
		s.served++
		if len(s.queue) > 0 {
			reply = &s.queue[0]
			s.queue = s.queue[1:]
		} else {
			reply = s.def
		}
	}
	models := s.models
	n := s.served
	s.mu.Unlock()

	if rq.API == "" {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
			writeModels(w, r, models)
			return
		}
		http.Error(w, "llmtest: no route for "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	t := &turn{srv: s, w: w, r: r, req: &rq, n: n}
	switch {
	case invalid != nil:
		t.reply = Reply{Parts: []Part{Status(http.StatusBadRequest).WithErrorType("invalid_request_error").
			Message("llmtest: not a valid "+rq.API+" request: "+invalid.Error()).Header("x-should-retry", "false")}}
	case reply == nil:
		t.reply = Reply{Parts: []Part{Status(http.StatusInternalServerError).Message(errNoReply.Error()).RetryAfter("").Header("x-should-retry", "false")}}
	default:
		t.reply = *reply
	}
	if rq.API == APIOpenAI {
		t.openAI()
	} else {
		t.anthropic()
	}
}

// writeModels answers GET /v1/models in the format of the API the client
// speaks (Anthropic clients send anthropic-version).
func writeModels(w http.ResponseWriter, r *http.Request, ids []string) {
	w.Header().Set("Content-Type", "application/json")
	var b bytes.Buffer
	if r.Header.Get("anthropic-version") != "" {
		b.WriteString(`{"data":[`)
		for i, id := range ids {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"type":"model","id":` + jsonString(id) + `,"display_name":` + jsonString(id) + `,"created_at":"2025-01-01T00:00:00Z"}`)
		}
		first, last := "null", "null"
		if len(ids) > 0 {
			first, last = jsonString(ids[0]), jsonString(ids[len(ids)-1])
		}
		b.WriteString(`],"has_more":false,"first_id":` + first + `,"last_id":` + last + `}`)
	} else {
		b.WriteString(`{"object":"list","data":[`)
		for i, id := range ids {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"id":` + jsonString(id) + `,"object":"model","created":1700000000,"owned_by":"llmtest"}`)
		}
		b.WriteString(`]}`)
	}
	_, _ = w.Write(b.Bytes())
}

// jsonString quotes s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// LastUserText is the text of the request's last user message (its
// string content, or its text parts joined), in either API's shape; ok is
// false when the body has no user message.
func (r Request) LastUserText() (text string, ok bool) {
	texts, err := r.UserTexts()
	if err != nil || len(texts) == 0 {
		return "", false
	}
	return texts[len(texts)-1], true
}
