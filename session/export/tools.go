// Tool calls and their results. The built-in tools (read, write, edit,
// bash) are shown as a person reads them: the command, the file with its
// language's colours, the edit as a diff; any other tool as its JSON
// arguments and its text. Long output is clipped with a button that shows
// the rest (printing shows it all).

package export

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/session/export/highlight"
)

// longLines and longBytes: output past either is clipped until expanded.
const (
	longLines = 20
	longBytes = 3000
)

// toolArgs are a call's arguments, read leniently (pi's tools accept
// file_path for path).
type toolArgs map[string]any

func parseArgs(raw json.RawMessage) toolArgs {
	a := toolArgs{}
	_ = json.Unmarshal(raw, &a)
	return a
}

func (a toolArgs) str(keys ...string) (string, bool) {
	for _, k := range keys {
		if v, ok := a[k].(string); ok {
			return v, true
		}
	}
	return "", false
}

func (a toolArgs) num(key string) (int, bool) {
	v, ok := a[key].(float64)
	return int(v), ok
}

// target is what a call of a built-in tool acts on, for its heading:
// "src/a.go:10-29", the command; "" for other tools.
func (a toolArgs) target(name string) string {
	switch name {
	case "read":
		p, _ := a.str("path", "file_path")
		off, hasOff := a.num("offset")
		lim, hasLim := a.num("limit")
		switch {
		case hasOff && hasLim:
			p += ":" + strconv.Itoa(off) + "-" + strconv.Itoa(off+lim-1)
		case hasOff:
			p += ":" + strconv.Itoa(off) + "-"
		case hasLim:
			p += ":1-" + strconv.Itoa(lim)
		}
		return p
	case "write", "edit":
		p, _ := a.str("path", "file_path")
		return p
	}
	return ""
}

// toolCall renders a call inside the assistant's message.
func (r *entryRenderer) toolCall(c *session.ContentBlock) {
	b := &r.buf
	a := parseArgs(c.Arguments)
	b.WriteString(`<div class="call"><div class="call-head"><span class="tool-name">`)
	escapeTo(b, c.Name)
	b.WriteString("</span>")
	if t := a.target(c.Name); t != "" {
		b.WriteString(` <code class="target">`)
		escapeTo(b, t)
		b.WriteString("</code>")
	}
	b.WriteString("</div>")
	switch c.Name {
	case "bash":
		cmd, ok := a.str("command")
		if !ok {
			r.json(c.Arguments)
			break
		}
		b.WriteString(`<pre class="cmd"><code>$ `)
		writeTokens(b, cmd, highlight.ByName("bash"))
		b.WriteString("</code></pre>")
		if t, ok := a.num("timeout"); ok {
			b.WriteString(`<p class="stop">timeout `)
			b.WriteString(strconv.Itoa(t))
			b.WriteString(" s</p>")
		}
	case "read":
		// The target says it all.
	case "write":
		p, _ := a.str("path", "file_path")
		content, ok := a.str("content")
		if !ok {
			r.json(c.Arguments)
			break
		}
		r.output(content, highlight.ByFile(p))
	case "edit":
		r.editCall(a, c.Arguments)
	default:
		if len(a) > 0 {
			r.json(c.Arguments)
		}
	}
	b.WriteString("</div>")
}

// editCall shows each replacement as the lines it removes and adds.
func (r *entryRenderer) editCall(a toolArgs, raw json.RawMessage) {
	type edit struct {
		OldText string `json:"oldText"`
		NewText string `json:"newText"`
	}
	var args struct {
		Edits   []edit `json:"edits"`
		OldText string `json:"oldText"`
		NewText string `json:"newText"`
	}
	if json.Unmarshal(raw, &args) != nil {
		r.json(raw)
		return
	}
	if args.OldText != "" || args.NewText != "" {
		args.Edits = append(args.Edits, edit{args.OldText, args.NewText})
	}
	if len(args.Edits) == 0 {
		r.json(raw)
		return
	}
	var diff strings.Builder
	for k, e := range args.Edits {
		if k > 0 {
			diff.WriteString("@@\n")
		}
		for _, l := range strings.Split(e.OldText, "\n") {
			diff.WriteString("-" + l + "\n")
		}
		for _, l := range strings.Split(e.NewText, "\n") {
			diff.WriteString("+" + l + "\n")
		}
	}
	r.diff(diff.String())
}

// toolResult renders a tool result as its own article, headed by the call
// it answers.
func (r *entryRenderer) toolResult(i int, kind string, m *session.Message) {
	b := &r.buf
	call := r.p.calls[m.ToolCallID]
	detail := ""
	var a toolArgs
	if call != nil {
		a = parseArgs(call.Arguments)
		detail = a.target(call.Name)
		if detail == "" && call.Name == "bash" {
			detail, _ = a.str("command")
			detail = firstLine(detail, 100)
		}
	}
	who := "Result"
	if m.ToolName != "" {
		who = m.ToolName + " result"
	}
	if m.IsError {
		who = orElse(m.ToolName, "tool") + " error"
	}
	r.open(i, kind, who, detail)
	b.WriteString(`<div class="body">`)
	text := joinTextLines(m.Content)
	var diff string
	if m.ToolName == "edit" && len(m.Details) > 0 {
		var d struct {
			Diff string `json:"diff"`
		}
		if json.Unmarshal(m.Details, &d) == nil {
			diff = d.Diff
		}
	}
	var lx *highlight.Lang
	if m.ToolName == "read" && !m.IsError && a != nil {
		p, _ := a.str("path", "file_path")
		lx = highlight.ByFile(p)
	}
	switch {
	case diff != "":
		if first, _, _ := strings.Cut(text, "\n"); first != "" {
			b.WriteString(`<p class="result-line">`)
			escapeTo(b, first)
			b.WriteString("</p>")
		}
		r.diff(diff)
	case text != "":
		r.output(text, lx)
	case !hasImages(m.Content):
		b.WriteString(`<p class="stop">(no output)</p>`)
	}
	for _, c := range m.Content {
		if c.Type == session.BlockImage {
			b.WriteString(`<p class="images">`)
			writeImage(b, c.MimeType(), c.Data(), "")
			b.WriteString("</p>")
		}
	}
	b.WriteString("</div>")
	r.close()
}

func hasImages(content []session.ContentBlock) bool {
	for _, c := range content {
		if c.Type == session.BlockImage {
			return true
		}
	}
	return false
}

// joinTextLines joins a result's text blocks one line apart.
func joinTextLines(content []session.ContentBlock) string {
	var parts []string
	for _, c := range content {
		if c.Type == session.BlockText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// output shows text in a <pre>: coloured by lx, or with its terminal
// colours, clipped when long.
func (r *entryRenderer) output(text string, lx *highlight.Lang) {
	text = strings.TrimRight(text, "\n")
	b := &r.buf
	lines := countLines(text)
	long := lines > longLines || len(text) > longBytes
	if long {
		b.WriteString(`<div class="out long">`)
	} else {
		b.WriteString(`<div class="out">`)
	}
	switch {
	case lx != nil:
		highlightCode(b, text, lx)
	case hasEscapes(text):
		b.WriteString(`<pre class="term">`)
		ansiToHTML(b, text)
		b.WriteString("</pre>")
	default:
		b.WriteString(`<pre class="plain">`)
		escapeTo(b, text)
		b.WriteString("</pre>")
	}
	if long {
		b.WriteString(`<button type="button" class="more js-only" data-lines="`)
		b.WriteString(strconv.Itoa(lines))
		b.WriteString(`">Show all `)
		b.WriteString(group(lines))
		b.WriteString(" lines</button>")
	}
	b.WriteString("</div>")
}

// diff shows a diff (lines starting with - or +, or pi's numbered form
// "-12 text"), clipped when long.
func (r *entryRenderer) diff(d string) {
	d = strings.TrimRight(d, "\n")
	b := &r.buf
	lines := countLines(d)
	long := lines > longLines || len(d) > longBytes
	if long {
		b.WriteString(`<div class="out long">`)
	} else {
		b.WriteString(`<div class="out">`)
	}
	b.WriteString(`<pre class="diff">`)
	for l := range strings.SplitSeq(d, "\n") {
		cls := "ctx"
		switch {
		case strings.HasPrefix(l, "+"):
			cls = "add"
		case strings.HasPrefix(l, "-"):
			cls = "del"
		case strings.HasPrefix(l, "@@"):
			cls = "hunk"
		}
		b.WriteString(`<span class="`)
		b.WriteString(cls)
		b.WriteString(`">`)
		escapeTo(b, l)
		b.WriteString("\n</span>")
	}
	b.WriteString("</pre>")
	if long {
		b.WriteString(`<button type="button" class="more js-only" data-lines="`)
		b.WriteString(strconv.Itoa(lines))
		b.WriteString(`">Show all `)
		b.WriteString(group(lines))
		b.WriteString(" lines</button>")
	}
	b.WriteString("</div>")
}
