package agent

// This file holds what a refused connection to a local server changes: the
// SDKs retry a connection error with backoff (0.5 s, 1 s, 2 s…), which is
// right for a service on the internet and pointless for a server on this
// machine that is simply not running (Ollama on first run): the attempt
// fails at once and every retry would too. The transport below both
// providers ends the call instead, through a context the provider gave
// the SDK, and the provider reports the refusal as the transport error it
// is.

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"syscall"
)

// wsaeConnRefused is WSAECONNREFUSED, the error Windows gives a refused
// connection (syscall.ECONNREFUSED is an invented value there).
const wsaeConnRefused = syscall.Errno(10061)

// IsConnectionRefused reports whether err (a run's or a provider's error)
// is a refused connection: nothing listens where the provider's base URL
// points.
func IsConnectionRefused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, wsaeConnRefused)
}

// IsDialError reports whether err is a failure to make a connection at
// all (refused, no route, an unknown host): the request never reached the
// provider.
func IsDialError(err error) bool {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return true
	}
	var de *net.DNSError
	return errors.As(err, &de) || IsConnectionRefused(err)
}

// isLoopbackHost reports whether host names this machine.
func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// stopRetriesKey carries the function that ends an SDK call early.
type stopRetriesKey struct{}

// refusedError is the cause a call ended with when a local server refused
// the connection: the transport's error, as the HTTP client would have
// wrapped it.
type refusedError struct{ err *url.Error }

func (e *refusedError) Error() string { return e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }

// noLocalRetries returns the context to give the SDK for one call: the
// transport cancels it when a server on this machine refuses the
// connection, which ends the SDK's retries at once. refused returns that
// refusal (nil if it did not happen); release frees the context.
func noLocalRetries(ctx context.Context) (sdkCtx context.Context, refused func() error, release func()) {
	c, cancel := context.WithCancelCause(ctx)
	c = context.WithValue(c, stopRetriesKey{}, cancel)
	refused = func() error {
		var re *refusedError
		if errors.As(context.Cause(c), &re) {
			return re.err
		}
		return nil
	}
	return c, refused, func() { cancel(nil) }
}

// refusalTransport stops the call (see noLocalRetries) when a loopback
// address refuses the connection.
type refusalTransport struct{ base http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (t *refusalTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.base.RoundTrip(req)
	if err != nil && IsConnectionRefused(err) && isLoopbackHost(req.URL.Hostname()) {
		if stop, ok := req.Context().Value(stopRetriesKey{}).(context.CancelCauseFunc); ok {
			stop(&refusedError{&url.Error{Op: urlErrorOp(req.Method), URL: req.URL.String(), Err: err}})
		}
	}
	return res, err
}

// urlErrorOp is the Op net/http's client gives a request's *url.Error.
func urlErrorOp(method string) string {
	if method == "" {
		return "Get"
	}
	return method[:1] + toLowerASCII(method[1:])
}

func toLowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
