package main

// The commands of --mode rpc, as pi's rpc-mode answers them; each turns
// into calls on the session runtime (agent.Runtime). docs/rpc.md lists
// them with lunar's differences.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/agent/tools"
	"github.com/lunar-cli/lunar/session"
)

// rpcModel is pi's Model, from what lunar knows of one.
type rpcModel struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	API           string            `json:"api"`
	Provider      string            `json:"provider"`
	BaseURL       string            `json:"baseUrl"`
	Reasoning     bool              `json:"reasoning"`
	Input         []string          `json:"input"`
	Cost          rpcModelCost      `json:"cost"`
	ContextWindow int               `json:"contextWindow"`
	MaxTokens     int               `json:"maxTokens"`
	Headers       map[string]string `json:"headers,omitempty"`
}

type rpcModelCost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

func toRPCModel(m agent.Model) rpcModel {
	input := m.Input
	if input == nil {
		input = []string{agent.InputText}
	}
	return rpcModel{ID: m.ID, Name: m.ID, API: m.API, Provider: m.Provider, BaseURL: m.BaseURL, Reasoning: m.Reasoning, Input: input,
		Cost:          rpcModelCost{Input: m.Cost.Input, Output: m.Cost.Output, CacheRead: m.Cost.CacheRead, CacheWrite: m.Cost.CacheWrite},
		ContextWindow: m.ContextWindow, MaxTokens: m.MaxTokens, Headers: m.Headers}
}

// rpcState is pi's RpcSessionState.
type rpcState struct {
	Model                 rpcModel `json:"model"`
	ThinkingLevel         string   `json:"thinkingLevel"`
	IsStreaming           bool     `json:"isStreaming"`
	IsCompacting          bool     `json:"isCompacting"`
	SteeringMode          string   `json:"steeringMode"`
	FollowUpMode          string   `json:"followUpMode"`
	SessionFile           string   `json:"sessionFile,omitempty"`
	SessionID             string   `json:"sessionId"`
	SessionName           string   `json:"sessionName,omitempty"`
	AutoCompactionEnabled bool     `json:"autoCompactionEnabled"`
	MessageCount          int      `json:"messageCount"`
	PendingMessageCount   int      `json:"pendingMessageCount"`
}

// rpcCancelled is the data of commands a hook may cancel.
type rpcCancelled struct {
	Cancelled bool `json:"cancelled"`
}

// handle runs one command on the worker and answers it.
func (s *rpcServer) handle(c rpcCommand) {
	if c.bad != nil {
		s.respond(*c.bad)
		return
	}
	data, err := s.command(c)
	if errors.Is(err, errRPCAnswered) {
		return
	}
	s.reply(c, data, err)
}

// errRPCAnswered: the command answers by itself (a job's end).
var errRPCAnswered = errors.New("answered by the job")

// need fails when a required field is missing.
func need(c rpcCommand, field string, present bool) error {
	if !present {
		return rpcErrorf("%s: %q is required", c.Type, field)
	}
	return nil
}

func (s *rpcServer) command(c rpcCommand) (any, error) {
	rt := s.a.agentRuntime
	ctx := s.ctx
	switch c.Type {
	case "prompt":
		return nil, s.prompt(c)
	case "steer", "follow_up":
		if err := need(c, "message", c.Message != nil); err != nil {
			return nil, err
		}
		images, err := rpcImages(c)
		if err != nil {
			return nil, err
		}
		text, err := s.queuedText(*c.Message)
		if err != nil {
			return nil, err
		}
		s.queue(c.Type, text, images)
		return nil, nil
	case "new_session":
		if err := s.idle(); err != nil {
			return nil, err
		}
		return cancelledOr(rt.NewSessionFrom(ctx, c.ParentSession))
	case "get_state":
		return s.state(), nil
	case "set_model":
		if err := need(c, "provider", c.Provider != nil); err != nil {
			return nil, err
		}
		if err := need(c, "modelId", c.ModelID != nil); err != nil {
			return nil, err
		}
		m, ok := rt.Registry().Find(*c.Provider, *c.ModelID)
		if !ok {
			return nil, rpcErrorf("Model not found: %s/%s", *c.Provider, *c.ModelID)
		}
		if err := s.idle(); err != nil {
			return nil, err
		}
		if err := rt.SetModel(ctx, agent.ModelSpec(m)); err != nil {
			return nil, err
		}
		return toRPCModel(rt.Model()), nil
	case "cycle_model":
		if err := s.idle(); err != nil {
			return nil, err
		}
		return s.cycleModel()
	case "get_available_models":
		models := []rpcModel{}
		for _, m := range rt.Registry().Available() {
			models = append(models, toRPCModel(m))
		}
		return map[string]any{"models": models}, nil
	case "set_thinking_level":
		if err := need(c, "level", c.Level != nil); err != nil {
			return nil, err
		}
		if err := s.idle(); err != nil {
			return nil, err
		}
		if err := rt.SetThinkingLevel(ctx, *c.Level); err != nil {
			return nil, err
		}
		return nil, nil
	case "cycle_thinking_level":
		if err := s.idle(); err != nil {
			return nil, err
		}
		level, ok, err := rt.CycleThinkingLevel(ctx)
		if err != nil || !ok {
			return rpcNull, err
		}
		return map[string]string{"level": string(level)}, nil
	case "set_steering_mode", "set_follow_up_mode":
		if err := need(c, "mode", c.Mode != nil); err != nil {
			return nil, err
		}
		return nil, s.setQueueMode(c.Type, *c.Mode)
	case "compact":
		return nil, s.compact(c)
	case "set_auto_compaction":
		if err := need(c, "enabled", c.Enabled != nil); err != nil {
			return nil, err
		}
		rt.SetAutoCompaction(*c.Enabled)
		return nil, nil
	case "set_auto_retry", "abort_retry":
		return nil, rpcErrorf("%s: lunar has no automatic retry to switch or stop: the provider clients retry a failed request themselves (LUNAR_MAX_RETRIES times), and abort stops it", c.Type)
	case "bash":
		if err := need(c, "command", c.Command != nil); err != nil {
			return nil, err
		}
		return nil, s.bash(c)
	case "abort_bash":
		s.jobMu.Lock()
		if s.job != nil && s.job.kind == "bash" {
			s.job.cancel()
		}
		s.jobMu.Unlock()
		return nil, nil
	case "get_session_stats":
		return s.stats(), nil
	case "export_html":
		path, err := s.a.exportSession(rt.Session(), c.OutputPath)
		if err != nil {
			return nil, err
		}
		return map[string]string{"path": path}, nil
	case "switch_session":
		if err := need(c, "sessionPath", c.SessionPath != nil); err != nil {
			return nil, err
		}
		if err := s.idle(); err != nil {
			return nil, err
		}
		return cancelledOr(rt.Switch(ctx, *c.SessionPath))
	case "fork":
		if err := need(c, "entryId", c.EntryID != nil); err != nil {
			return nil, err
		}
		if err := s.idle(); err != nil {
			return nil, err
		}
		text, err := rt.ForkBefore(ctx, *c.EntryID)
		var ce *agent.CancelledError
		if errors.As(err, &ce) {
			return rpcCancelled{Cancelled: true}, nil
		}
		if err != nil {
			return nil, err
		}
		return struct {
			Text      string `json:"text"`
			Cancelled bool   `json:"cancelled"`
		}{text, false}, nil
	case "clone":
		if err := s.idle(); err != nil {
			return nil, err
		}
		if rt.Session().LeafID() == "" {
			return nil, rpcErrorf("Cannot clone session: no current entry selected")
		}
		return cancelledOr(rt.Fork(ctx, ""))
	case "get_fork_messages":
		type forkMessage struct {
			EntryID string `json:"entryId"`
			Text    string `json:"text"`
		}
		msgs := []forkMessage{}
		for _, e := range rt.Session().Entries() {
			if e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == session.RoleUser {
				if text := e.Message.Text(); text != "" {
					msgs = append(msgs, forkMessage{e.ID, text})
				}
			}
		}
		return map[string]any{"messages": msgs}, nil
	case "get_last_assistant_text":
		// pi leaves text out (undefined) when there is none.
		if text, ok := lastAssistantText(rt.Session()); ok {
			return map[string]string{"text": text}, nil
		}
		return struct{}{}, nil
	case "set_session_name":
		if err := need(c, "name", c.Name != nil); err != nil {
			return nil, err
		}
		name := strings.TrimSpace(*c.Name)
		if name == "" {
			return nil, rpcErrorf("Session name cannot be empty")
		}
		if err := rt.SetName(name); err != nil {
			return nil, err
		}
		return nil, nil
	case "get_messages":
		return map[string]any{"messages": contextMessages(rt.Session())}, nil
	case "get_commands":
		return map[string]any{"commands": s.commands()}, nil
	}
	return nil, rpcErrorf("Unknown command: %s", c.Type)
}

// cancelledOr is the data of a command a hook may cancel.
func cancelledOr(err error) (any, error) {
	var ce *agent.CancelledError
	if errors.As(err, &ce) {
		return rpcCancelled{Cancelled: true}, nil
	}
	if err != nil {
		return nil, err
	}
	return rpcCancelled{}, nil
}

// rpcImages converts a command's images.
func rpcImages(c rpcCommand) ([]session.ContentBlock, error) {
	var out []session.ContentBlock
	for i, im := range c.Images {
		if im.Type != "image" || im.Data == "" || im.MimeType == "" {
			return nil, rpcErrorf("%s: images[%d] must be {type: \"image\", data, mimeType}", c.Type, i)
		}
		out = append(out, session.ImageBlock(im.Data, im.MimeType))
	}
	return out, nil
}

// prompt starts a run. The response comes once the run has started (its
// first event) or, when it ends without one (a hook command, a handled
// input), with its result: pi answers after the prompt's preflight.
func (s *rpcServer) prompt(c rpcCommand) error {
	if err := need(c, "message", c.Message != nil); err != nil {
		return err
	}
	images, err := rpcImages(c)
	if err != nil {
		return err
	}
	if s.streaming() {
		// As in pi, a hook's command runs at once, even while the agent
		// streams (its ctx.is_idle() is false); a prompt it returns
		// follows the run up. Prompt templates, skills and MCP prompts
		// are queued expanded, as other text is. Once the run's final
		// reply has ended, a prompt is the next one (see streaming).
		if _, _, expand, ok := s.hookCommand(*c.Message); ok && !expand {
			if handled, err := s.a.hookCommandWhileRunning(*c.Message); handled || err != nil {
				return err
			}
		}
		kind := ""
		switch c.StreamingBehavior {
		case "steer":
			kind = "steer"
		case "followUp":
			kind = "follow_up"
		case "":
			return errRPCStreaming
		default:
			return rpcErrorf(`prompt: streamingBehavior must be "steer" or "followUp", not %q`, c.StreamingBehavior)
		}
		text, err := s.queuedText(*c.Message)
		if err != nil {
			return err
		}
		s.queue(kind, text, images)
		return nil
	}
	if err := s.afterJob(); err != nil {
		return err
	}
	answer := func(err error) { s.reply(c, nil, err) }
	s.preflight.Store(&answer)
	err = s.startJob("prompt", func(ctx context.Context) func() {
		err := s.a.submit(ctx, *c.Message, images)
		if err == nil {
			err = s.a.runPending(ctx)
		}
		if f := s.preflight.Swap(nil); f != nil {
			return func() { (*f)(err) } // no run started: the result is the answer
		}
		if err != nil && !errors.Is(err, agent.ErrAborted) && !errors.Is(err, context.Canceled) {
			s.a.warnf("%v", err)
		}
		return nil
	})
	if err != nil {
		s.preflight.Store(nil)
		return err
	}
	return errRPCAnswered
}

// queue puts a message in the steering or follow-up queue. As in pi,
// one sent while the agent is idle waits there (get_state counts it) for
// the next prompt's run: a steering message joins it after its prompt,
// before the first model call; a follow-up when it would stop.
func (s *rpcServer) queue(kind, text string, images []session.ContentBlock) {
	if kind == "steer" {
		s.a.agentRuntime.SteerNext(text, images)
		return
	}
	s.a.agentRuntime.FollowUpNext(text, images)
}

// queuedText is what steer and follow_up queue for text, as pi's steer
// and followUp: a prompt template, a skill or an MCP prompt is expanded
// first; any other hook command cannot be queued (pi's error); other text
// is queued as it is.
func (s *rpcServer) queuedText(text string) (string, error) {
	name, args, expand, ok := s.hookCommand(text)
	switch {
	case !ok:
		return text, nil
	case !expand:
		return "", rpcErrorf(`Extension command "/%s" cannot be queued. Use prompt() or execute the command when not streaming.`, name)
	}
	prompt, _, err := s.a.appHookSet().RunCommand(s.ctx, name, args)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(prompt) == "" {
		return "", rpcErrorf("/%s expanded to nothing: nothing was queued", name)
	}
	return prompt, nil
}

// hookCommand finds the hook command text names ("/name args"): ok is
// false when it names none; expand is true for what pi expands instead of
// running (prompt templates: the templates hook's commands; skills:
// skill:…; and lunar's MCP prompts).
func (s *rpcServer) hookCommand(text string) (name, args string, expand, ok bool) {
	t := strings.TrimSpace(text)
	if !isCommand(t) {
		return "", "", false, false
	}
	name = t[1:]
	if i := strings.IndexAny(name, " \t\n"); i >= 0 {
		name, args = name[:i], strings.TrimSpace(name[i:])
	}
	for _, cmd := range s.a.appHookSet().Commands() {
		if cmd.Name == name {
			return name, args, cmd.Source == "templates.lua" || cmd.Source == "MCP" || strings.HasPrefix(name, "skill:"), true
		}
	}
	return "", "", false, false
}

// setQueueMode is set_steering_mode and set_follow_up_mode.
func (s *rpcServer) setQueueMode(cmd, mode string) error {
	m, err := agent.ParseQueueMode(mode)
	if err != nil || mode == "" {
		return rpcErrorf(`%s: mode must be "all" or "one-at-a-time", not %q`, cmd, mode)
	}
	if cmd == "set_steering_mode" {
		s.a.agentRuntime.SetSteeringMode(m)
	} else {
		s.a.agentRuntime.SetFollowUpMode(m)
	}
	return nil
}

// compact compacts as a job; the response comes at its end.
func (s *rpcServer) compact(c rpcCommand) error {
	if err := s.idle(); err != nil {
		return err
	}
	err := s.startJob("compact", func(ctx context.Context) func() {
		res, err := s.a.agentRuntime.Compact(ctx, agent.CompactManual, strings.TrimSpace(c.CustomInstructions))
		if err != nil {
			return func() { s.reply(c, nil, err) }
		}
		data := jsonCompactionResult{Summary: res.Summary, FirstKeptEntryID: res.FirstKeptEntryID, TokensBefore: res.TokensBefore}
		return func() { s.reply(c, data, nil) }
	})
	if err != nil {
		return err
	}
	return errRPCAnswered
}

// rpcBashResult is pi's BashResult.
type rpcBashResult struct {
	Output         string `json:"output"`
	ExitCode       *int   `json:"exitCode,omitempty"`
	Cancelled      bool   `json:"cancelled"`
	Truncated      bool   `json:"truncated"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
}

// bash runs a command as the REPL's !command does (the output is kept in
// the session as a bashExecution message) as a job.
func (s *rpcServer) bash(c rpcCommand) error {
	if err := s.idle(); err != nil {
		return err
	}
	command := *c.Command
	err := s.startJob("bash", func(ctx context.Context) func() {
		res, err := tools.RunBash(ctx, s.a.cwd, command, 0, nil)
		if err != nil && !res.Cancelled {
			return func() { s.reply(c, nil, err) }
		}
		m := &session.Message{Role: session.RoleBashExecution, Timestamp: time.Now().UnixMilli(),
			Extra: &session.MessageExtra{Command: command, Output: res.Output, ExitCode: res.ExitCode, Cancelled: res.Cancelled,
				Truncated: res.Truncated, FullOutputPath: res.FullOutputPath}}
		if err := s.a.agentRuntime.RecordBash(m); err != nil {
			return func() { s.reply(c, nil, fmt.Errorf("saving the command's output: %w", err)) }
		}
		data := rpcBashResult{Output: res.Output, ExitCode: res.ExitCode, Cancelled: res.Cancelled, Truncated: res.Truncated,
			FullOutputPath: res.FullOutputPath}
		return func() { s.reply(c, data, nil) }
	})
	if err != nil {
		return err
	}
	return errRPCAnswered
}

// cycleModel is cycle_model over the config's "models" list (pi's
// --models scope); data null without two models to cycle through.
func (s *rpcServer) cycleModel() (any, error) {
	rt := s.a.agentRuntime
	if len(s.a.cfg.Models) < 2 {
		return rpcNull, nil
	}
	if err := rt.SetModel(s.ctx, "next"); err != nil {
		return nil, err
	}
	return struct {
		Model         rpcModel `json:"model"`
		ThinkingLevel string   `json:"thinkingLevel"`
		IsScoped      bool     `json:"isScoped"`
	}{toRPCModel(rt.Model()), string(rt.ThinkingLevel()), true}, nil
}

func (s *rpcServer) state() rpcState {
	rt := s.a.agentRuntime
	sess := rt.Session()
	steer, follow := rt.Queued()
	return rpcState{
		Model:                 toRPCModel(rt.Model()),
		ThinkingLevel:         string(rt.ThinkingLevel()),
		IsStreaming:           s.streaming(),
		IsCompacting:          rt.Compacting(),
		SteeringMode:          string(rt.SteeringMode()),
		FollowUpMode:          string(rt.FollowUpMode()),
		SessionFile:           sess.File(),
		SessionID:             sess.ID(),
		SessionName:           sess.Name(),
		AutoCompactionEnabled: rt.CompactionSettings().Enabled,
		MessageCount:          len(sess.BuildContext().Messages),
		PendingMessageCount:   len(steer) + len(follow),
	}
}

// contextMessages are the messages of the current context (pi's
// session.messages).
func contextMessages(s *session.Session) []session.Message {
	out := []session.Message{}
	for _, cm := range s.BuildContext().Messages {
		out = append(out, cm.Message)
	}
	return out
}

// lastAssistantText is pi's getLastAssistantText: the text of the last
// assistant message of the context (not an aborted empty one), trimmed;
// ok is false when there is none or it is empty.
func lastAssistantText(s *session.Session) (string, bool) {
	msgs := contextMessages(s)
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role != session.RoleAssistant || (m.StopReason == session.StopAborted && len(m.Content) == 0) {
			continue
		}
		var b strings.Builder
		for _, c := range m.Content {
			if c.Type == session.BlockText {
				b.WriteString(c.Text)
			}
		}
		text := strings.TrimSpace(b.String())
		return text, text != ""
	}
	return "", false
}

// rpcStats is pi's SessionStats.
type rpcStats struct {
	SessionFile       string `json:"sessionFile,omitempty"`
	SessionID         string `json:"sessionId"`
	UserMessages      int    `json:"userMessages"`
	AssistantMessages int    `json:"assistantMessages"`
	ToolCalls         int    `json:"toolCalls"`
	ToolResults       int    `json:"toolResults"`
	TotalMessages     int    `json:"totalMessages"`
	Tokens            struct {
		Input      int `json:"input"`
		Output     int `json:"output"`
		CacheRead  int `json:"cacheRead"`
		CacheWrite int `json:"cacheWrite"`
		Total      int `json:"total"`
	} `json:"tokens"`
	Cost         float64          `json:"cost"`
	ContextUsage *rpcContextUsage `json:"contextUsage,omitempty"`
}

type rpcContextUsage struct {
	Tokens        int     `json:"tokens"`
	ContextWindow int     `json:"contextWindow"`
	Percent       float64 `json:"percent"`
}

func (s *rpcServer) stats() rpcStats {
	rt := s.a.agentRuntime
	sess := rt.Session()
	st := rpcStats{SessionFile: sess.File(), SessionID: sess.ID()}
	msgs := contextMessages(sess)
	st.TotalMessages = len(msgs)
	for _, m := range msgs {
		switch m.Role {
		case session.RoleUser:
			st.UserMessages++
		case session.RoleToolResult:
			st.ToolResults++
		case session.RoleAssistant:
			st.AssistantMessages++
			for _, c := range m.Content {
				if c.Type == session.BlockToolCall {
					st.ToolCalls++
				}
			}
			if u := m.Usage; u != nil {
				st.Tokens.Input += u.Input
				st.Tokens.Output += u.Output
				st.Tokens.CacheRead += u.CacheRead
				st.Tokens.CacheWrite += u.CacheWrite
				st.Cost += u.Cost.Total
			}
		}
	}
	st.Tokens.Total = st.Tokens.Input + st.Tokens.Output + st.Tokens.CacheRead + st.Tokens.CacheWrite
	if w := rt.Model().ContextWindow; w > 0 {
		tokens := rt.ContextTokens()
		st.ContextUsage = &rpcContextUsage{Tokens: tokens, ContextWindow: w, Percent: float64(tokens) / float64(w) * 100}
	}
	return st
}

// rpcSlashCommand is pi's RpcSlashCommand.
type rpcSlashCommand struct {
	Name        string        `json:"name"`
	Description string        `json:"description,omitempty"`
	Source      string        `json:"source"`
	SourceInfo  rpcSourceInfo `json:"sourceInfo"`
}

type rpcSourceInfo struct {
	Path   string `json:"path"`
	Source string `json:"source"`
}

// commands are the hooks' commands: those of the bundled templates hook
// are pi's prompt templates, skill:… commands its skills, the rest
// extension commands.
func (s *rpcServer) commands() []rpcSlashCommand {
	out := []rpcSlashCommand{}
	for _, c := range s.a.appHookSet().Commands() {
		source := "extension"
		switch {
		case strings.HasPrefix(c.Name, "skill:"):
			source = "skill"
		case c.Source == "templates.lua":
			source = "prompt"
		}
		out = append(out, rpcSlashCommand{Name: c.Name, Description: c.Description, Source: source,
			SourceInfo: rpcSourceInfo{Path: c.Source, Source: "hook"}})
	}
	return out
}
