// This file implements the write tool: create or overwrite a file.

package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/lunar-cli/lunar/agent"
)

var writeSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "Path to the file to write (relative to the working directory, or absolute)"},
		"content": {"type": "string", "description": "Content to write to the file"}
	},
	"required": ["path", "content"]
}`)

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func writeTool(cwd string) *agent.Tool {
	return &agent.Tool{
		Name: "write",
		Description: "Write content to a file. Creates the file if it doesn't exist and overwrites it if it does; parent directories are created as needed. " +
			"Use it for new files or complete rewrites; use edit to change part of an existing file.",
		Parameters: writeSchema,
		Execute: func(ctx context.Context, _ string, raw json.RawMessage, _ func(agent.ToolResult)) (agent.ToolResult, error) {
			var args writeArgs
			if err := decodeArgs("write", raw, &args); err != nil {
				return agent.ToolResult{}, err
			}
			if err := ctx.Err(); err != nil {
				return errorResult("Operation aborted"), nil
			}
			abs, err := pinned(ctx, cwd, resolvePath(cwd, args.Path))
			if err != nil {
				return errorResult("%v", err), nil
			}
			if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
				return errorResult("Cannot create the directory of %s: %v", args.Path, err), nil
			}
			if err := writeRegular(abs, args.Path, []byte(args.Content)); err != nil {
				return errorResult("%s", describeFileError("write", args.Path, err)), nil
			}
			return textResult("Successfully wrote %d bytes to %s", len(args.Content), args.Path), nil
		},
	}
}
