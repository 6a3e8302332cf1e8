package agent

// Tests of the stall guard against a fault-injecting server, through both
// SDKs: headers then silence, no headers at all, a connection that never
// comes, and a slow trickle (or a slow consumer) that must not count as a
// stall.

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// trickleBodies are complete replies ("Hello world.") of each API, sent a
// piece at a time by the trickle fault.
var trickleBodies = map[string][]string{
	APIOpenAICompletions: {
		`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"finish_reason":null}]}` + "\n\n",
		`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" world"},"finish_reason":null}]}` + "\n\n",
		`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"."},"finish_reason":"stop"}]}` + "\n\n",
		"data: [DONE]\n\n",
	},
	APIAnthropicMessages: {
		"event: message_start\ndata: " + `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":3,"output_tokens":0}}}` + "\n\n",
		"event: content_block_start\ndata: " + `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n",
		"event: content_block_delta\ndata: " + `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}` + "\n\n",
		"event: ping\ndata: " + `{"type":"ping"}` + "\n\n",
		"event: content_block_delta\ndata: " + `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" world."}}` + "\n\n",
		"event: content_block_stop\ndata: " + `{"type":"content_block_stop","index":0}` + "\n\n",
		"event: message_delta\ndata: " + `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}` + "\n\n",
		"event: message_stop\ndata: " + `{"type":"message_stop"}` + "\n\n",
	},
}

// faultServer answers every request with one fault. Handlers that stall
// block until the client leaves or the test ends.
type faultServer struct {
	*httptest.Server
	requests atomic.Int32
	arrived  chan struct{} // a value for each request, as it arrives
}

// Faults.
const (
	faultNoHeaders = "no headers" // read the request, never answer
	faultTrickle   = "trickle"    // the reply a few bytes at a time, gap apart
)

func newFaultServer(t *testing.T, fault string, gap time.Duration) *faultServer {
	t.Helper()
	fs := &faultServer{arrived: make(chan struct{}, 16)}
	release := make(chan struct{})
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fs.requests.Add(1)
		select {
		case fs.arrived <- struct{}{}:
		default:
		}
		switch fault {
		case faultNoHeaders:
			select {
			case <-r.Context().Done():
			case <-release:
			}
		case faultTrickle:
			api := APIOpenAICompletions
			if strings.HasSuffix(r.URL.Path, "/messages") {
				api = APIAnthropicMessages
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			rc := http.NewResponseController(w)
			_ = rc.Flush()
			for _, event := range trickleBodies[api] {
				for piece := range chunks(event, 24) {
					select { // the fault: a long pause between pieces
					case <-time.After(gap):
					case <-r.Context().Done():
						return
					}
					_, _ = w.Write([]byte(piece))
					_ = rc.Flush()
				}
			}
		}
	}))
	t.Cleanup(fs.Close)
	t.Cleanup(func() { close(release) }) // runs first: stalled handlers return
	return fs
}

// chunks cuts s into pieces of n bytes.
func chunks(s string, n int) func(func(string) bool) {
	return func(yield func(string) bool) {
		for len(s) > 0 {
			k := min(n, len(s))
			if !yield(s[:k]) {
				return
			}
			s = s[k:]
		}
	}
}

// model returns a model of api served by the fault server.
func (fs *faultServer) model(api string) Model {
	m := Model{Provider: "fake", ID: "fake-model", API: api, BaseURL: fs.URL + "/v1", ContextWindow: 100000, MaxTokens: 8192}
	if api == APIAnthropicMessages {
		m.BaseURL = fs.URL
	}
	return m
}

// stallProvider returns the provider of api with the given idle timeout.
func stallProvider(api string, retries int, idle time.Duration, client *http.Client) Provider {
	if api == APIAnthropicMessages {
		return &AnthropicProvider{Transport{MaxRetries: retries, IdleTimeout: idle, HTTPClient: client}}
	}
	return &OpenAIProvider{Transport: Transport{MaxRetries: retries, IdleTimeout: idle, HTTPClient: client}, MaxRetryDelay: 50 * time.Millisecond}
}

func hostOf(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u.Host
}

func TestStallAfterHeadersEndsTheReplyKeepingWhatArrived(t *testing.T) {
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Reply(llmtest.Text("half an answer").Split(3), llmtest.Hang())
			req := &Request{Model: llmModel(srv, api), Messages: []session.Message{llmUser("hi")}}
			rec := &llmRecorder{t: t}
			start := time.Now()
			msg, err := stallProvider(api, 2, 300*time.Millisecond, nil).Stream(context.Background(), req, rec.emit)
			elapsed := time.Since(start)
			require.Error(t, err)

			var se *StallError
			require.ErrorAs(t, err, &se)
			assert.True(t, se.Streaming)
			want := "fake: stream interrupted: " + hostOf(t, srv.URL()) + " sent nothing for 300 ms"
			assert.Equal(t, want, err.Error())
			assert.Equal(t, session.StopError, msg.StopReason)
			assert.Equal(t, want, msg.ErrorMessage())
			assert.Equal(t, "half an answer", msg.Text(), "what arrived is kept")
			assert.Len(t, srv.Requests(), 1, "a stream that stalls is not sent again")
			assert.Less(t, elapsed, 5*time.Second)
		})
	}
}

func TestStallBeforeHeadersIsRetriedThenGivenUp(t *testing.T) {
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			fs := newFaultServer(t, faultNoHeaders, 0)
			req := &Request{Model: fs.model(api), Messages: []session.Message{llmUser("hi")}}
			start := time.Now()
			msg, err := stallProvider(api, 1, 200*time.Millisecond, nil).Stream(context.Background(), req, nil)
			elapsed := time.Since(start)
			require.Error(t, err)
			var se *StallError
			require.ErrorAs(t, err, &se)
			assert.False(t, se.Streaming)
			want := "fake: request failed: " + hostOf(t, fs.URL) + " sent nothing for 200 ms (2 attempts)"
			assert.Equal(t, want, err.Error())
			assert.Equal(t, session.StopError, msg.StopReason)
			assert.Equal(t, int32(2), fs.requests.Load(), "the SDK retried the stalled request once")
			assert.GreaterOrEqual(t, elapsed, 400*time.Millisecond)
			assert.Less(t, elapsed, 5*time.Second)
		})
	}
}

func TestSlowTrickleIsNotAStall(t *testing.T) {
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			// Each piece comes well within the idle timeout, the whole
			// reply well after it.
			fs := newFaultServer(t, faultTrickle, 40*time.Millisecond)
			req := &Request{Model: fs.model(api), Messages: []session.Message{llmUser("hi")}}
			start := time.Now()
			msg, err := stallProvider(api, 0, 400*time.Millisecond, nil).Stream(context.Background(), req, nil)
			require.NoError(t, err)
			assert.Greater(t, time.Since(start), 800*time.Millisecond, "the reply took longer than the idle timeout")
			assert.Equal(t, "Hello world.", msg.Text())
			assert.Equal(t, session.StopStop, msg.StopReason)
		})
	}
}

func TestSlowConsumerIsNotAStall(t *testing.T) {
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t)
			srv.Reply(llmtest.Text("one two three"))
			req := &Request{Model: llmModel(srv, api), Messages: []session.Message{llmUser("hi")}}
			// The fault: a consumer slower than the timeout, once (that is
			// enough to show that its time is not the server's). The
			// timeout is long because it also bounds the wait for the
			// reply's start: 100 ms, then 500 ms, were outlasted by a
			// loaded machine scheduling the fake server (a stall before
			// the first delta, which is not what this test is about).
			const timeout = 2 * time.Second
			slowed := false
			slow := func(ev StreamEvent) {
				if ev.Type == StreamTextDelta && !slowed {
					slowed = true
					time.Sleep(timeout + timeout/4)
				}
			}
			msg, err := stallProvider(api, 0, timeout, nil).Stream(context.Background(), req, slow)
			require.NoError(t, err)
			assert.True(t, slowed, "the consumer was slow")
			assert.Equal(t, "one two three", msg.Text())
		})
	}
}

func TestConnectTimeout(t *testing.T) {
	dialed := make(chan struct{}, 8)
	never := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		dialed <- struct{}{}
		<-ctx.Done() // the fault: a connection that never comes
		return nil, ctx.Err()
	}}}
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			m := Model{Provider: "fake", ID: "m", API: api, BaseURL: "http://model.invalid:8080/v1"}
			var p Provider = &OpenAIProvider{Transport: Transport{HTTPClient: never, ConnectTimeout: 200 * time.Millisecond}}
			if api == APIAnthropicMessages {
				p = &AnthropicProvider{Transport{HTTPClient: never, ConnectTimeout: 200 * time.Millisecond}}
			}
			_, err := p.Stream(context.Background(), &Request{Model: m, Messages: []session.Message{llmUser("hi")}}, nil)
			require.Error(t, err)
			assert.Equal(t, "fake: request failed: could not connect to model.invalid:8080 within 200 ms", err.Error())
			<-dialed
		})
	}
}

func TestAbortDuringStallIsAnAbort(t *testing.T) {
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			fs := newFaultServer(t, faultNoHeaders, 0)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				<-fs.arrived // the request reached the server, which now stalls
				cancel()
			}()
			req := &Request{Model: fs.model(api), Messages: []session.Message{llmUser("hi")}}
			msg, err := stallProvider(api, 2, time.Minute, nil).Stream(ctx, req, nil)
			require.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, session.StopAborted, msg.StopReason)
		})
	}
}

func TestIdleTimeoutFromEnv(t *testing.T) {
	t.Setenv(IdleTimeoutEnv, "250ms")
	assert.Equal(t, 250*time.Millisecond, idleTimeout(0))
	assert.Equal(t, time.Second, idleTimeout(time.Second), "a set timeout wins")
	t.Setenv(IdleTimeoutEnv, "off")
	assert.Negative(t, idleTimeout(0))
	t.Setenv(IdleTimeoutEnv, "soon")
	assert.Equal(t, DefaultIdleTimeout, idleTimeout(0), "a bad value is ignored")
	t.Setenv(IdleTimeoutEnv, "")
	assert.Equal(t, DefaultIdleTimeout, idleTimeout(0))

	r := NewRegistry(nil)
	r.IdleTimeout, r.ConnectTimeout = 5*time.Second, time.Second
	p, ok := r.NewProvider(Model{API: APIAnthropicMessages}).(*AnthropicProvider)
	require.True(t, ok)
	assert.Equal(t, 5*time.Second, p.IdleTimeout)
	assert.Equal(t, time.Second, p.ConnectTimeout)
}

func TestParseTimeout(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{"90", 90 * time.Second, false},
		{"0.5", 500 * time.Millisecond, false},
		{"2m", 2 * time.Minute, false},
		{"300ms", 300 * time.Millisecond, false},
		{"0", -1, false},
		{"off", -1, false},
		{"-3", 0, true},
		{"soon", 0, true},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			d, err := ParseTimeout(c.in)
			if c.err {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, d)
		})
	}
}

func TestStallErrorWords(t *testing.T) {
	assert.Equal(t, "api.openai.com sent nothing for 120 s", (&StallError{Host: "api.openai.com", Wait: 120 * time.Second}).Error())
	assert.Equal(t, "h sent nothing for 1.5 s", (&StallError{Host: "h", Wait: 1500 * time.Millisecond}).Error())
	assert.Equal(t, "could not connect to h:443 within 30 s", (&StallError{Host: "h:443", Wait: 30 * time.Second, Connect: true}).Error())
}

func TestTransportErrorsHideCredentialsInTheURL(t *testing.T) {
	err := &url.Error{Op: "Post", URL: "https://user:pw@example.com/v1/chat?key=SECRET#frag", Err: errors.New("connection refused")}
	pe := provTransportError("fake", nil, err, false)
	assert.Equal(t, `fake: request failed: Post "https://example.com/v1/chat": connection refused`, pe.Error())
	assert.NotContains(t, pe.Error(), "SECRET")
	assert.NotContains(t, pe.Error(), "pw")
}
