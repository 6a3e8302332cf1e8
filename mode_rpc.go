package main

// --mode rpc: pi's RPC protocol over stdin and stdout. Commands come in as
// JSON lines; responses ({"type":"response",…}), the events of --mode json
// and the hooks' dialogs (extension_ui_request, see mode_rpc_ui.go) go out
// as JSON lines, and nothing else is written to stdout. The commands and
// where lunar differs from pi are in docs/rpc.md.
//
// Three goroutines: the reader parses lines and answers dialogs and
// aborts at once; the worker runs the other commands in order; a job (a
// prompt's run, compact, bash) runs beside the worker, so that get_state,
// steer and follow_up are answered while it goes on.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/lunar-cli/lunar/agent"
)

// rpcCommand is one command line: every field any command takes (pi's
// RpcCommand), plus those of extension_ui_response.
type rpcCommand struct {
	ID                 json.RawMessage   `json:"id,omitempty"`
	Type               string            `json:"type"`
	Message            *string           `json:"message,omitempty"`
	Images             []rpcImageContent `json:"images,omitempty"`
	StreamingBehavior  string            `json:"streamingBehavior,omitempty"`
	ParentSession      string            `json:"parentSession,omitempty"`
	Provider           *string           `json:"provider,omitempty"`
	ModelID            *string           `json:"modelId,omitempty"`
	Level              *string           `json:"level,omitempty"`
	Mode               *string           `json:"mode,omitempty"`
	CustomInstructions string            `json:"customInstructions,omitempty"`
	Enabled            *bool             `json:"enabled,omitempty"`
	Command            *string           `json:"command,omitempty"`
	OutputPath         string            `json:"outputPath,omitempty"`
	SessionPath        *string           `json:"sessionPath,omitempty"`
	EntryID            *string           `json:"entryId,omitempty"`
	Name               *string           `json:"name,omitempty"`

	// extension_ui_response
	Value     *string `json:"value,omitempty"`
	Confirmed *bool   `json:"confirmed,omitempty"`
	Cancelled bool    `json:"cancelled,omitempty"`

	bad *rpcResponse // the answer to a line that is no command
}

// rpcImageContent is pi's ImageContent.
type rpcImageContent struct {
	Type     string `json:"type"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
}

// rpcResponse is pi's RpcResponse. Data is written as given (null too)
// when set.
type rpcResponse struct {
	ID      json.RawMessage `json:"id,omitempty"`
	Type    string          `json:"type"`
	Command string          `json:"command"`
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// rpcError is a command's failure, answered as pi's error response.
type rpcError struct{ msg string }

func (e *rpcError) Error() string { return e.msg }

func rpcErrorf(format string, args ...any) error { return &rpcError{fmt.Sprintf(format, args...)} }

// errRPCStreaming is pi's answer to a prompt while the agent runs.
var errRPCStreaming = &rpcError{"Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."}

// rpcJob is the long command running beside the worker.
type rpcJob struct {
	kind   string // "prompt", "compact" or "bash"
	cancel context.CancelFunc
	done   chan struct{}
}

// rpcServer serves one RPC session.
type rpcServer struct {
	a   *app
	out *jsonWriter
	ui  *rpcUI
	ctx context.Context // ends at a signal or the end of stdin

	jobMu sync.Mutex
	job   *rpcJob
	// preRun is true from the start of a prompt's job to its run's
	// agent_start (or the job's end without one).
	preRun atomic.Bool
	// preflight answers the prompt command whose run has not started yet:
	// at its first event, or at its end without one.
	preflight atomic.Pointer[func(error)]
}

// prepareRPC installs the UI hooks get in RPC mode (before they load).
func (a *app) prepareRPC() {
	a.rpc = &rpcServer{a: a, out: &jsonWriter{w: a.stdout}}
	a.rpc.ui = newRPCUI(a.rpc.out, a.stderr)
	a.ui = a.rpc.ui
}

// runRPC serves commands from stdin until it ends (or SIGTERM, SIGINT,
// SIGHUP), then stops what runs and saves the session.
func (a *app) runRPC() int {
	s := a.rpc
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	base, cancel := context.WithCancel(ctx)
	defer cancel()
	s.ctx = agent.WithInputSource(base, agent.SourceRPC)
	unsub := a.agentRuntime.Subscribe(s.event)
	defer unsub()
	a.agentRuntime.SetAbort(func() { s.abortJob() })

	// The worker may wait (a hook's dialog, a run's end): commands queue
	// up without limit, so that the reader always gets to the answers.
	cmds := make(chan rpcCommand)
	work := unboundedRPC(cmds)
	workerDone := make(chan struct{})
	go func() {
		defer close(workerDone)
		for c := range work {
			s.handle(c)
		}
	}()
	lines := make(chan []byte)
	go readRPCLines(a.stdin, lines)
read:
	for {
		select {
		case <-ctx.Done():
			break read
		case line, ok := <-lines:
			if !ok {
				break read
			}
			c, bad := parseRPC(line)
			switch {
			case bad != nil:
				cmds <- rpcCommand{bad: bad}
			case c.Type == "extension_ui_response":
				s.ui.answer(c)
			case c.Type == "abort":
				go s.abort(c)
			default:
				cmds <- c
			}
		}
	}
	// The end: what runs is stopped, open dialogs are cancelled, queued
	// commands still get their (quick) answers.
	cancel()
	s.ui.cancelAll()
	s.abortJob()
	close(cmds)
	finished := make(chan struct{})
	a.watchStop(ctx.Done(), finished)
	<-workerDone
	s.waitJob()
	close(finished)
	code := exitOK
	if ctx.Err() != nil {
		code = exitInterrupted
	}
	if err := a.agentRuntime.Shutdown(context.WithoutCancel(ctx)); err != nil {
		fmt.Fprintf(a.stderr, "lunar: saving session: %v\n", err)
		code = exitError
	}
	return code
}

// unboundedRPC passes the commands sent to in on to the channel it
// returns, in order, never blocking the sender; it closes that channel
// once in is closed and everything was passed on.
func unboundedRPC(in <-chan rpcCommand) <-chan rpcCommand {
	out := make(chan rpcCommand)
	go func() {
		defer close(out)
		var q []rpcCommand
		for in != nil || len(q) > 0 {
			var send chan rpcCommand
			var next rpcCommand
			if len(q) > 0 {
				send, next = out, q[0]
			}
			select {
			case c, ok := <-in:
				if !ok {
					in = nil
					continue
				}
				q = append(q, c)
			case send <- next:
				q = q[1:]
			}
		}
	}()
	return out
}

// readRPCLines sends the lines of r (split at \n only, a trailing \r
// dropped, as pi's strict JSONL framing) and closes lines at its end.
func readRPCLines(r io.Reader, lines chan<- []byte) {
	defer close(lines)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			line = []byte(strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r"))
			lines <- line
		}
		if err != nil {
			return
		}
	}
}

// parse decodes a command line. Bad input comes back as a command that
// carries its error response (bad), answered in turn by the worker.
func parseRPC(line []byte) (c rpcCommand, bad *rpcResponse) {
	var head struct {
		ID   json.RawMessage `json:"id"`
		Type *string         `json:"type"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field == "type" {
			return c, &rpcResponse{ID: head.ID, Error: `"type" must be a string`}
		}
		if errors.As(err, &ute) && ute.Field == "" {
			return c, &rpcResponse{Command: "parse", Error: "Failed to parse command: a command is a JSON object, not " + ute.Value}
		}
		return c, &rpcResponse{Command: "parse", Error: "Failed to parse command: " + err.Error()}
	}
	if head.Type == nil {
		return c, &rpcResponse{ID: head.ID, Error: `the command has no "type"`}
	}
	if err := json.Unmarshal(line, &c); err != nil {
		msg := err.Error()
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			msg = fmt.Sprintf("%s: %q must be %s, not %s", *head.Type, ute.Field, jsonKind(ute.Type.Kind().String()), ute.Value)
		}
		return c, &rpcResponse{ID: head.ID, Command: *head.Type, Error: msg}
	}
	return c, nil
}

// jsonKind names a Go kind as JSON does.
func jsonKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	}
	return "a number"
}

// respond writes a response.
func (s *rpcServer) respond(r rpcResponse) {
	r.Type = "response"
	s.out.write(r)
}

// reply answers command c with data (nil: no data) or err.
func (s *rpcServer) reply(c rpcCommand, data any, err error) {
	if err != nil {
		s.respond(rpcResponse{ID: c.ID, Command: c.Type, Error: err.Error()})
		return
	}
	r := rpcResponse{ID: c.ID, Command: c.Type, Success: true}
	if data != nil {
		raw, merr := json.Marshal(data)
		if merr != nil {
			s.respond(rpcResponse{ID: c.ID, Command: c.Type, Error: merr.Error()})
			return
		}
		r.Data = raw
	}
	s.respond(r)
}

// rpcNull is a response's "data": null (cycle_model without models).
var rpcNull = json.RawMessage("null")

// event writes a runtime event as --mode json does. The first loop or
// compaction event of a prompt's run answers the prompt first; changes
// of the queue and the settings (a hook command's) do not: as pi's, that
// answer follows them.
func (s *rpcServer) event(ev agent.RuntimeEvent) {
	if ev.Loop != nil || ev.Compaction != nil {
		if f := s.preflight.Swap(nil); f != nil {
			(*f)(nil)
		}
	}
	if ev.Loop != nil && ev.Loop.Type == agent.EventAgentStart {
		s.preRun.Store(false)
	}
	s.out.runtimeEvent(ev)
}

// startJob runs fn beside the worker as the job of kind, or fails when a
// job runs already. What fn returns (nil: nothing) runs once the job is
// over: a response sent there finds lunar ready for the next command.
func (s *rpcServer) startJob(kind string, fn func(ctx context.Context) (then func())) error {
	s.jobMu.Lock()
	defer s.jobMu.Unlock()
	if s.job != nil {
		return s.busy()
	}
	ctx, cancel := context.WithCancel(s.ctx)
	j := &rpcJob{kind: kind, cancel: cancel, done: make(chan struct{})}
	s.job = j
	if kind == "prompt" {
		s.preRun.Store(true)
	}
	go func() {
		var then func()
		defer func() {
			cancel()
			s.jobMu.Lock()
			s.job = nil
			s.jobMu.Unlock()
			s.preRun.Store(false)
			close(j.done)
			if then != nil {
				then()
			}
		}()
		then = fn(ctx)
	}()
	return nil
}

// busy is the error for a command that needs the session to itself.
func (s *rpcServer) busy() error {
	switch s.job.kind {
	case "prompt":
		return rpcErrorf("the agent is running: wait for agent_end, or send abort first")
	case "compact":
		return rpcErrorf("a compaction is running: wait for its response, or send abort first")
	}
	return rpcErrorf("a bash command is running: wait for its response, or send abort_bash first")
}

// streaming is pi's isStreaming as a client sees it: a prompt's job is
// on and its run has not started yet or accepts input
// (Runtime.Accepting). It turns false once the run's final reply has
// ended (no tool calls, nothing queued), before agent_end, as pi's agent
// is idle by the time a client reads its last message_end: a prompt
// then is the next prompt, not one for the run.
func (s *rpcServer) streaming() bool {
	s.jobMu.Lock()
	j := s.job
	s.jobMu.Unlock()
	return j != nil && j.kind == "prompt" && (s.preRun.Load() || s.a.agentRuntime.Accepting())
}

// idle waits for a prompt's job that no longer streams (its final reply
// has ended; it compacts, saves, runs queued prompts) to end, so that a
// client that saw the last message_end or agent_end can go on at once;
// it fails while a run streams, a compaction or a bash command runs.
func (s *rpcServer) idle() error {
	if s.streaming() {
		return rpcErrorf("the agent is running: wait for agent_end, or send abort first")
	}
	return s.afterJob()
}

// afterJob waits for the prompt's job that runs, if any, to end: the
// command after it is for the next run. It fails while a compaction or
// a bash command runs.
func (s *rpcServer) afterJob() error {
	s.jobMu.Lock()
	j := s.job
	if j != nil && j.kind != "prompt" {
		defer s.jobMu.Unlock()
		return s.busy()
	}
	s.jobMu.Unlock()
	if j != nil {
		<-j.done
	}
	return nil
}

// waitJob waits for the running job, if any.
func (s *rpcServer) waitJob() {
	s.jobMu.Lock()
	j := s.job
	s.jobMu.Unlock()
	if j != nil {
		<-j.done
	}
}

// abortJob cancels the running job (a prompt's run or a compaction; not
// a bash command: abort_bash stops that, as in pi).
func (s *rpcServer) abortJob() {
	s.jobMu.Lock()
	j := s.job
	s.jobMu.Unlock()
	if j != nil && j.kind != "bash" {
		j.cancel()
	}
}

// abort stops the running prompt or compaction, cancels the dialogs it
// waits on and answers once it has stopped.
func (s *rpcServer) abort(c rpcCommand) {
	s.jobMu.Lock()
	j := s.job
	s.jobMu.Unlock()
	if j != nil && j.kind != "bash" {
		j.cancel()
		s.ui.cancelAll()
		<-j.done
	}
	s.reply(c, nil, nil)
}
