package main

// ctx.ui for hooks in --mode rpc: dialogs are pi's extension_ui_request
// lines on stdout, answered by extension_ui_response lines on stdin;
// notifications and the editor text are requests that want no answer.

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/lunar-cli/lunar/session/export/ansi"
)

// rpcUIAnswer is an extension_ui_response: a value, a confirmation or
// cancelled.
type rpcUIAnswer struct {
	value     *string
	confirmed *bool
	cancelled bool
}

// rpcUI implements hookUI over the RPC protocol.
type rpcUI struct {
	out    *jsonWriter
	stderr io.Writer

	mu      sync.Mutex
	pending map[string]chan rpcUIAnswer
	editor  string
}

func newRPCUI(out *jsonWriter, stderr io.Writer) *rpcUI {
	return &rpcUI{out: out, stderr: stderr, pending: map[string]chan rpcUIAnswer{}}
}

// HasUI is true: the client answers dialogs.
func (u *rpcUI) HasUI() bool { return true }

// rpcUIRequest is pi's RpcExtensionUIRequest (the fields of all methods).
type rpcUIRequest struct {
	Type        string    `json:"type"`
	ID          string    `json:"id"`
	Method      string    `json:"method"`
	Title       *string   `json:"title,omitempty"`
	Options     *[]string `json:"options,omitempty"`
	Message     *string   `json:"message,omitempty"`
	Placeholder *string   `json:"placeholder,omitempty"`
	NotifyType  string    `json:"notifyType,omitempty"`
	Text        *string   `json:"text,omitempty"`
	Prefill     *string   `json:"prefill,omitempty"`
}

// ask writes a request and waits for its answer; a cancelled request
// (cancelAll: an abort, the end of stdin) answers cancelled.
func (u *rpcUI) ask(req rpcUIRequest) rpcUIAnswer {
	req.Type, req.ID = "extension_ui_request", rand.Text()
	ch := make(chan rpcUIAnswer, 1)
	u.mu.Lock()
	u.pending[req.ID] = ch
	u.mu.Unlock()
	u.out.write(req)
	return <-ch
}

// answer delivers an extension_ui_response; one for no open request
// (answered, cancelled, or never asked) is dropped, as in pi.
func (u *rpcUI) answer(c rpcCommand) {
	var id string
	if json.Unmarshal(c.ID, &id) != nil {
		return
	}
	u.mu.Lock()
	ch, ok := u.pending[id]
	delete(u.pending, id)
	u.mu.Unlock()
	if ok {
		ch <- rpcUIAnswer{value: c.Value, confirmed: c.Confirmed, cancelled: c.Cancelled}
	}
}

// cancelAll answers every open request as cancelled.
func (u *rpcUI) cancelAll() {
	u.mu.Lock()
	defer u.mu.Unlock()
	for id, ch := range u.pending {
		ch <- rpcUIAnswer{cancelled: true}
		delete(u.pending, id)
	}
}

// Select asks the client to pick one of options; an answer that is not
// one of them counts as cancelled.
func (u *rpcUI) Select(title string, options []string) (string, bool) {
	if len(options) == 0 {
		return "", false
	}
	a := u.ask(rpcUIRequest{Method: "select", Title: &title, Options: &options})
	if a.cancelled || a.value == nil {
		return "", false
	}
	for _, o := range options {
		if o == *a.value {
			return o, true
		}
	}
	fmt.Fprintf(u.stderr, "lunar: extension_ui_response: %q is not one of the options of %q; taken as cancelled\n",
		ansi.Sanitize(*a.value), ansi.Sanitize(title))
	return "", false
}

// Confirm asks a yes/no question; anything but confirmed: true is no.
func (u *rpcUI) Confirm(title, message string) bool {
	a := u.ask(rpcUIRequest{Method: "confirm", Title: &title, Message: &message})
	return !a.cancelled && a.confirmed != nil && *a.confirmed
}

// Input asks for a line of text.
func (u *rpcUI) Input(title, placeholder string) (string, bool) {
	req := rpcUIRequest{Method: "input", Title: &title}
	if placeholder != "" {
		req.Placeholder = &placeholder
	}
	a := u.ask(req)
	if a.cancelled || a.value == nil {
		return "", false
	}
	return *a.value, true
}

// Editor asks the client for text of several lines (pi's "editor"
// request, prefilled with text).
func (u *rpcUI) Editor(title, text string) (string, bool) {
	req := rpcUIRequest{Method: "editor", Title: &title}
	if text != "" {
		req.Prefill = &text
	}
	a := u.ask(req)
	if a.cancelled || a.value == nil {
		return "", false
	}
	return *a.value, true
}

// Notify sends a notification (no answer is expected).
func (u *rpcUI) Notify(message, level string) {
	switch level {
	case "warning", "error":
	default: // "info", and lunar's "success" (ctx.session.toast)
		level = "info"
	}
	u.out.write(rpcUIRequest{Type: "extension_ui_request", ID: rand.Text(), Method: "notify", Message: &message, NotifyType: level})
}

// SetEditorText sends pi's set_editor_text request and remembers the
// text for EditorText (pi's getEditorText cannot ask the client).
func (u *rpcUI) SetEditorText(text string) {
	u.mu.Lock()
	u.editor = text
	u.mu.Unlock()
	u.out.write(rpcUIRequest{Type: "extension_ui_request", ID: rand.Text(), Method: "set_editor_text", Text: &text})
}

// EditorText is the last text a hook set.
func (u *rpcUI) EditorText() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.editor
}

// Print writes text to stderr, sanitised, as in one-shot mode: pi's
// protocol has no request for it and stdout carries protocol lines only.
func (u *rpcUI) Print(text string) {
	fmt.Fprintln(u.stderr, strings.TrimRight(ansi.Sanitize(text), "\n"))
}
