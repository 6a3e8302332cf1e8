// This file turns a server's tools into agent tools: the name the model
// sees (mcp__<server>__<tool>), the schema lunar validates calls against,
// and the mapping of results (text, images, resources, structured
// content, isError) to tool results.

package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/agent/tools"
	"github.com/lunar-cli/lunar/session"
)

// Source is agent.Tool.Source of a server's tools: "mcp:<server>".
func Source(server string) string { return "mcp:" + server }

// maxToolName is the longest tool name every provider accepts.
const maxToolName = 64

// ToolName is the name the model sees for a server's tool or prompt:
// mcp__<server>__<name>, characters providers refuse replaced by _.
func ToolName(server, name string) string {
	n := []byte("mcp__" + server + "__" + name)
	for i, b := range n {
		if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-') {
			n[i] = '_'
		}
	}
	return string(n)
}

// list fetches the server's tools (and prompts, when it offers them).
func (c *conn) list(ctx context.Context) error {
	c.mu.Lock()
	s := c.session
	c.mu.Unlock()
	var out []*agent.Tool
	var infos []ToolInfo
	seen := map[string]bool{}
	caps := s.InitializeResult().Capabilities
	if caps == nil || caps.Tools != nil {
		for t, err := range s.Tools(ctx, nil) {
			if err != nil {
				return fmt.Errorf("tools/list: %w", err)
			}
			at, err := c.tool(t)
			if err == nil && seen[at.Name] {
				err = fmt.Errorf("its name %s is taken by another tool of the server", at.Name)
			}
			if err != nil {
				c.m.opts.Warn(fmt.Sprintf("mcp: server %q: tool %q left out: %v", c.cfg.Name, t.Name, err))
				continue
			}
			seen[at.Name] = true
			out = append(out, at)
			infos = append(infos, ToolInfo{Name: at.Name, Tool: t.Name, ReadOnly: at.ReadOnly})
		}
	}
	var prompts []*sdk.Prompt
	if caps != nil && caps.Prompts != nil {
		for p, err := range s.Prompts(ctx, nil) {
			if err != nil {
				c.m.opts.Warn(fmt.Sprintf("mcp: server %q: prompts/list: %v", c.cfg.Name, err))
				break
			}
			prompts = append(prompts, p)
		}
	}
	c.mu.Lock()
	c.tools, c.infos, c.prompts = out, infos, prompts
	c.mu.Unlock()
	return nil
}

// tool makes the agent tool of one server tool; an error when lunar
// cannot offer it (a name too long, a schema lunar's validator refuses).
func (c *conn) tool(t *sdk.Tool) (*agent.Tool, error) {
	name := ToolName(c.cfg.Name, t.Name)
	if len(name) > maxToolName {
		return nil, fmt.Errorf("%s is longer than %d characters", name, maxToolName)
	}
	schema, err := json.Marshal(t.InputSchema)
	if err != nil || t.InputSchema == nil {
		return nil, fmt.Errorf("no input schema")
	}
	if _, err := agent.CompileSchema(name, schema); err != nil {
		return nil, err
	}
	remote := t.Name
	return &agent.Tool{
		Name:        name,
		Description: t.Description,
		Parameters:  schema,
		Source:      Source(c.cfg.Name),
		ReadOnly:    t.Annotations != nil && t.Annotations.ReadOnlyHint,
		Execute: func(ctx context.Context, _ string, args json.RawMessage, _ func(agent.ToolResult)) (agent.ToolResult, error) {
			return c.call(ctx, remote, args)
		},
	}, nil
}

// call runs one tool call on the server.
func (c *conn) call(ctx context.Context, name string, args json.RawMessage) (agent.ToolResult, error) {
	c.mu.Lock()
	s, state, cerr := c.session, c.state, c.err
	c.mu.Unlock()
	if state != StateReady || s == nil {
		if cerr != nil {
			return agent.ToolResult{}, fmt.Errorf("MCP server %q is not available: %v", c.cfg.Name, cerr)
		}
		return agent.ToolResult{}, fmt.Errorf("MCP server %q is not available (%s)", c.cfg.Name, state)
	}
	var arguments map[string]any
	if len(args) > 0 {
		if err := json.Unmarshal(args, &arguments); err != nil {
			return agent.ToolResult{}, fmt.Errorf("arguments: %w", err)
		}
	}
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: arguments})
	if err != nil {
		if ctx.Err() != nil {
			return agent.ToolResult{}, ctx.Err()
		}
		return agent.ToolResult{}, fmt.Errorf("MCP server %q: %v", c.cfg.Name, err)
	}
	return Result(res), nil
}

// Result maps a tool result to lunar's: text blocks (long text truncated
// as built-in tools' output is), images as image blocks, audio, resource
// links and binary resources as one line saying what they were;
// structured content goes to the details, and to the model as JSON text
// when the server sent no content besides it.
func Result(res *sdk.CallToolResult) agent.ToolResult {
	var out agent.ToolResult
	out.IsError = res.IsError
	var text strings.Builder
	flush := func() {
		if text.Len() == 0 {
			return
		}
		t, tr := tools.TruncateHead(text.String(), tools.DefaultMaxLines, tools.DefaultMaxBytes)
		if tr.FirstLineExceedsLimit {
			// One line longer than the limit: its start, cut on a rune.
			t = strings.ToValidUTF8(text.String()[:tools.DefaultMaxBytes], "")
			tr.OutputLines, tr.OutputBytes = 1, len(t)
		}
		if tr.Truncated {
			t += fmt.Sprintf("\n\n[output truncated: %d of %d lines, %d of %d bytes shown]", tr.OutputLines, tr.TotalLines, tr.OutputBytes, tr.TotalBytes)
		}
		out.Content = append(out.Content, session.ContentBlock{Type: session.BlockText, Text: t})
		text.Reset()
	}
	add := func(s string) {
		if text.Len() > 0 {
			text.WriteString("\n")
		}
		text.WriteString(s)
	}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			add(c.Text)
		case *sdk.ImageContent:
			flush()
			out.Content = append(out.Content, session.ImageBlock(base64.StdEncoding.EncodeToString(c.Data), c.MIMEType))
		case *sdk.AudioContent:
			add(fmt.Sprintf("[audio: %s, %d bytes, not shown]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			add(fmt.Sprintf("[resource: %s %s]", c.URI, c.Name))
		case *sdk.EmbeddedResource:
			switch r := c.Resource; {
			case r == nil:
			case r.Text != "" || len(r.Blob) == 0:
				add(fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text))
			case strings.HasPrefix(r.MIMEType, "image/"):
				flush()
				out.Content = append(out.Content, session.ImageBlock(base64.StdEncoding.EncodeToString(r.Blob), r.MIMEType))
			default:
				add(fmt.Sprintf("[resource %s: %s, %d bytes, not shown]", r.URI, r.MIMEType, len(r.Blob)))
			}
		default:
			add(fmt.Sprintf("[%T content, not shown]", c))
		}
	}
	if res.StructuredContent != nil {
		if data, err := json.Marshal(res.StructuredContent); err == nil {
			out.Details = data
			if len(res.Content) == 0 {
				add(string(data))
			}
		}
	}
	flush()
	if len(out.Content) == 0 {
		out.Content = []session.ContentBlock{{Type: session.BlockText, Text: "(no output)"}}
	}
	return out
}
