// One article per entry: messages of every role, summaries, settings,
// labels, hook state and entries of unknown types.

package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/session/export/highlight"
)

// entryRenderer renders articles on one goroutine.
type entryRenderer struct {
	p     *page
	md    *markdowns
	buf   bytes.Buffer
	mdOut *bufio.Writer // goldmark's writer into buf, kept to save allocating one a call
}

func newRenderer(p *page) *entryRenderer {
	r := &entryRenderer{p: p, md: newMarkdowns()}
	r.mdOut = bufio.NewWriterSize(&r.buf, 8<<10)
	return r
}

// entry renders the article of the entry at position i into r.buf.
func (r *entryRenderer) entry(i int) {
	e := r.p.order[i]
	kind := kindOf(e)
	switch e.Type {
	case session.TypeMessage:
		if e.Message == nil {
			r.note(i, kind, "message", "(empty message)")
			return
		}
		r.message(i, kind, e.Message)
	case session.TypeCustomMessage:
		r.customMessage(i, customMessage(e))
	case session.TypeCompaction:
		r.open(i, kind, "Compaction", "")
		b := &r.buf
		b.WriteString(`<div class="body"><p class="summary-head">Earlier context (`)
		b.WriteString(group(e.TokensBefore()))
		b.WriteString(` tokens) was replaced by this summary`)
		if e.FromHook() {
			b.WriteString(` (from a hook)`)
		}
		b.WriteString(`.</p><details class="summary"><summary>Summary</summary>`)
		r.markdown(e.Summary(), false)
		r.files(e.Details())
		b.WriteString("</details></div>")
		r.close()
	case session.TypeBranchSummary:
		r.open(i, kind, "Branch summary", "")
		b := &r.buf
		b.WriteString(`<div class="body"><p class="summary-head">Summary of a branch this conversation came back from`)
		if e.FromHook() {
			b.WriteString(` (from a hook)`)
		}
		b.WriteString(`:</p>`)
		r.markdown(e.Summary(), false)
		r.files(e.Details())
		b.WriteString("</div>")
		r.close()
	case session.TypeModelChange:
		r.note(i, kind, "Model", modelName(e.Provider(), e.ModelID()))
	case session.TypeThinkingLevelChange:
		r.note(i, kind, "Thinking level", e.ThinkingLevel())
	case session.TypeSessionInfo:
		if e.Name() == "" {
			r.note(i, kind, "Session name", "(cleared)")
		} else {
			r.note(i, kind, "Session name", e.Name())
		}
	case session.TypeLabel:
		r.open(i, kind, "Label", "")
		b := &r.buf
		b.WriteString(`<span class="note-text">`)
		if e.Label() == "" {
			b.WriteString("cleared on ")
		} else {
			b.WriteString("“")
			escapeTo(b, e.Label())
			b.WriteString("” on ")
		}
		r.entryLink(e.TargetID())
		b.WriteString("</span>")
		r.close()
	case session.TypeCustom:
		r.open(i, kind, "Hook state", e.CustomType())
		if len(e.Data()) > 0 {
			r.buf.WriteString(`<details class="data"><summary>data</summary>`)
			r.json(e.Data())
			r.buf.WriteString("</details>")
		}
		r.close()
	default:
		r.open(i, kind, "Entry", e.Type)
		raw, _ := e.MarshalJSON()
		r.buf.WriteString(`<details class="data"><summary>entry of a type this version does not know</summary>`)
		r.json(raw)
		r.buf.WriteString("</details>")
		r.close()
	}
}

// open starts an article: its meta line names who or what it is, with an
// optional detail, the entry's label and time, and a link to it.
func (r *entryRenderer) open(i int, kind, who, detail string) {
	e := r.p.order[i]
	b := &r.buf
	b.WriteString(`<article class="e k-`)
	b.WriteString(kind)
	if r.p.cut[i] {
		b.WriteString(" compacted")
	}
	b.WriteString(`" data-i="`)
	b.WriteString(strconv.Itoa(i))
	b.WriteString(`"`)
	if e.ID != "" && r.p.byID[e.ID] == i {
		b.WriteString(` id="`)
		escapeTo(b, e.ID)
		b.WriteString(`"`)
	}
	b.WriteString(`><div class="meta"><span class="who">`)
	escapeTo(b, who)
	b.WriteString("</span>")
	if detail != "" {
		b.WriteString(` <span class="detail">`)
		escapeTo(b, detail)
		b.WriteString("</span>")
	}
	if l := r.p.labels[i]; l != "" {
		b.WriteString(` <span class="label" title="label">`)
		escapeTo(b, l)
		b.WriteString("</span>")
	}
	b.WriteString(`<span class="sp"></span>`)
	b.WriteString(timeHTML(e.Timestamp, false))
	b.WriteString(` <a class="anchor" href="#`)
	escapeTo(b, url.PathEscape(e.ID))
	b.WriteString(`" title="Link to this entry" aria-label="Link to this entry">#</a></div>`)
}

// meta lines of settings entries end where the note ends.
func (r *entryRenderer) close() { r.buf.WriteString("</article>\n") }

// note is a one-line article: "Model anthropic/claude-sonnet-4-5".
func (r *entryRenderer) note(i int, kind, what, text string) {
	r.open(i, kind, what, "")
	r.buf.WriteString(`<span class="note-text">`)
	escapeTo(&r.buf, text)
	r.buf.WriteString("</span>")
	r.close()
}

// entryLink links to the entry id (or shows it when it is not here).
func (r *entryRenderer) entryLink(id string) {
	b := &r.buf
	if _, ok := r.p.byID[id]; !ok {
		b.WriteString("<code>")
		escapeTo(b, id)
		b.WriteString("</code> (not in this session)")
		return
	}
	b.WriteString(`<a class="ref" href="#`)
	escapeTo(b, url.PathEscape(id))
	b.WriteString(`"><code>`)
	escapeTo(b, id)
	b.WriteString("</code></a>")
}

func (r *entryRenderer) message(i int, kind string, m *session.Message) {
	b := &r.buf
	switch m.Role {
	case session.RoleUser:
		r.open(i, kind, "You", "")
		b.WriteString(`<div class="body">`)
		r.content(m.Content, true)
		b.WriteString("</div>")
	case session.RoleAssistant:
		r.open(i, kind, "Assistant", modelName(m.Provider, m.Model))
		r.assistant(m)
	case session.RoleToolResult:
		r.toolResult(i, kind, m)
		return
	case session.RoleBashExecution:
		r.open(i, kind, "Shell", "")
		r.bashExecution(m)
	case session.RoleCustom:
		r.customMessage(i, m)
		return
	default:
		r.open(i, "other", "Message", m.Role)
		if t := joinText(m.Content); t != "" {
			r.output(t, nil)
		}
	}
	r.close()
}

// content renders text blocks as markdown and images inline.
func (r *entryRenderer) content(blocks []session.ContentBlock, user bool) {
	for _, c := range blocks {
		switch c.Type {
		case session.BlockText:
			r.markdown(c.Text, user)
		case session.BlockImage:
			r.buf.WriteString(`<p class="images">`)
			writeImage(&r.buf, c.MimeType(), c.Data(), "")
			r.buf.WriteString("</p>")
		}
	}
}

// markdown renders text (the user's with hard line breaks).
func (r *entryRenderer) markdown(text string, user bool) {
	if strings.TrimSpace(text) == "" {
		return
	}
	r.buf.WriteString(`<div class="md">`)
	if plainParagraph(text) {
		// Most messages are a sentence or two of prose: they need no parser.
		r.buf.WriteString("<p>")
		escapeTo(&r.buf, strings.TrimSpace(text))
		r.buf.WriteString("</p>")
	} else {
		r.mdOut.Reset(&r.buf)
		if err := r.md.For(text, user).Convert([]byte(text), r.mdOut); err != nil {
			r.mdOut.Flush()
			r.buf.WriteString(`<pre class="plain">`)
			escapeTo(&r.buf, text)
			r.buf.WriteString("</pre>")
		}
	}
	r.buf.WriteString("</div>")
}

func (r *entryRenderer) assistant(m *session.Message) {
	b := &r.buf
	b.WriteString(`<div class="body">`)
	for k := range m.Content {
		c := &m.Content[k]
		switch c.Type {
		case session.BlockText:
			r.markdown(c.Text, false)
		case session.BlockThinking:
			if c.Redacted() || c.Thinking == "" {
				b.WriteString(`<p class="thinking redacted">Thinking (redacted)</p>`)
				continue
			}
			// Thinking is a model's notes: shown as written (as pi does), and
			// spared a markdown parse.
			b.WriteString(`<details class="thinking"><summary>Thinking</summary><div class="thinking-text">`)
			escapeTo(b, strings.TrimSpace(c.Thinking))
			b.WriteString("</div></details>")
		case session.BlockToolCall:
			r.toolCall(c)
		case session.BlockImage:
			b.WriteString(`<p class="images">`)
			writeImage(b, c.MimeType(), c.Data(), "")
			b.WriteString("</p>")
		}
	}
	switch {
	case m.StopReason == session.StopError || m.ErrorMessage() != "":
		b.WriteString(`<div class="error-box"><strong>Error</strong> `)
		escapeTo(b, orElse(m.ErrorMessage(), "the reply ended in an error"))
		b.WriteString("</div>")
	case m.StopReason == session.StopAborted:
		b.WriteString(`<p class="stop">Stopped by the user.</p>`)
	case m.StopReason == session.StopLength:
		b.WriteString(`<p class="stop">Cut off at the output token limit.</p>`)
	}
	if u := m.Usage; u != nil && (u.Input+u.Output+u.CacheRead+u.CacheWrite > 0 || u.Cost.Total > 0) {
		b.WriteString(`<p class="usage">in `)
		b.WriteString(group(u.Input))
		b.WriteString(" · out ")
		b.WriteString(group(u.Output))
		if u.CacheRead > 0 {
			b.WriteString(" · cache read ")
			b.WriteString(group(u.CacheRead))
		}
		if u.CacheWrite > 0 {
			b.WriteString(" · cache write ")
			b.WriteString(group(u.CacheWrite))
		}
		if u.Cost.Total > 0 {
			b.WriteString(" · $")
			b.WriteString(strconv.FormatFloat(u.Cost.Total, 'f', costDecimals(u.Cost.Total), 64))
		}
		b.WriteString("</p>")
	}
	b.WriteString("</div>")
}

func (r *entryRenderer) bashExecution(m *session.Message) {
	b := &r.buf
	b.WriteString(`<div class="body"><pre class="cmd"><code>$ `)
	writeTokens(b, m.Command(), highlight.ByName("bash"))
	b.WriteString("</code></pre>")
	if m.Output() != "" {
		r.output(m.Output(), nil)
	}
	var notes []string
	switch {
	case m.Cancelled():
		notes = append(notes, "cancelled")
	case m.ExitCode() == nil:
		notes = append(notes, "killed")
	case *m.ExitCode() != 0:
		notes = append(notes, "exit code "+strconv.Itoa(*m.ExitCode()))
	}
	if m.Truncated() {
		n := "output truncated"
		if m.FullOutputPath() != "" {
			n += "; full output in " + m.FullOutputPath()
		}
		notes = append(notes, n)
	}
	if m.ExcludeFromContext() {
		notes = append(notes, "not sent to the model (!!)")
	}
	if len(notes) > 0 {
		b.WriteString(`<p class="stop">`)
		escapeTo(b, strings.Join(notes, " · "))
		b.WriteString("</p>")
	}
	b.WriteString("</div>")
}

// customMessage shows a hook's message as its renderer showed it in the
// terminal, else its text; one the REPL does not display is folded.
func (r *entryRenderer) customMessage(i int, m *session.Message) {
	b := &r.buf
	r.open(i, "custom", "Hook message", m.CustomType())
	b.WriteString(`<div class="body">`)
	if !m.Display() {
		b.WriteString(`<details class="hidden-msg"><summary>sent to the model, not displayed</summary>`)
	}
	if text, ok := r.p.custom[i]; ok {
		b.WriteString(`<pre class="term">`)
		ansiToHTML(b, strings.TrimRight(text, "\n"))
		b.WriteString("</pre>")
	} else {
		for _, c := range m.Content {
			switch c.Type {
			case session.BlockText:
				r.output(c.Text, nil)
			case session.BlockImage:
				b.WriteString(`<p class="images">`)
				writeImage(b, c.MimeType(), c.Data(), "")
				b.WriteString("</p>")
			}
		}
	}
	if !m.Display() {
		b.WriteString("</details>")
	}
	b.WriteString("</div>")
	r.close()
}

// files lists the files a summary's details name (pi's readFiles and
// modifiedFiles).
func (r *entryRenderer) files(details json.RawMessage) {
	var d struct {
		ReadFiles     []string `json:"readFiles"`
		ModifiedFiles []string `json:"modifiedFiles"`
	}
	if len(details) == 0 || json.Unmarshal(details, &d) != nil {
		return
	}
	list := func(title string, files []string) {
		if len(files) == 0 {
			return
		}
		r.buf.WriteString(`<p class="files"><span>`)
		r.buf.WriteString(title)
		r.buf.WriteString("</span> ")
		for k, f := range files {
			if k > 0 {
				r.buf.WriteString(", ")
			}
			r.buf.WriteString("<code>")
			escapeTo(&r.buf, f)
			r.buf.WriteString("</code>")
		}
		r.buf.WriteString("</p>")
	}
	list("Read:", d.ReadFiles)
	list("Modified:", d.ModifiedFiles)
}

// json shows a JSON value indented and highlighted.
func (r *entryRenderer) json(raw []byte) {
	var ind bytes.Buffer
	if json.Indent(&ind, raw, "", "  ") != nil {
		ind.Reset()
		ind.Write(raw)
	}
	r.output(ind.String(), highlight.ByName("json"))
}
