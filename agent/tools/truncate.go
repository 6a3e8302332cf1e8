// This file holds the output truncation shared by the tools: read keeps the
// head of a file, bash keeps the tail of a command's output. Both cut at
// whole lines, whichever of the line or byte limit is hit first.

package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Default limits of tool output sent to the model (pi's).
const (
	DefaultMaxLines = 2000
	DefaultMaxBytes = 50 * 1024
)

// Truncation says whether and how a text was truncated. Lines are counted
// as pi counts them: the pieces between "\n", so "a\n" has two lines. It is
// stored in tool result details under "truncation", with pi's key names.
type Truncation struct {
	Truncated   bool   `json:"truncated"`
	TruncatedBy string `json:"truncatedBy,omitempty"` // "lines" or "bytes" when Truncated
	TotalLines  int    `json:"totalLines"`
	TotalBytes  int    `json:"totalBytes"`
	OutputLines int    `json:"outputLines"`
	OutputBytes int    `json:"outputBytes"`
	// LastLinePartial: tail truncation kept only the end of a last line that
	// alone exceeded the byte limit.
	LastLinePartial bool `json:"lastLinePartial"`
	// FirstLineExceedsLimit: head truncation found a first line over the
	// byte limit and returned nothing.
	FirstLineExceedsLimit bool `json:"firstLineExceedsLimit"`
	MaxLines              int  `json:"maxLines"`
	MaxBytes              int  `json:"maxBytes"`
}

// TruncateHead keeps the first lines of text that fit in maxLines lines and
// maxBytes bytes (the separating newlines count). It never cuts a line: if
// the first line alone exceeds maxBytes it returns "" and sets
// FirstLineExceedsLimit. The result shares memory with text.
func TruncateHead(text string, maxLines, maxBytes int) (string, Truncation) {
	tr := Truncation{
		TotalLines: strings.Count(text, "\n") + 1,
		TotalBytes: len(text),
		MaxLines:   maxLines,
		MaxBytes:   maxBytes,
	}
	if tr.TotalLines <= maxLines && tr.TotalBytes <= maxBytes {
		tr.OutputLines, tr.OutputBytes = tr.TotalLines, tr.TotalBytes
		return text, tr
	}
	tr.Truncated = true
	tr.TruncatedBy = "lines"
	end, used, lines := 0, 0, 0
	for pos := 0; lines < maxLines; {
		lineEnd := strings.IndexByte(text[pos:], '\n')
		if lineEnd < 0 {
			lineEnd = len(text)
		} else {
			lineEnd += pos
		}
		size := lineEnd - pos
		if lines > 0 {
			size++ // the newline before this line
		}
		if used+size > maxBytes {
			tr.TruncatedBy = "bytes"
			tr.FirstLineExceedsLimit = lines == 0
			break
		}
		used += size
		end = lineEnd
		lines++
		if lineEnd == len(text) {
			break
		}
		pos = lineEnd + 1
	}
	tr.OutputLines, tr.OutputBytes = lines, end
	return text[:end], tr
}

// TruncateTail keeps the last lines of text that fit in maxLines lines and
// maxBytes bytes. If the last line alone exceeds maxBytes, it keeps the end
// of that line, starting at a rune boundary, and sets LastLinePartial. The
// result shares memory with text.
func TruncateTail(text string, maxLines, maxBytes int) (string, Truncation) {
	tr := Truncation{
		TotalLines: strings.Count(text, "\n") + 1,
		TotalBytes: len(text),
		MaxLines:   maxLines,
		MaxBytes:   maxBytes,
	}
	if tr.TotalLines <= maxLines && tr.TotalBytes <= maxBytes {
		tr.OutputLines, tr.OutputBytes = tr.TotalLines, tr.TotalBytes
		return text, tr
	}
	tr.Truncated = true
	tr.TruncatedBy = "lines"
	start, used, lines := len(text), 0, 0
	for pos := len(text); lines < maxLines; {
		lineStart := strings.LastIndexByte(text[:pos], '\n') + 1
		size := pos - lineStart
		if lines > 0 {
			size++ // the newline after this line
		}
		if used+size > maxBytes {
			tr.TruncatedBy = "bytes"
			if lines == 0 {
				start = pos - maxBytes
				for start < pos && !utf8.RuneStart(text[start]) {
					start++
				}
				lines = 1
				tr.LastLinePartial = true
			}
			break
		}
		used += size
		start = lineStart
		lines++
		if lineStart == 0 {
			break
		}
		pos = lineStart - 1
	}
	out := text[start:]
	tr.OutputLines, tr.OutputBytes = lines, len(out)
	return out, tr
}

// FormatSize renders a byte count as pi's formatSize does: 512B, 50.0KB,
// 1.2MB, with one decimal rounded half up as JavaScript's toFixed rounds
// (1280 bytes is 1.3KB, where %.1f would say 1.2KB).
func FormatSize(n int) string {
	tenths := func(unit int64) string {
		v := int64(n)
		t := (v*20 + unit) / (2 * unit) // round(v*10/unit), halves up
		return fmt.Sprintf("%d.%d", t/10, t%10)
	}
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return tenths(1024) + "KB"
	default:
		return tenths(1024*1024) + "MB"
	}
}
