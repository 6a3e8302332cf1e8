package agent

// This file holds the stall guard both providers send their requests
// through: an http.RoundTripper that gives up on a connection not made
// within a connect timeout, and on a request or stream from which nothing
// arrives for an idle timeout. It works below the SDKs, so both share it:
// a stall before the response headers comes back to the SDK as a
// connection error, which the SDK retries like any other; a stall in the
// middle of a stream ends the body with a *StallError.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultIdleTimeout is how long a provider may send nothing — while lunar
// waits for the response headers or for the next bytes of a stream —
// before the request is given up on. Reasoning models can think silently
// for a while before the first token, but the services keep streams alive
// with pings or empty deltas well within this.
const DefaultIdleTimeout = 120 * time.Second

// DefaultConnectTimeout bounds making a connection: DNS, TCP and TLS.
const DefaultConnectTimeout = 30 * time.Second

// IdleTimeoutEnv names the environment variable that overrides
// DefaultIdleTimeout for providers whose IdleTimeout is 0: a Go duration
// ("90s", "500ms") or a number of seconds ("90", "0.5"); "0" or "off"
// disables the guard. Meant for tests and for a quick override; the config
// sets Registry.IdleTimeout.
const IdleTimeoutEnv = "LUNAR_STREAM_IDLE_TIMEOUT"

// StallError is the error of a request given up on because its provider
// sent nothing for too long, or a connection that could not be made in
// time. Its message names the host (never the full URL, which may carry a
// key in its query) and the wait.
type StallError struct {
	Host string        // the host (and port, if given) of the request
	Wait time.Duration // how long nothing arrived
	// Connect is set when no connection could be made in Wait.
	Connect bool
	// Streaming is set when the response had begun: what arrived before
	// the stall is all there is.
	Streaming bool
}

// Error returns e.g. "api.openai.com sent nothing for 120 s".
func (e *StallError) Error() string {
	if e.Connect {
		return fmt.Sprintf("could not connect to %s within %s", e.Host, formatWait(e.Wait))
	}
	return fmt.Sprintf("%s sent nothing for %s", e.Host, formatWait(e.Wait))
}

// Timeout reports true, as net.Error timeouts do.
func (e *StallError) Timeout() bool { return true }

// formatWait writes a duration the way the messages read: "120 s",
// "1.5 s", "300 ms".
func formatWait(d time.Duration) string {
	switch {
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + " s"
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// ParseTimeout reads a timeout as the config and IdleTimeoutEnv give it: a
// Go duration ("90s", "2m") or a number of seconds ("90", "0.5"). "off"
// and "0" mean no timeout and return a negative duration, which the
// providers read as "disabled".
func ParseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "off" || s == "none" {
		return -1, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		secs, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || secs < 0 || secs > 1e9 {
			return 0, fmt.Errorf("timeout %q: want seconds or a duration such as 90s, or off", s)
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d < 0 {
		return 0, fmt.Errorf("timeout %q: must not be negative", s)
	}
	if d == 0 {
		return -1, nil
	}
	return d, nil
}

// idleTimeout resolves a provider's IdleTimeout: 0 takes IdleTimeoutEnv,
// else DefaultIdleTimeout; negative means none.
func idleTimeout(d time.Duration) time.Duration {
	if d != 0 {
		return d
	}
	if v := os.Getenv(IdleTimeoutEnv); v != "" {
		if env, err := ParseTimeout(v); err == nil {
			return env
		}
	}
	return DefaultIdleTimeout
}

// connectTimeout resolves a provider's ConnectTimeout: 0 is the default,
// negative none.
func connectTimeout(d time.Duration) time.Duration {
	if d == 0 {
		return DefaultConnectTimeout
	}
	return d
}

// guardedClient returns c (nil: the shared providerHTTPClient) with its
// transport wrapped in the stall guard and in the refusal check of
// refused.go. Timeouts ≤ 0 are not enforced.
func guardedClient(c *http.Client, idle, connect time.Duration) *http.Client {
	if c == nil {
		c = providerHTTPClient()
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	if idle > 0 || connect > 0 {
		base = &stallTransport{base: base, idle: idle, connect: connect}
	}
	guarded := *c
	guarded.Transport = &refusalTransport{base: base}
	return &guarded
}

// stallTransport is the stall guard: a RoundTripper that cancels a request
// when its watchdog runs out.
type stallTransport struct {
	base          http.RoundTripper
	idle, connect time.Duration
}

// RoundTrip implements http.RoundTripper. Until a connection is made the
// connect timeout runs; then every sign of progress (the connection, each
// read of the request body as it is sent, the request written) restarts
// the idle timeout, which runs until the response headers arrive. The
// response body restarts it on every read.
func (t *stallTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	w := &watchdog{host: req.URL.Host, cancel: cancel}
	progress := func() { w.arm(t.idle, false) }
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn:      func(httptrace.GotConnInfo) { progress() },
		WroteHeaders: progress,
		WroteRequest: func(httptrace.WroteRequestInfo) { progress() },
	})
	out := req.WithContext(ctx)
	if req.Body != nil && req.Body != http.NoBody {
		out.Body = &progressBody{ReadCloser: req.Body, progress: progress}
	}
	w.arm(t.connect, true)
	res, err := t.base.RoundTrip(out)
	w.disarm()
	if err != nil {
		w.finish()
		if se := w.stalled(); se != nil {
			return nil, se
		}
		return nil, err
	}
	res.Body = &idleBody{body: res.Body, w: w, idle: t.idle}
	return res, nil
}

// progressBody restarts the watchdog whenever the transport reads the
// request body to send it.
type progressBody struct {
	io.ReadCloser
	progress func()
}

func (b *progressBody) Read(p []byte) (int, error) {
	b.progress()
	return b.ReadCloser.Read(p)
}

// WriteTo lets the transport copy a body that writes itself (a streamed
// request body, see requestBody.reader) with its WriteTo, each write
// counting as progress.
func (b *progressBody) WriteTo(w io.Writer) (int64, error) {
	if wt, ok := b.ReadCloser.(io.WriterTo); ok {
		return wt.WriteTo(progressWriter{w, b.progress})
	}
	return io.Copy(w, struct{ io.Reader }{b}) // Read, not this method again
}

// progressWriter calls progress before each write.
type progressWriter struct {
	w        io.Writer
	progress func()
}

func (p progressWriter) Write(b []byte) (int, error) {
	p.progress()
	return p.w.Write(b)
}

// idleBody is a response body whose every read must return within the
// idle timeout. The clock only runs while a read waits, so a slow
// consumer is never taken for a silent provider.
type idleBody struct {
	body io.ReadCloser
	w    *watchdog
	idle time.Duration
}

func (b *idleBody) Read(p []byte) (int, error) {
	b.w.arm(b.idle, false)
	n, err := b.body.Read(p)
	b.w.disarm()
	if err != nil && err != io.EOF {
		if se := b.w.stalled(); se != nil {
			s := *se
			s.Streaming = true
			return n, &s
		}
	}
	return n, err
}

func (b *idleBody) Close() error {
	err := b.body.Close()
	b.w.finish()
	return err
}

// watchdog cancels a request's context when its deadline passes. One timer
// serves every restart: arming only moves the deadline (cheap on every
// read), and the timer, when it fires early, sleeps again until the
// deadline.
type watchdog struct {
	host   string
	cancel context.CancelCauseFunc

	mu       sync.Mutex
	timer    *time.Timer
	due      time.Time // when the timer fires; zero: not scheduled
	deadline time.Time // zero: disarmed
	wait     time.Duration
	connect  bool
	err      *StallError
	done     bool
}

// arm sets the deadline d from now (d ≤ 0: no deadline).
func (w *watchdog) arm(d time.Duration, connect bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done || w.err != nil {
		return
	}
	if d <= 0 {
		w.deadline = time.Time{}
		return
	}
	w.deadline, w.wait, w.connect = time.Now().Add(d), d, connect
	switch {
	case w.timer == nil:
		w.timer = time.AfterFunc(d, w.check)
		w.due = w.deadline
	case w.due.IsZero() || w.due.After(w.deadline):
		w.timer.Reset(d)
		w.due = w.deadline
	}
}

// disarm removes the deadline; the timer, if scheduled, fires idly.
func (w *watchdog) disarm() {
	w.mu.Lock()
	w.deadline = time.Time{}
	w.mu.Unlock()
}

// check runs when the timer fires: it cancels the request if the deadline
// has passed, or sleeps until it.
func (w *watchdog) check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.due = time.Time{}
	if w.done || w.err != nil || w.deadline.IsZero() {
		return
	}
	if left := time.Until(w.deadline); left > 0 {
		w.timer.Reset(left)
		w.due = w.deadline
		return
	}
	w.err = &StallError{Host: w.host, Wait: w.wait, Connect: w.connect}
	w.cancel(w.err)
}

// stalled returns the stall that cancelled the request, if any.
func (w *watchdog) stalled() *StallError {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// finish stops the watchdog and releases the request's context.
func (w *watchdog) finish() {
	w.mu.Lock()
	w.done = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	w.cancel(context.Canceled)
}
