// This file implements the edit tool: exact-text replacements in a file,
// all or nothing, keeping the file's BOM and CRLF line endings.

package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/lunar-cli/lunar/agent"
)

const bom = "\uFEFF"

// The diff shown to the model in the result text is capped; the full diff
// is in the details.
const (
	editTextDiffLines = 60
	editTextDiffBytes = 4096
)

// editSchema is pi's {path, edits} plus the older single {oldText,
// newText} form as optional properties. "Either edits or both oldText and
// newText" is checked in Execute rather than with a top-level oneOf/anyOf:
// Anthropic and OpenAI reject combinators at the top of a tool schema.
var editSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "Path to the file to edit (relative to the working directory, or absolute)"},
		"edits": {
			"type": "array",
			"minItems": 1,
			"description": "One or more replacements, applied in order. Each oldText must match exactly once in the file as it is after the previous edits. Merge changes to nearby lines into one edit.",
			"items": {
				"type": "object",
				"properties": {
					"oldText": {"type": "string", "description": "Exact text to replace, including whitespace, indentation and line breaks. Must occur exactly once; include surrounding lines to make it unique."},
					"newText": {"type": "string", "description": "Text to replace it with"}
				},
				"required": ["oldText", "newText"],
				"additionalProperties": false
			}
		},
		"oldText": {"type": "string", "description": "Deprecated single-replacement form; use edits instead"},
		"newText": {"type": "string", "description": "Deprecated single-replacement form; use edits instead"}
	},
	"required": ["path"],
	"additionalProperties": false
}`)

type replacement struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

type editArgs struct {
	Path    string        `json:"path"`
	Edits   []replacement `json:"edits"`
	OldText *string       `json:"oldText"`
	NewText *string       `json:"newText"`
}

// editDetails is the edit tool's result details (pi's EditToolDetails).
type editDetails struct {
	Diff             string `json:"diff"`
	FirstChangedLine int    `json:"firstChangedLine,omitempty"`
}

func editTool(cwd string) *agent.Tool {
	return &agent.Tool{
		Name: "edit",
		Description: "Edit a file by replacing exact text. Each edits[].oldText must match exactly one place in the file (including whitespace and indentation); " +
			"edits apply in order and the file is only written if all of them match. Use it for precise, surgical changes, several in one call when they are in the same file; " +
			"read the file first. Returns a diff of the change.",
		Parameters: editSchema,
		Execute: func(ctx context.Context, _ string, raw json.RawMessage, _ func(agent.ToolResult)) (agent.ToolResult, error) {
			var args editArgs
			if err := decodeArgs("edit", raw, &args); err != nil {
				return agent.ToolResult{}, err
			}
			// The legacy form joins the list, as pi's prepareArguments does.
			switch {
			case args.OldText != nil && args.NewText != nil:
				args.Edits = append(args.Edits, replacement{*args.OldText, *args.NewText})
			case args.OldText != nil:
				return errorResult(`invalid arguments for tool "edit": missing property "newText"`), nil
			case args.NewText != nil:
				return errorResult(`invalid arguments for tool "edit": missing property "oldText"`), nil
			}
			if len(args.Edits) == 0 {
				return errorResult(`invalid arguments for tool "edit": missing property "edits"`), nil
			}
			if err := ctx.Err(); err != nil {
				return errorResult("Operation aborted"), nil
			}
			abs, err := pinned(ctx, cwd, resolvePath(cwd, args.Path))
			if err != nil {
				return errorResult("%v", err), nil
			}
			return editFile(abs, args.Path, args.Edits), nil
		},
	}
}

// editFile applies edits to the file at abs (shown to the model as path).
func editFile(abs, path string, edits []replacement) agent.ToolResult {
	data, err := readRegular(abs, path)
	if err != nil {
		return errorResult("%s", describeFileError("edit", path, err))
	}
	content := string(data)
	prefix := ""
	if strings.HasPrefix(content, bom) {
		prefix, content = bom, content[len(bom):]
	}
	// Models write "\n"; a CRLF file is matched and edited in LF form and
	// written back with CRLF.
	crlf := usesCRLF(content)
	if crlf {
		content = strings.ReplaceAll(content, "\r\n", "\n")
	}
	original := content

	for i, e := range edits {
		oldText, newText := e.OldText, e.NewText
		if crlf {
			oldText = strings.ReplaceAll(oldText, "\r\n", "\n")
			newText = strings.ReplaceAll(newText, "\r\n", "\n")
		}
		name := "oldText"
		if len(edits) > 1 {
			name = fmt.Sprintf("edits[%d].oldText", i)
		}
		if oldText == "" {
			return errorResult("%s is empty: give the exact text to replace. No changes were made to %s.", name, path)
		}
		if oldText == newText {
			return errorResult("%s and its newText are identical, so the edit would change nothing. No changes were made to %s.", name, path)
		}
		at := strings.Index(content, oldText)
		if at < 0 {
			return errorResult("Could not find %s (%s) in %s. It must match the file exactly, including whitespace, indentation and line breaks; read the file again if unsure. No changes were made.",
				name, preview(oldText), path)
		}
		if n := strings.Count(content, oldText); n > 1 {
			return errorResult("%s (%s) matches %d places in %s; it must match exactly one. Include more surrounding lines to make it unique. No changes were made.",
				name, preview(oldText), n, path)
		}
		content = content[:at] + newText + content[at+len(oldText):]
	}

	out := content
	if crlf {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	if err := writeRegular(abs, path, []byte(prefix+out)); err != nil {
		return errorResult("%s", describeFileError("write", path, err))
	}

	diff, first := lineDiff(original, content)
	text := fmt.Sprintf("Successfully replaced %d block(s) in %s.", len(edits), path)
	if shown, tr := TruncateHead(diff, editTextDiffLines, editTextDiffBytes); diff != "" {
		text += "\n\n" + shown
		if tr.Truncated {
			text += fmt.Sprintf("\n[diff truncated: %d more lines]", tr.TotalLines-tr.OutputLines)
		}
	}
	return withDetails(agent.TextResult(text, false), editDetails{Diff: diff, FirstChangedLine: first})
}

// usesCRLF reports whether the first line break of s is CRLF.
func usesCRLF(s string) bool {
	i := strings.IndexByte(s, '\n')
	return i > 0 && s[i-1] == '\r'
}

// preview quotes the start of an old text for an error message.
func preview(s string) string {
	const max = 60
	line, _, more := strings.Cut(s, "\n")
	if len(line) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line, more = line[:cut], true
	}
	if more {
		line += "…"
	}
	return fmt.Sprintf("%q", line)
}
