// This file runs a server's prompts, offered as slash commands named
// like its tools: /mcp__<server>__<prompt> args.

package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// PromptInfo describes one prompt of a started server.
type PromptInfo struct {
	Name        string // the command name: mcp__server__prompt
	Description string
	Usage       string // its arguments, "<required> [optional]"
}

// Prompts lists the prompts of the servers that are ready, without
// starting any.
func (m *Manager) Prompts() []PromptInfo {
	if m.Empty() {
		return nil
	}
	var out []PromptInfo
	for _, c := range m.conns {
		c.mu.Lock()
		if c.state == StateReady {
			for _, p := range c.prompts {
				out = append(out, PromptInfo{Name: ToolName(c.cfg.Name, p.Name), Description: p.Description, Usage: usage(p)})
			}
		}
		c.mu.Unlock()
	}
	return out
}

func usage(p *sdk.Prompt) string {
	var parts []string
	for _, a := range p.Arguments {
		if a.Required {
			parts = append(parts, "<"+a.Name+">")
		} else {
			parts = append(parts, "["+a.Name+"]")
		}
	}
	return strings.Join(parts, " ")
}

// RunPrompt gets the prompt a command name stands for, its arguments
// given in order as words (the last one takes the rest of the text), and
// returns its messages' text, the prompt to send. handled is false when
// no server offers a prompt of that name. The first call starts the
// servers.
func (m *Manager) RunPrompt(ctx context.Context, name, args string) (text string, handled bool, err error) {
	if m.Empty() || !strings.HasPrefix(name, "mcp__") {
		return "", false, nil
	}
	m.Start(context.WithoutCancel(ctx))
	for _, c := range m.conns {
		c.mu.Lock()
		s, state := c.session, c.state
		var prompt *sdk.Prompt
		for _, p := range c.prompts {
			if ToolName(c.cfg.Name, p.Name) == name {
				prompt = p
			}
		}
		c.mu.Unlock()
		if prompt == nil {
			continue
		}
		if state != StateReady {
			return "", true, fmt.Errorf("MCP server %q is not available (%s)", c.cfg.Name, state)
		}
		values, err := promptArgs(prompt, name, args)
		if err != nil {
			return "", true, err
		}
		res, err := s.GetPrompt(ctx, &sdk.GetPromptParams{Name: prompt.Name, Arguments: values})
		if err != nil {
			return "", true, fmt.Errorf("MCP server %q: %v", c.cfg.Name, err)
		}
		var parts []string
		for _, msg := range res.Messages {
			switch ct := msg.Content.(type) {
			case *sdk.TextContent:
				parts = append(parts, ct.Text)
			case *sdk.EmbeddedResource:
				if ct.Resource != nil && ct.Resource.Text != "" {
					parts = append(parts, ct.Resource.Text)
				}
			}
		}
		return strings.Join(parts, "\n\n"), true, nil
	}
	return "", false, nil
}

// promptArgs assigns the words of args to the prompt's arguments in
// order; the last argument gets the rest of the text. cmd is the command
// name, for the usage line.
func promptArgs(p *sdk.Prompt, cmd, args string) (map[string]string, error) {
	values := map[string]string{}
	rest := strings.TrimSpace(args)
	for i, a := range p.Arguments {
		if rest == "" {
			if a.Required {
				return nil, fmt.Errorf("missing argument %s: usage: /%s %s", a.Name, cmd, usage(p))
			}
			continue
		}
		if i == len(p.Arguments)-1 {
			values[a.Name], rest = rest, ""
			break
		}
		word, more, _ := strings.Cut(rest, " ")
		values[a.Name], rest = word, strings.TrimSpace(more)
	}
	if rest != "" {
		return nil, fmt.Errorf("too many arguments: usage: /%s %s", cmd, usage(p))
	}
	return values, nil
}
