// Package tools provides lunar's built-in tools — read, write, edit and
// bash — with pi's names, arguments and result shapes, so sessions
// interoperate with pi.
//
// This file holds the tool set, selection by name, and the helpers the
// tools share (path resolution, argument decoding, results).
package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lunar-cli/lunar/agent"
)

// Options configure the built-in tools. The zero value is the default.
type Options struct {
	Bash BashOptions
}

// Builtins returns the built-in tools with default options, in pi's order
// (read, bash, edit, write). Relative paths in their arguments resolve
// against cwd, and bash runs there.
func Builtins(cwd string) []*agent.Tool {
	return BuiltinsWith(cwd, Options{})
}

// BuiltinsWith returns the built-in tools configured by opts, as Builtins.
func BuiltinsWith(cwd string, opts Options) []*agent.Tool {
	return []*agent.Tool{
		readTool(cwd),
		bashTool(cwd, opts.Bash),
		editTool(cwd),
		writeTool(cwd),
	}
}

// ByName selects tools from all by name, in the order given (duplicates
// once), as for `--tools a,b`. An unknown name is an error listing the
// known ones.
func ByName(names []string, all []*agent.Tool) ([]*agent.Tool, error) {
	var out []*agent.Tool
	for _, name := range names {
		i := slices.IndexFunc(all, func(t *agent.Tool) bool { return t.Name == name })
		if i < 0 {
			known := make([]string, len(all))
			for j, t := range all {
				known[j] = t.Name
			}
			return nil, fmt.Errorf("unknown tool %q (known: %s)", name, strings.Join(known, ", "))
		}
		if !slices.Contains(out, all[i]) {
			out = append(out, all[i])
		}
	}
	return out, nil
}

// resolvePath turns a path from a tool call into an absolute path: a
// leading "@" (models copy it from prompts) is dropped, "~" expands to the
// home directory, and relative paths resolve against cwd.
func resolvePath(cwd, p string) string {
	p = strings.TrimPrefix(p, "@")
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// decodeArgs decodes arguments into v. The loop (and lunar.builtin_tool)
// hand a tool only the canonical text agent.Validator.Decode returns:
// every key exactly a property of the tool's schema, none twice, so that
// the value decoded here is the value the permission policy judged. An
// error here means a call that bypassed that.
func decodeArgs(tool string, args json.RawMessage, v any) error {
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("invalid arguments for tool %q: %v", tool, err)
	}
	return nil
}

// textResult is a formatted text result.
func textResult(format string, a ...any) agent.ToolResult {
	return agent.TextResult(fmt.Sprintf(format, a...), false)
}

// errorResult is a formatted text result flagged as an error.
func errorResult(format string, a ...any) agent.ToolResult {
	return agent.TextResult(fmt.Sprintf(format, a...), true)
}

// withDetails attaches details, marshalled as JSON, to r.
func withDetails(r agent.ToolResult, details any) agent.ToolResult {
	b, err := json.Marshal(details)
	if err == nil {
		r.Details = b
	}
	return r
}

// describeFileError phrases an OS error on a file for the model.
func describeFileError(op, path string, err error) string {
	var nr *notRegularError
	var tl *tooLargeError
	switch {
	case errors.As(err, &nr), errors.As(err, &tl):
		return err.Error()
	case os.IsNotExist(err):
		return fmt.Sprintf("File not found: %s", path)
	case os.IsPermission(err):
		return fmt.Sprintf("Permission denied: cannot %s %s", op, path)
	}
	return fmt.Sprintf("Cannot %s %s: %v", op, path, err)
}
