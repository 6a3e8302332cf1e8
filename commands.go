// Session-level operations shared by the REPL's slash commands and the Lua
// host (ctx.set_model, ctx.session.branch, lunar.complete, ...): model and
// thinking changes, /clear, branching with an optional LLM summary, forks,
// session switches, and one-off model calls.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/session"
)

// cancelledError is returned when a hook cancelled an operation.
type cancelledError struct {
	op     string // "clear", "switch", "branch", "fork"
	reason string
}

func (e *cancelledError) Error() string {
	if e.reason == "" {
		return e.op + " cancelled by a hook"
	}
	return e.op + " cancelled by a hook: " + e.reason
}

// appHookSet returns the app's hooks, or hooks that do nothing.
func (a *app) appHookSet() appHooks {
	if a.hooks == nil {
		return nopHooks{}
	}
	return a.hooks
}

// modelSpec is "provider/id".
func modelSpec(m agent.Model) string { return m.Provider + "/" + m.ID }

// setModel switches the model: "provider/id" (or a bare id the registry
// knows), or "next" to cycle through the config's "models" list. It
// records a model_change entry and fires model.change; choosing the
// current model again does nothing.
func (a *app) setModel(ctx context.Context, spec string) error {
	spec = strings.TrimSpace(spec)
	if spec == "next" {
		next, err := a.nextModelSpec()
		if err != nil {
			return err
		}
		spec = next
	}
	m, err := a.registry.Resolve(spec)
	if err != nil {
		return err
	}
	// --base-url was given for the model chosen at startup; it only makes
	// sense for that model's provider.
	if m.Provider == a.model.Provider {
		m = a.withFlags(m)
	}
	if m.Provider == a.model.Provider && m.ID == a.model.ID {
		return nil
	}
	if _, err := a.apiKey(m); err != nil {
		return fmt.Errorf("model %s: %w", modelSpec(m), err)
	}
	prev := a.model
	if _, err := a.sess.AppendModelChange(m.Provider, m.ID); err != nil {
		return fmt.Errorf("model %s: %w", modelSpec(m), err)
	}
	a.model = m
	if a.agent != nil {
		a.agent.Model = m
	}
	a.appHookSet().ModelChange(ctx, prev.Provider, prev.ID, m.Provider, m.ID, a.thinking)
	return nil
}

// nextModelSpec is the entry after the current model in the config's
// cycle list (the first one when the current model is not in it).
func (a *app) nextModelSpec() (string, error) {
	var list []string
	for _, s := range a.cfg.Models {
		if s = strings.TrimSpace(s); s != "" {
			list = append(list, s)
		}
	}
	if len(list) == 0 {
		return "", errors.New(`no models to cycle through: list them under "models" in config.json`)
	}
	cur := modelSpec(a.model)
	for i, s := range list {
		if s == cur || s == a.model.ID {
			return list[(i+1)%len(list)], nil
		}
	}
	return list[0], nil
}

// setThinking changes the thinking level, recording a
// thinking_level_change entry.
func (a *app) setThinking(ctx context.Context, level string) error {
	level = strings.TrimSpace(level)
	if !validThinking(level) {
		return fmt.Errorf("thinking level %q is not one of %s", level, strings.Join(thinkingLevels, "|"))
	}
	if level == a.thinking {
		return nil
	}
	if _, err := a.sess.AppendThinkingLevel(level); err != nil {
		return fmt.Errorf("thinking level: %w", err)
	}
	a.thinking = level
	if a.agent != nil {
		a.agent.ThinkingLevel = level
	}
	return nil
}

// newSession creates an empty session (in memory with --no-session) that
// starts, as every new session does, with the model and thinking level.
func (a *app) newSession() (*session.Session, error) {
	var s *session.Session
	if a.opts.NoSession {
		s = session.CreateInMemory(a.cwd)
	} else {
		var err error
		if s, err = session.Create(a.sessionDir(), a.cwd); err != nil {
			return nil, err
		}
	}
	if _, err := s.AppendModelChange(a.model.Provider, a.model.ID); err != nil {
		return nil, err
	}
	if _, err := s.AppendThinkingLevel(a.thinking); err != nil {
		return nil, err
	}
	return s, nil
}

// useSession makes s the current session, closing the previous one.
func (a *app) useSession(s *session.Session) {
	old := a.sess
	a.sess = s
	if a.agent != nil {
		a.agent.Session = s
	}
	if old != nil && old != s {
		if err := old.Close(); err != nil {
			fmt.Fprintf(a.stderr, "lunar: closing session: %v\n", err)
		}
	}
}

// clearSession starts a new session (/clear) unless a
// session.before_clear hook cancels it.
func (a *app) clearSession(ctx context.Context) error {
	h := a.appHookSet()
	if cancel, reason := h.BeforeClear(ctx); cancel {
		return &cancelledError{op: "clear", reason: reason}
	}
	s, err := a.newSession()
	if err != nil {
		return fmt.Errorf("clear: %w", err)
	}
	a.useSession(s)
	h.Clear(ctx)
	return nil
}

// entry returns the entry id of the current session, or an error naming it.
func (a *app) entry(id string) (*session.Entry, error) {
	e := a.sess.Get(id)
	if e == nil {
		return nil, fmt.Errorf("no entry %q in this session (see /tree)", id)
	}
	return e, nil
}

// branchTo moves the leaf to entry id, as pi's tree navigation: a user
// message (or custom message) as target moves the leaf to its parent and
// puts its text into the editor for editing and resending; any other entry
// becomes the leaf itself. session.before_branch hooks may cancel or supply
// a summary of the branch being left; with summarize and no hook summary,
// the model writes one. Either way a summary is stored as a branch_summary
// entry on the new leaf.
func (a *app) branchTo(ctx context.Context, id string, summarize bool) error {
	return a.branch(ctx, id, summarize, "")
}

// branch is branchTo with a summary given by the caller (a hook's
// ctx.session.branch(id, summary)): stored as from a hook, it takes
// precedence over a session.before_branch summary and the model's.
func (a *app) branch(ctx context.Context, id string, summarize bool, given string) error {
	target, err := a.entry(id)
	if err != nil {
		return err
	}
	oldLeaf := a.sess.LeafID()
	if target.ID == oldLeaf {
		return nil
	}
	h := a.appHookSet()
	cancel, hookSummary := h.BeforeBranch(ctx, target.ID, oldLeaf)
	if cancel {
		return &cancelledError{op: "branch"}
	}

	newLeaf, editorText := target.ID, ""
	if (target.Type == session.TypeMessage && target.Message != nil && target.Message.Role == session.RoleUser) ||
		target.Type == session.TypeCustomMessage {
		newLeaf = target.ParentID
		if target.Message != nil {
			editorText = target.Message.Text()
		} else {
			editorText = blocksText(target.Content)
		}
	}

	if given != "" {
		hookSummary = given
	}
	summary, fromHook := hookSummary, hookSummary != ""
	var details json.RawMessage
	if summary == "" && summarize {
		if summary, details, err = a.branchSummary(ctx, oldLeaf, target.ID); err != nil {
			return err
		}
	}
	if summary != "" {
		if _, err := a.sess.BranchWithSummary(newLeaf, summary, details, fromHook); err != nil {
			return fmt.Errorf("branch to %s: %w", id, err)
		}
	} else if err := a.sess.Branch(newLeaf); err != nil {
		return fmt.Errorf("branch to %s: %w", id, err)
	}
	if editorText != "" && a.ui != nil {
		a.ui.SetEditorText(editorText)
	}
	h.Branch(ctx, target.ID, oldLeaf)
	return nil
}

// forkAt copies the path from the root to entry id (the leaf when id is
// empty) into a new session file and continues there.
func (a *app) forkAt(ctx context.Context, id string) error {
	if id == "" {
		id = a.sess.LeafID()
		if id == "" {
			return errors.New("fork: the session is empty")
		}
	}
	if _, err := a.entry(id); err != nil {
		return err
	}
	h := a.appHookSet()
	if cancel, reason := h.BeforeFork(ctx, id); cancel {
		return &cancelledError{op: "fork", reason: reason}
	}
	s, err := a.sess.Fork(id, a.sessionDir())
	if err != nil {
		return fmt.Errorf("fork at %s: %w", id, err)
	}
	previous := a.sess.File()
	a.useSession(s)
	h.Fork(ctx, id, previous)
	return nil
}

// switchSession continues the session in file path, taking its model and
// thinking level unless flags chose them. session.before_switch hooks may
// cancel it.
func (a *app) switchSession(ctx context.Context, path string) error {
	if a.sess != nil && a.sess.File() == path {
		return errors.New("that is the current session")
	}
	h := a.appHookSet()
	if cancel, reason := h.BeforeSwitch(ctx, path); cancel {
		return &cancelledError{op: "switch", reason: reason}
	}
	s, err := session.Open(path)
	if err != nil {
		return err
	}
	for _, w := range s.Warnings() {
		fmt.Fprintf(a.stderr, "lunar: warning: %s\n", w)
	}
	previous := ""
	if a.sess != nil {
		previous = a.sess.File()
	}
	prevModel := a.model
	a.useSession(s)
	a.resumed = true
	a.restoreFromContext()
	if a.agent != nil {
		a.agent.Model = a.model
		a.agent.ThinkingLevel = a.thinking
	}
	if prevModel.Provider != a.model.Provider || prevModel.ID != a.model.ID {
		h.ModelChange(ctx, prevModel.Provider, prevModel.ID, a.model.Provider, a.model.ID, a.thinking)
	}
	h.Switch(ctx, previous)
	return nil
}

// complete makes one model call without tools (summaries, lunar.complete)
// and returns the text of the answer. model nil means the current model;
// auth.get hooks apply as they do to the agent's calls.
func (a *app) complete(ctx context.Context, msgs []session.Message, system string, maxTokens int, model *agent.Model) (string, error) {
	m := a.model
	if model != nil {
		m = *model
	}
	req := &agent.Request{
		Model:        m,
		SystemPrompt: system,
		Messages:     session.ConvertToLLM(msgs),
		Params:       agent.Params{MaxTokens: maxTokens, ThinkingLevel: agent.ThinkingOff},
	}
	if a.agent != nil && a.agent.Hooks != nil {
		auth := a.agent.Hooks.Auth(ctx, m.Provider, m.ID)
		if auth.BaseURL != "" {
			req.Model.BaseURL = auth.BaseURL
		}
		req.Headers, req.APIKey = auth.Headers, auth.APIKey
	}
	if req.APIKey == "" {
		key, err := a.apiKey(req.Model)
		if err != nil {
			return "", err
		}
		req.APIKey = key
	}
	msg, err := a.registry.NewProvider(req.Model).Stream(ctx, req, func(agent.StreamEvent) {})
	if ctx.Err() != nil {
		return "", agent.ErrAborted
	}
	if err != nil {
		return "", err
	}
	if msg.StopReason == session.StopError {
		return "", fmt.Errorf("%s: %s", modelSpec(m), msg.ErrorMessage)
	}
	var parts []string
	for _, b := range msg.Content {
		if b.Type == session.BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n"), nil
}

func blocksText(blocks []session.ContentBlock) string {
	var b strings.Builder
	for _, c := range blocks {
		if c.Type == session.BlockText {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// Branch summaries, as pi's tree navigation writes them.
const (
	branchSummaryPreamble = "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n"

	summarizationSystemPrompt = `You summarize conversations between a user and an AI coding assistant. Read the conversation you are given and write the structured summary asked for, in exactly the requested format.

Do NOT continue the conversation and do NOT answer questions found in it. Output the summary only.`

	branchSummaryPrompt = `Summarize this conversation branch so the work can be picked up again later.

Use exactly this format:

## Goal
[What the user wanted to achieve on this branch]

## Constraints & Preferences
- [Requirements, constraints or preferences the user stated]
- [Or "(none)" when there were none]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work begun but not finished]

### Blocked
- [What stands in the way, if anything]

## Key Decisions
- **[Decision]**: [Short reason]

## Next Steps
1. [What to do next to carry on]

Be brief in every section. Keep exact file paths, function names and error messages.`

	branchSummaryReserveTokens = 16384
	branchSummaryMaxTokens     = 2048
	toolResultSummaryChars     = 2000
)

// branchSummary asks the model to summarise the entries from oldLeaf back
// to its deepest common ancestor with target. It returns the summary (with
// pi's preamble and file lists) and its details {readFiles, modifiedFiles}.
func (a *app) branchSummary(ctx context.Context, oldLeaf, target string) (string, json.RawMessage, error) {
	entries := a.branchEntries(oldLeaf, target)
	window := a.model.ContextWindow
	if window <= 0 {
		window = 128000
	}
	msgs, ops := prepareBranchEntries(entries, window-branchSummaryReserveTokens)
	if len(msgs) == 0 {
		return "", nil, nil
	}
	prompt := "<conversation>\n" + serializeConversation(session.ConvertToLLM(msgs)) + "\n</conversation>\n\n" + branchSummaryPrompt
	user := session.Message{Role: session.RoleUser, Content: []session.ContentBlock{{Type: session.BlockText, Text: prompt}},
		Timestamp: time.Now().UnixMilli()}
	text, err := a.complete(ctx, []session.Message{user}, summarizationSystemPrompt, branchSummaryMaxTokens, nil)
	if err != nil {
		return "", nil, fmt.Errorf("branch summary: %w", err)
	}
	read, modified := ops.lists()
	summary := branchSummaryPreamble + text + formatFileOps(read, modified)
	details, _ := json.Marshal(struct {
		ReadFiles     []string `json:"readFiles"`
		ModifiedFiles []string `json:"modifiedFiles"`
	}{read, modified})
	return summary, details, nil
}

// branchEntries are the entries from oldLeaf back to (not including) the
// deepest entry it shares with target's path, oldest first.
func (a *app) branchEntries(oldLeaf, target string) []*session.Entry {
	if oldLeaf == "" {
		return nil
	}
	onOld := map[string]bool{}
	for _, e := range a.sess.Path(oldLeaf) {
		onOld[e.ID] = true
	}
	common := ""
	tp := a.sess.Path(target)
	for i := len(tp) - 1; i >= 0; i-- {
		if onOld[tp[i].ID] {
			common = tp[i].ID
			break
		}
	}
	var out []*session.Entry
	for id := oldLeaf; id != "" && id != common; {
		e := a.sess.Get(id)
		if e == nil {
			break
		}
		out = append(out, e)
		id = e.ParentID
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// fileOps collects the files a branch read, wrote and edited.
type fileOps struct{ read, written, edited map[string]bool }

func newFileOps() fileOps {
	return fileOps{read: map[string]bool{}, written: map[string]bool{}, edited: map[string]bool{}}
}

// addToolCalls records the read/write/edit calls of an assistant message.
func (f fileOps) addToolCalls(m *session.Message) {
	if m.Role != session.RoleAssistant {
		return
	}
	for _, c := range m.ToolCalls() {
		var args struct {
			Path string `json:"path"`
		}
		if json.Unmarshal(c.Arguments, &args) != nil || args.Path == "" {
			continue
		}
		switch c.Name {
		case "read":
			f.read[args.Path] = true
		case "write":
			f.written[args.Path] = true
		case "edit":
			f.edited[args.Path] = true
		}
	}
}

// lists returns the files only read and the files modified, sorted.
func (f fileOps) lists() (read, modified []string) {
	mod := map[string]bool{}
	for p := range f.edited {
		mod[p] = true
	}
	for p := range f.written {
		mod[p] = true
	}
	read, modified = []string{}, []string{}
	for p := range f.read {
		if !mod[p] {
			read = append(read, p)
		}
	}
	for p := range mod {
		modified = append(modified, p)
	}
	sort.Strings(read)
	sort.Strings(modified)
	return read, modified
}

func formatFileOps(read, modified []string) string {
	var sections []string
	if len(read) > 0 {
		sections = append(sections, "<read-files>\n"+strings.Join(read, "\n")+"\n</read-files>")
	}
	if len(modified) > 0 {
		sections = append(sections, "<modified-files>\n"+strings.Join(modified, "\n")+"\n</modified-files>")
	}
	if len(sections) == 0 {
		return ""
	}
	return "\n\n" + strings.Join(sections, "\n\n")
}

// branchMessage is the message an entry contributes to a branch summary;
// tool results are left out (the calls say enough).
func branchMessage(e *session.Entry) (session.Message, bool) {
	ts := entryMillis(e)
	switch e.Type {
	case session.TypeMessage:
		if e.Message == nil || e.Message.Role == session.RoleToolResult {
			return session.Message{}, false
		}
		return *e.Message, true
	case session.TypeCustomMessage:
		return session.Message{Role: session.RoleCustom, CustomType: e.CustomType, Content: e.Content,
			ContentIsString: e.ContentIsString, Display: e.Display, Details: e.Details, Timestamp: ts}, true
	case session.TypeBranchSummary:
		return session.Message{Role: session.RoleBranchSummary, Summary: e.Summary, FromID: e.FromID, Timestamp: ts}, true
	case session.TypeCompaction:
		return session.Message{Role: session.RoleCompactionSummary, Summary: e.Summary, TokensBefore: e.TokensBefore, Timestamp: ts}, true
	}
	return session.Message{}, false
}

func entryMillis(e *session.Entry) int64 {
	t, err := time.Parse(time.RFC3339Nano, e.Timestamp)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

// prepareBranchEntries picks the messages to summarise, newest first until
// the token budget is spent (a summary entry still fits while under 90%),
// and collects file operations from all of them and from earlier
// lunar/pi-made branch summaries.
func prepareBranchEntries(entries []*session.Entry, budget int) ([]session.Message, fileOps) {
	ops := newFileOps()
	for _, e := range entries {
		if e.Type != session.TypeBranchSummary || e.FromHook || len(e.Details) == 0 {
			continue
		}
		var d struct {
			ReadFiles     []string `json:"readFiles"`
			ModifiedFiles []string `json:"modifiedFiles"`
		}
		if json.Unmarshal(e.Details, &d) == nil {
			for _, p := range d.ReadFiles {
				ops.read[p] = true
			}
			for _, p := range d.ModifiedFiles {
				ops.edited[p] = true
			}
		}
	}
	var msgs []session.Message
	total := 0
	for i := len(entries) - 1; i >= 0; i-- {
		m, ok := branchMessage(entries[i])
		if !ok {
			continue
		}
		ops.addToolCalls(&m)
		tok := session.EstimateTokens(&m)
		if budget > 0 && total+tok > budget {
			isSummary := entries[i].Type == session.TypeCompaction || entries[i].Type == session.TypeBranchSummary
			if isSummary && float64(total) < float64(budget)*0.9 {
				msgs = append([]session.Message{m}, msgs...)
			}
			break
		}
		msgs = append([]session.Message{m}, msgs...)
		total += tok
	}
	return msgs, ops
}

// serializeConversation renders LLM messages as plain text for a
// summarisation prompt, so the model does not take it as a conversation to
// continue.
func serializeConversation(msgs []session.Message) string {
	var parts []string
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case session.RoleUser:
			if t := m.Text(); t != "" {
				parts = append(parts, "[User]: "+t)
			}
		case session.RoleAssistant:
			var text, thinking, calls []string
			for _, b := range m.Content {
				switch b.Type {
				case session.BlockText:
					text = append(text, b.Text)
				case session.BlockThinking:
					thinking = append(thinking, b.Thinking)
				case session.BlockToolCall:
					calls = append(calls, b.Name+"("+argList(b.Arguments)+")")
				}
			}
			if len(thinking) > 0 {
				parts = append(parts, "[Assistant thinking]: "+strings.Join(thinking, "\n"))
			}
			if len(text) > 0 {
				parts = append(parts, "[Assistant]: "+strings.Join(text, "\n"))
			}
			if len(calls) > 0 {
				parts = append(parts, "[Assistant tool calls]: "+strings.Join(calls, "; "))
			}
		case session.RoleToolResult:
			if t := m.Text(); t != "" {
				if r := []rune(t); len(r) > toolResultSummaryChars {
					t = string(r[:toolResultSummaryChars]) + fmt.Sprintf("\n\n[... %d more characters truncated]", len(r)-toolResultSummaryChars)
				}
				parts = append(parts, "[Tool result]: "+t)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

// argList renders a JSON object's members as k=<JSON value>, in their
// original order.
func argList(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return string(raw)
	}
	var parts []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		var buf bytes.Buffer
		if json.Compact(&buf, v) != nil {
			buf.Reset()
			buf.Write(v)
		}
		parts = append(parts, key+"="+buf.String())
	}
	return strings.Join(parts, ", ")
}
