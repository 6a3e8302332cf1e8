package main

// @file attachments of a prompt: text files appended as <file> blocks,
// images as image parts, as pi does.

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/lunar-cli/lunar/session"
)

// Attachment limits.
const (
	maxAttachmentBytes = 5 << 20
)

var imageTypes = map[string]string{".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp"}

// expandAttachments resolves @path words that name files: text files are
// appended to the prompt as <file name="…"> blocks and images become image
// parts (with an empty <file> block naming them), as pi does. Words that
// name no file (e.g. @someone) stay as they are. notes explains files that
// could not be attached.
func expandAttachments(text, cwd string) (string, []session.ContentBlock, []string) {
	var blocks strings.Builder
	var images []session.ContentBlock
	var notes []string
	seen := map[string]bool{}
	for _, word := range strings.Fields(text) {
		if !strings.HasPrefix(word, "@") || len(word) < 2 {
			continue
		}
		path, ok := attachmentPath(word[1:], cwd)
		if !ok || seen[path] {
			continue
		}
		seen[path] = true
		data, err := os.ReadFile(path)
		switch {
		case err != nil:
			notes = append(notes, fmt.Sprintf("@%s: %v", word[1:], err))
			continue
		case len(data) == 0:
			continue
		case len(data) > maxAttachmentBytes:
			notes = append(notes, fmt.Sprintf("@%s: %d bytes is too large to attach (limit %d MB)", word[1:], len(data), maxAttachmentBytes>>20))
			continue
		}
		if mime := imageMime(path, data); mime != "" {
			images = append(images, session.ContentBlock{Type: session.BlockImage, Extra: &session.BlockExtra{Data: base64.StdEncoding.EncodeToString(data), MimeType: mime}})
			fmt.Fprintf(&blocks, "<file name=%q></file>\n", path)
			continue
		}
		if bytes.IndexByte(data, 0) >= 0 {
			notes = append(notes, fmt.Sprintf("@%s: not a text or image file; not attached", word[1:]))
			continue
		}
		// Text in another encoding is attached with its invalid bytes
		// replaced, as the read tool reads it.
		fmt.Fprintf(&blocks, "<file name=%q>\n%s\n</file>\n", path, strings.ToValidUTF8(string(data), "\uFFFD"))
	}
	if blocks.Len() == 0 {
		return text, images, notes
	}
	return text + "\n\n" + strings.TrimRight(blocks.String(), "\n"), images, notes
}

// attachmentPath resolves the path of an @word to an existing regular
// file, forgiving trailing punctuation ("see @main.go,").
func attachmentPath(p, cwd string) (string, bool) {
	for {
		if strings.HasPrefix(p, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				p = filepath.Join(home, p[2:])
			}
		}
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cwd, p)
		}
		if fi, err := os.Stat(abs); err == nil && fi.Mode().IsRegular() {
			return abs, true
		}
		trimmed := strings.TrimRight(p, ".,;:!?)]}'\"")
		if trimmed == p || trimmed == "" {
			return "", false
		}
		p = trimmed
	}
}

// imageMime is the MIME type of a supported image, judged by content
// and extension.
func imageMime(path string, data []byte) string {
	mime, ok := imageTypes[strings.ToLower(filepath.Ext(path))]
	sniffed := http.DetectContentType(data)
	for _, m := range imageTypes {
		if sniffed == m {
			return m
		}
	}
	if ok && strings.HasPrefix(sniffed, "image/") {
		return mime
	}
	return ""
}
