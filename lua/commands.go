package lua

// This file runs what hooks register for the front ends: slash commands
// and renderers of custom messages.

import (
	"context"
	"fmt"
	"strings"
	"time"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/session"
)

// CommandInfo describes a hook command for /help and completion.
type CommandInfo struct {
	Name        string // without the slash
	Description string
	Hook        string // file name of the hook that registered it
}

// Commands lists the hook commands, in load order.
func (r *Runtime) Commands() []CommandInfo {
	s := r.snap.Load()
	out := make([]CommandInfo, len(s.cmdOrder))
	for i, c := range s.cmdOrder {
		out[i] = CommandInfo{Name: c.name, Description: c.description, Hook: c.h.src.Name}
	}
	return out
}

// RunCommand runs the hook command name (without the slash) with the raw
// argument text. handled is false when no hook has that command. A
// non-empty prompt is to be sent as the user's message. Command handlers
// have no timeout; ctx (Ctrl+C) cancels them.
func (r *Runtime) RunCommand(ctx context.Context, name, args string) (prompt string, handled bool, err error) {
	c := r.snap.Load().commands[strings.TrimPrefix(name, "/")]
	if c == nil {
		return "", false, nil
	}
	h := c.h
	start := time.Now()
	err = h.run(context.WithValue(ctx, commandKey{}, h), 0, c.fn, func(L *glua.LState) ([]glua.LValue, error) {
		words := h.codec().NewArray(0)
		for _, w := range strings.Fields(args) {
			words.Append(glua.LString(w))
		}
		cmdCtx := h.ctxTable(true)
		cmdCtx.RawSetString("args", words)
		return []glua.LValue{glua.LString(args), cmdCtx}, nil
	}, func(ret glua.LValue) error {
		switch v := ret.(type) {
		case glua.LString:
			prompt = string(v)
		case *glua.LNilType:
		default:
			return fmt.Errorf("bad result: a prompt string or nil expected, got %s", ret.Type())
		}
		return nil
	})
	r.trace(h, "/"+c.name, start, err)
	if err != nil {
		return "", true, fmt.Errorf("hook %s: /%s: %w", h.src.Name, c.name, err)
	}
	return prompt, true, nil
}

// commandKey marks the context of a command handler call with its hook.
type commandKey struct{}

// Render renders a custom message with the renderer registered for its
// custom type; ok is false when there is none or it failed (reported) or
// returned nil, and the front end then prints the message its own way.
func (r *Runtime) Render(m *session.Message, expanded bool) (text string, ok bool) {
	rd := r.snap.Load().renderers[m.CustomType()]
	if rd == nil {
		return "", false
	}
	h := rd.h
	start := time.Now()
	err := h.run(context.Background(), r.opts.Timeout, rd.fn, func(L *glua.LState) ([]glua.LValue, error) {
		msg, err := h.messageLua(m)
		if err != nil {
			return nil, err
		}
		opts := L.CreateTable(0, 1)
		opts.RawSetString("expanded", glua.LBool(expanded))
		return []glua.LValue{msg, opts}, nil
	}, func(ret glua.LValue) error {
		switch v := ret.(type) {
		case glua.LString:
			text, ok = string(v), true
		case *glua.LNilType:
		default:
			return fmt.Errorf("bad result: a string or nil expected, got %s", ret.Type())
		}
		return nil
	})
	r.trace(h, "renderer "+m.CustomType(), start, err)
	if err != nil {
		r.report(fmt.Sprintf("hook %s: renderer %s: %v", h.src.Name, m.CustomType(), err))
		return "", false
	}
	return text, ok
}
