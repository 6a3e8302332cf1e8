// This file is the set of servers of one lunar process: starting them in
// parallel on first use with a start-up timeout, their state, and
// stopping them with lunar.

package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunar-cli/lunar/agent"
)

// DefaultStartTimeout is how long a server may take to start and answer
// initialize and tools/list (Claude Code's MCP_TIMEOUT default).
const DefaultStartTimeout = 30 * time.Second

// State is where a server is in its life.
type State string

// Server states.
const (
	StateIdle     State = "not started" // lunar has not needed tools yet
	StateStarting State = "starting"
	StateReady    State = "ready"
	StateFailed   State = "failed" // did not start, or exited; Error says why
	StateStopped  State = "stopped"
)

// Options configure a Manager.
type Options struct {
	Servers []Server
	// Cwd is where stdio servers run.
	Cwd string
	// LogDir receives each stdio server's stderr as <name>.log; "" drops it.
	LogDir string
	// StartTimeout bounds each server's start (0: DefaultStartTimeout).
	StartTimeout time.Duration
	// Version is lunar's, sent as the client's.
	Version string
	// Warn shows a problem once (nil drops it).
	Warn func(msg string)
}

// Manager owns the configured servers. Its methods are safe for
// concurrent use.
type Manager struct {
	opts   Options
	client *sdk.Client

	startOnce sync.Once
	started   chan struct{} // closed when every server has started or failed

	mu      sync.Mutex
	conns   []*conn
	closing bool
}

// conn is one server and its session.
type conn struct {
	m   *Manager
	cfg Server

	mu      sync.Mutex
	state   State
	err     error
	session *sdk.ClientSession
	tools   []*agent.Tool
	infos   []ToolInfo
	prompts []*sdk.Prompt
	kill    func() // ends the server's process group (stdio)
	exited  chan struct{}
}

// New makes a manager over the servers; nothing starts until Start,
// Tools or Prompts is called.
func New(opts Options) *Manager {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	m := &Manager{opts: opts, started: make(chan struct{})}
	for _, s := range opts.Servers {
		m.conns = append(m.conns, &conn{m: m, cfg: s, state: StateIdle, exited: make(chan struct{})})
	}
	return m
}

// Empty reports whether no server is configured.
func (m *Manager) Empty() bool { return m == nil || len(m.conns) == 0 }

// Start starts every server, in parallel, and returns when each is ready
// or has failed (its start-up timeout). Later calls wait for the first.
// A server that fails is warned about once; its tools are not offered.
func (m *Manager) Start(ctx context.Context) {
	if m.Empty() {
		return
	}
	m.startOnce.Do(func() {
		m.client = sdk.NewClient(&sdk.Implementation{Name: "lunar", Version: m.opts.Version}, nil)
		var wg sync.WaitGroup
		for _, c := range m.conns {
			wg.Go(func() { c.start(ctx) })
		}
		wg.Wait()
		close(m.started)
	})
	<-m.started
}

// Tools are the tools of the servers that are ready, in configuration
// order; the first call starts the servers (see Start). It implements
// agent.ToolProvider.
func (m *Manager) Tools() []*agent.Tool {
	if m.Empty() {
		return nil
	}
	m.Start(context.Background())
	var out []*agent.Tool
	for _, c := range m.conns {
		c.mu.Lock()
		if c.state == StateReady {
			out = append(out, c.tools...)
		}
		c.mu.Unlock()
	}
	return out
}

// ToolInfo describes one tool of a server.
type ToolInfo struct {
	Name     string // as the model sees it: mcp__server__tool
	Tool     string // as the server names it
	ReadOnly bool   // the server's readOnlyHint
}

// Status describes one server for /mcp and `lunar mcp list`.
type Status struct {
	Name      string
	Transport string
	Target    string // the command line or the URL
	Origin    string
	State     State
	Error     string
	Tools     []ToolInfo
	Prompts   []string // slash command names: mcp__server__prompt
}

// Status describes every server without starting any.
func (m *Manager) Status() []Status {
	if m.Empty() {
		return nil
	}
	out := make([]Status, 0, len(m.conns))
	for _, c := range m.conns {
		c.mu.Lock()
		st := Status{Name: c.cfg.Name, Transport: c.cfg.Transport(), Origin: c.cfg.Origin, State: c.state, Tools: slices.Clone(c.infos)}
		if c.err != nil {
			st.Error = c.err.Error()
		}
		if c.cfg.URL != "" {
			st.Target = c.cfg.URL
		} else {
			st.Target = c.cfg.Command
			for _, a := range c.cfg.Args {
				st.Target += " " + a
			}
		}
		for _, p := range c.prompts {
			st.Prompts = append(st.Prompts, ToolName(c.cfg.Name, p.Name))
		}
		c.mu.Unlock()
		out = append(out, st)
	}
	return out
}

// Close stops every server: stdio servers get their stdin closed, then
// are killed with their process group if they do not leave at once.
func (m *Manager) Close() {
	if m.Empty() {
		return
	}
	m.mu.Lock()
	m.closing = true
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range m.conns {
		wg.Go(c.stop)
	}
	wg.Wait()
}

func (m *Manager) isClosing() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closing
}

// start connects to the server and lists its tools and prompts.
func (c *conn) start(ctx context.Context) {
	c.mu.Lock()
	c.state = StateStarting
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, c.m.opts.StartTimeout)
	defer cancel()
	err := c.connect(ctx)
	if err == nil {
		err = c.list(ctx)
	}
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("no answer within %v", c.m.opts.StartTimeout)
		}
		c.fail(err)
		c.m.opts.Warn(fmt.Sprintf("mcp: server %q did not start: %v (its tools are not offered)", c.cfg.Name, err))
		return
	}
	c.mu.Lock()
	if c.state == StateStarting {
		c.state = StateReady
	}
	c.mu.Unlock()
}

// fail records err and ends the server.
func (c *conn) fail(err error) {
	c.mu.Lock()
	c.state, c.err = StateFailed, err
	s, kill := c.session, c.kill
	c.mu.Unlock()
	if kill != nil {
		kill()
	}
	if s != nil {
		go s.Close()
	}
}

// connect starts or reaches the server and runs the initialize handshake.
func (c *conn) connect(ctx context.Context) error {
	if c.cfg.URL != "" {
		t := &sdk.StreamableClientTransport{Endpoint: c.cfg.URL, MaxRetries: -1, DisableStandaloneSSE: true,
			HTTPClient: &http.Client{Transport: headerTransport{c.cfg.Headers}}}
		s, err := c.m.client.Connect(ctx, t, nil)
		if err != nil {
			return err
		}
		c.mu.Lock()
		c.session = s
		c.mu.Unlock()
		go c.watch(s)
		return nil
	}
	cmd := exec.Command(c.cfg.Command, c.cfg.Args...)
	cmd.Dir = c.m.opts.Cwd
	cmd.Env = os.Environ()
	for k, v := range c.cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if c.m.opts.LogDir != "" {
		if err := os.MkdirAll(c.m.opts.LogDir, 0o700); err == nil {
			f, err := os.OpenFile(filepath.Join(c.m.opts.LogDir, c.cfg.Name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
			if err == nil {
				fmt.Fprintf(f, "--- %s: %s starting\n", time.Now().Format(time.RFC3339), c.cfg.Name)
				cmd.Stderr = f
				defer f.Close() // the child has its own copy once started
			}
		}
	}
	prepare(cmd)
	proc := &started{}
	t := &startedTransport{CommandTransport: sdk.CommandTransport{Command: cmd, TerminateDuration: time.Second}, started: proc}
	// The server is started on a goroutine of its own (startLocked): on
	// Linux it stays on the thread that forked the server until the
	// server has exited, so that the kernel kills the server when lunar
	// dies, SIGKILL included.
	type res struct {
		s   *sdk.ClientSession
		err error
	}
	done := make(chan res, 1)
	startLocked(func() {
		s, err := c.m.client.Connect(ctx, t, nil)
		done <- res{s, err}
		if err == nil {
			c.watch(s)
		}
	})
	stopKill := context.AfterFunc(ctx, proc.kill)
	r := <-done
	stopKill()
	if r.err != nil {
		proc.kill()
		return r.err
	}
	c.mu.Lock()
	c.session, c.kill = r.s, proc.kill
	c.mu.Unlock()
	return nil
}

// startedTransport is the SDK's command transport that records the
// process it started, for killing it from another goroutine (exec.Cmd's
// fields are not for reading while Start runs).
type startedTransport struct {
	sdk.CommandTransport
	started *started
}

func (t *startedTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := t.CommandTransport.Connect(ctx)
	if p := t.Command.Process; p != nil {
		t.started.set(p)
	}
	return conn, err
}

// started holds a stdio server's process once it has started.
type started struct {
	mu sync.Mutex
	p  *os.Process
}

func (s *started) set(p *os.Process) {
	s.mu.Lock()
	s.p = p
	s.mu.Unlock()
}

// kill ends the process and its group; nothing before it started.
func (s *started) kill() {
	s.mu.Lock()
	p := s.p
	s.mu.Unlock()
	if p != nil {
		killTree(p)
	}
}

// watch waits for the session to end; an end lunar did not ask for takes
// the server's tools away, with one warning.
func (c *conn) watch(s *sdk.ClientSession) {
	err := s.Wait()
	defer close(c.exited)
	if c.m.isClosing() {
		return
	}
	c.mu.Lock()
	was := c.state
	if was == StateReady || was == StateStarting {
		if err == nil {
			err = errors.New("the server exited")
		}
		c.state, c.err = StateFailed, fmt.Errorf("stopped: %w", err)
	}
	kill := c.kill
	c.mu.Unlock()
	if kill != nil {
		kill()
	}
	if was == StateReady {
		c.m.opts.Warn(fmt.Sprintf("mcp: server %q stopped (%v): its tools are gone", c.cfg.Name, err))
	}
}

// stop ends the server as lunar leaves.
func (c *conn) stop() {
	c.mu.Lock()
	s, kill, was := c.session, c.kill, c.state
	if was != StateFailed {
		c.state = StateStopped
	}
	c.mu.Unlock()
	if s == nil {
		return
	}
	closed := make(chan struct{})
	go func() {
		s.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(2 * time.Second):
	}
	if kill != nil {
		kill() // children it left behind, or a server that ignored stdin closing
	}
}

// headerTransport adds the configured headers to every request.
type headerTransport struct{ headers map[string]string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}
