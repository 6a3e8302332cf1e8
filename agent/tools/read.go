// This file implements the read tool: a text file's lines (a window of
// them for large files), or an image as an image block.

package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/session"
)

// maxImageBytes bounds images sent to the model: providers reject larger
// ones (Anthropic's limit is 5 MB).
const maxImageBytes = 5 * 1024 * 1024

// nonVisionImageNote follows "Read image file [type]" for a model that
// takes no images, as pi's.
const nonVisionImageNote = "[Current model does not support images. The image will be omitted from this request.]"

// binarySniffBytes is how much of a file is checked for NUL bytes to tell
// binary from text (as git does).
const binarySniffBytes = 8000

var readSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "Path to the file to read (relative to the working directory, or absolute)"},
		"offset": {"type": "integer", "minimum": 1, "description": "Line number to start reading from (1-indexed)"},
		"limit": {"type": "integer", "minimum": 1, "description": "Maximum number of lines to read"}
	},
	"required": ["path"]
}`)

type readArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

// readDetails is the read tool's result details (pi's ReadToolDetails).
type readDetails struct {
	Truncation *Truncation `json:"truncation,omitempty"`
}

func readTool(cwd string) *agent.Tool {
	return &agent.Tool{
		Name: "read",
		Description: fmt.Sprintf("Read the contents of a file. Supports text files and images (png, jpg, gif, webp); images are sent as attachments. "+
			"Text is returned as is, without line numbers, truncated to %d lines or %dKB, whichever comes first; the output then says how to continue. "+
			"Use offset and limit to read part of a large file, and keep reading with offset until you have what you need.",
			DefaultMaxLines, DefaultMaxBytes/1024),
		Parameters: readSchema,
		Execute: func(ctx context.Context, _ string, raw json.RawMessage, _ func(agent.ToolResult)) (agent.ToolResult, error) {
			var args readArgs
			if err := decodeArgs("read", raw, &args); err != nil {
				return agent.ToolResult{}, err
			}
			if err := ctx.Err(); err != nil {
				return errorResult("Operation aborted"), nil
			}
			res := readFile(resolvePath(cwd, args.Path), args)
			if m, ok := agent.ModelFrom(ctx); ok && !m.TakesImages() && len(res.Content) == 2 && res.Content[1].Type == session.BlockImage {
				// As pi's read: the text says the image will not reach
				// the model (it gets a placeholder).
				res.Content[0].Text += "\n" + nonVisionImageNote
			}
			return res, nil
		},
	}
}

func readFile(abs string, args readArgs) agent.ToolResult {
	if info, err := os.Stat(abs); err == nil && info.IsDir() {
		return errorResult("%s is a directory, not a file. Use bash (ls) to list it.", args.Path)
	}
	data, err := readRegular(abs, args.Path)
	if err != nil {
		return errorResult("%s", describeFileError("read", args.Path, err))
	}
	if mime := imageType(data); mime != "" {
		if len(data) > maxImageBytes {
			return errorResult("Image %s is %s, over the %s limit for images.", args.Path, FormatSize(len(data)), FormatSize(maxImageBytes))
		}
		return agent.ToolResult{Content: []session.ContentBlock{
			{Type: session.BlockText, Text: fmt.Sprintf("Read image file [%s]", mime)},
			{Type: session.BlockImage, Extra: &session.BlockExtra{Data: base64.StdEncoding.EncodeToString(data), MimeType: mime}},
		}}
	}
	if bytes.IndexByte(data[:min(len(data), binarySniffBytes)], 0) >= 0 {
		return errorResult("%s is a binary file (%s); read only reads text and images. Use bash to inspect it (e.g. file, xxd, strings).", args.Path, FormatSize(len(data)))
	}
	return readText(strings.ToValidUTF8(string(data), "\uFFFD"), args)
}

// imageType returns the MIME type of the image formats models accept, from
// the file's magic bytes (not its name), or "".
func imageType(data []byte) string {
	switch t := http.DetectContentType(data); t {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return t
	}
	return ""
}

// readText returns the requested window of text's lines, truncated at the
// default limits, with a note saying how to continue.
func readText(text string, args readArgs) agent.ToolResult {
	total := strings.Count(text, "\n") + 1
	start := 1
	if args.Offset > 0 {
		start = args.Offset
	}
	if start > total {
		return errorResult("Offset %d is beyond end of file (%d lines total)", start, total)
	}
	// Skip to the start line.
	window := text
	for i := 1; i < start; i++ {
		window = window[strings.IndexByte(window, '\n')+1:]
	}
	limited := false
	if args.Limit > 0 && start-1+args.Limit < total {
		end := 0
		for range args.Limit {
			end += strings.IndexByte(window[end:], '\n') + 1
		}
		window = window[:end-1]
		limited = true
	}

	out, tr := TruncateHead(window, DefaultMaxLines, DefaultMaxBytes)
	switch {
	case tr.FirstLineExceedsLimit:
		line := window
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		text := fmt.Sprintf("[Line %d is %s, exceeds the %s limit. Use bash: sed -n '%dp' %s | head -c %d]",
			start, FormatSize(len(line)), FormatSize(DefaultMaxBytes), start, args.Path, DefaultMaxBytes)
		return withDetails(agent.TextResult(text, false), readDetails{Truncation: &tr})
	case tr.Truncated:
		last := start + tr.OutputLines - 1
		limit := ""
		if tr.TruncatedBy == "bytes" {
			limit = fmt.Sprintf(" (%s limit)", FormatSize(DefaultMaxBytes))
		}
		out += fmt.Sprintf("\n\n[Showing lines %d-%d of %d%s. Use offset=%d to continue.]", start, last, total, limit, last+1)
		return withDetails(agent.TextResult(out, false), readDetails{Truncation: &tr})
	case limited:
		next := start + args.Limit
		out += fmt.Sprintf("\n\n[%d more lines in file. Use offset=%d to continue.]", total-next+1, next)
	}
	return agent.TextResult(out, false)
}
