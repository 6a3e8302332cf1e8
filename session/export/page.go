// The page's model of the session: entries in tree order with their
// parents, labels, the leaf's path, tool calls by id, and the totals the
// header shows.

package export

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lunar-cli/lunar/session"
)

// page is one export in the making. Its fields are read-only once
// newPage returns, so renderers on several goroutines share it.
type page struct {
	opts   Options
	header session.Header
	name   string

	order  []*session.Entry // tree order: depth first, siblings oldest first
	parent []int            // position of each entry's parent; -1 for a root
	labels []string         // current label of each entry
	leaf   int              // position of the leaf; -1 before the first entry
	path   []int            // the leaf's path from the root
	others []int            // the positions of the entries off it, in order
	cut    []bool           // on the leaf's path but compacted away
	byID   map[string]int   // entry id → position (the first, for a duplicated id)

	calls  map[string]*session.ContentBlock // tool call id → the call
	custom map[int]string                   // position → hook-rendered text
}

func newPage(s *session.Session, opts Options) *page {
	p := &page{opts: opts, header: s.Header(), name: s.Name(), leaf: -1}
	entries := s.Entries()
	n := len(entries)
	p.order = make([]*session.Entry, 0, n)
	p.parent = make([]int, 0, n)
	p.labels = make([]string, 0, n)
	pos := make(map[*session.Entry]int, n)

	// Depth first without recursion: a linear session is as deep as it is
	// long.
	type item struct {
		node   *session.TreeNode
		parent int
	}
	var stack []item
	roots := s.Tree()
	for i := len(roots) - 1; i >= 0; i-- {
		stack = append(stack, item{roots[i], -1})
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		k := len(p.order)
		pos[it.node.Entry] = k
		p.order = append(p.order, it.node.Entry)
		p.parent = append(p.parent, it.parent)
		p.labels = append(p.labels, it.node.Label)
		for c := len(it.node.Children) - 1; c >= 0; c-- {
			stack = append(stack, item{it.node.Children[c], k})
		}
	}
	// Entries the tree view cannot reach (a parent cycle in a hand-edited
	// file) are shown as roots rather than lost.
	for _, e := range entries {
		if _, ok := pos[e]; !ok {
			pos[e] = len(p.order)
			p.order = append(p.order, e)
			p.parent = append(p.parent, -1)
			p.labels = append(p.labels, s.Label(e.ID))
		}
	}

	p.byID = make(map[string]int, n)
	p.calls = map[string]*session.ContentBlock{}
	for i, e := range p.order {
		if _, dup := p.byID[e.ID]; !dup {
			p.byID[e.ID] = i
		}
		if m := e.Message; e.Type == session.TypeMessage && m != nil && m.Role == session.RoleAssistant {
			for b := range m.Content {
				if c := &m.Content[b]; c.Type == session.BlockToolCall && c.ID != "" {
					p.calls[c.ID] = c
				}
			}
		}
	}

	if id := s.LeafID(); id != "" {
		if e := s.Get(id); e != nil {
			p.leaf = pos[e]
		}
	}
	p.cut = make([]bool, len(p.order))
	path := p.pathTo(p.leaf)
	p.path = path
	p.others = make([]int, 0, len(p.order)-len(path))
	for i, x := 0, 0; i < len(p.order); i++ { // the path is in tree order too
		if x < len(path) && path[x] == i {
			x++
		} else {
			p.others = append(p.others, i)
		}
	}
	for j := len(path) - 1; j >= 0; j-- {
		if c := path[j]; p.order[c].Type == session.TypeCompaction {
			k := p.firstKept(c)
			for _, i := range path[:j] {
				if i == k {
					break
				}
				p.cut[i] = inContext(kindOf(p.order[i]))
			}
			break
		}
	}

	if opts.RenderCustom != nil {
		p.custom = map[int]string{}
		for i, e := range p.order {
			if m := customMessage(e); m != nil {
				if text, ok := opts.RenderCustom(m); ok {
					p.custom[i] = text
				}
			}
		}
	}
	return p
}

// inContext says entries of a kind put messages into the model's context
// (settings, labels and hook state do not, so a compaction drops nothing
// of theirs).
func inContext(kind string) bool {
	switch kind {
	case "user", "assistant", "tool", "error", "bash", "custom", "branch":
		return true
	}
	return false
}

// pathTo returns the positions from the root to i; nil for -1.
func (p *page) pathTo(i int) []int {
	var path []int
	for j := i; j >= 0 && len(path) <= len(p.order); j = p.parent[j] {
		path = append(path, j)
	}
	for a, b := 0, len(path)-1; a < b; a, b = a+1, b-1 {
		path[a], path[b] = path[b], path[a]
	}
	return path
}

// firstKept is the position of the compaction at c's first kept entry,
// looked for among c's ancestors as context building does; c itself when
// it is not there (then nothing before the compaction is kept).
func (p *page) firstKept(c int) int {
	id := p.order[c].FirstKeptEntryID()
	steps := 0
	for j := p.parent[c]; j >= 0 && steps <= len(p.order); j, steps = p.parent[j], steps+1 {
		if p.order[j].ID == id {
			return j
		}
	}
	return c
}

// customMessage is the custom message an entry shows: a custom_message
// entry, or a message with the custom role from a migrated file.
func customMessage(e *session.Entry) *session.Message {
	switch {
	case e.Type == session.TypeCustomMessage:
		return &session.Message{Role: session.RoleCustom, Content: e.Content(),
			ContentIsString: e.ContentIsString(), Details: e.Details(),
			Extra: &session.MessageExtra{CustomType: e.CustomType(), Display: e.Display()}}
	case e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == session.RoleCustom:
		return e.Message
	}
	return nil
}

// title names the page: the session's name, else its first user message,
// else its id.
func (p *page) title() string {
	if p.name != "" {
		return p.name
	}
	for _, e := range p.order {
		if m := e.Message; e.Type == session.TypeMessage && m != nil && m.Role == session.RoleUser {
			if t := firstLine(joinText(m.Content), 80); t != "" {
				return t
			}
		}
	}
	return "Session " + p.header.ID
}

// totals are the header's figures over every branch.
type totals struct {
	models                    []string
	user, assistant, results  int
	toolCalls, bash, custom   int
	compactions, branchSums   int
	leaves                    int
	in, out, cacheRd, cacheWr int
	cost                      float64
}

func (p *page) totals() totals {
	var t totals
	seen := map[string]bool{}
	model := func(provider, id string) {
		if id == "" {
			return
		}
		if m := modelName(provider, id); !seen[m] {
			seen[m] = true
			t.models = append(t.models, m)
		}
	}
	children := make([]int, len(p.order))
	for i, e := range p.order {
		if p.parent[i] >= 0 {
			children[p.parent[i]]++
		}
		switch e.Type {
		case session.TypeModelChange:
			model(e.Provider(), e.ModelID())
		case session.TypeCompaction:
			t.compactions++
		case session.TypeBranchSummary:
			t.branchSums++
		case session.TypeCustomMessage:
			t.custom++
		case session.TypeMessage:
			m := e.Message
			if m == nil {
				continue
			}
			switch m.Role {
			case session.RoleUser:
				t.user++
			case session.RoleAssistant:
				t.assistant++
				model(m.Provider, m.Model)
				t.toolCalls += len(m.ToolCalls())
				if u := m.Usage; u != nil {
					t.in += u.Input
					t.out += u.Output
					t.cacheRd += u.CacheRead
					t.cacheWr += u.CacheWrite
					t.cost += u.Cost.Total
				}
			case session.RoleToolResult:
				t.results++
			case session.RoleBashExecution:
				t.bash++
			case session.RoleCustom:
				t.custom++
			}
		}
	}
	for _, c := range children {
		if c == 0 {
			t.leaves++
		}
	}
	return t
}

// writeHeader writes the session's facts.
func (p *page) writeHeader(w *bufio.Writer, title string) {
	t := p.totals()
	w.WriteString("<header id=\"facts\">\n<h1>" + escape(title) + "</h1>\n<dl>\n")
	item := func(k, v string) {
		if v != "" {
			w.WriteString("<div><dt>" + k + "</dt><dd>" + v + "</dd></div>\n")
		}
	}
	if p.name != "" && p.name != title {
		item("Name", escape(p.name))
	}
	item("Session", "<code>"+escape(p.header.ID)+"</code>")
	item("Folder", "<code>"+escape(p.header.Cwd)+"</code>")
	item("Created", timeHTML(p.header.Timestamp, true))
	if p.header.ParentSession != "" {
		item("Forked from", "<code>"+escape(p.header.ParentSession)+"</code>")
	}
	item("Models", escape(strings.Join(t.models, ", ")))

	var msgs []string
	add := func(n int, what string) {
		if n > 0 {
			msgs = append(msgs, fmt.Sprintf("%s %s", group(n), what))
		}
	}
	add(t.user, "user")
	add(t.assistant, "assistant")
	add(t.results, "tool results")
	add(t.bash, "shell")
	add(t.custom, "custom")
	item("Messages", escape(strings.Join(msgs, " · ")))
	var rest []string
	// counted is "1 thing" or "n things".
	counted := func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return group(n) + " " + many
	}
	if t.toolCalls > 0 {
		rest = append(rest, counted(t.toolCalls, "tool call", "tool calls"))
	}
	rest = append(rest, counted(len(p.order), "entry", "entries"))
	if t.leaves > 1 {
		rest = append(rest, group(t.leaves)+" branches")
	}
	if t.compactions > 0 {
		rest = append(rest, counted(t.compactions, "compaction", "compactions"))
	}
	if t.branchSums > 0 {
		rest = append(rest, counted(t.branchSums, "branch summary", "branch summaries"))
	}
	item("Tree", escape(strings.Join(rest, " · ")))
	if t.in+t.out+t.cacheRd+t.cacheWr > 0 {
		tok := "in " + group(t.in) + " · out " + group(t.out)
		if t.cacheRd > 0 {
			tok += " · cache read " + group(t.cacheRd)
		}
		if t.cacheWr > 0 {
			tok += " · cache write " + group(t.cacheWr)
		}
		item("Tokens", tok)
	}
	if t.cost > 0 {
		item("Cost", "$"+strconv.FormatFloat(t.cost, 'f', costDecimals(t.cost), 64))
	}
	w.WriteString("</dl>\n</header>\n")
}

// costDecimals shows small costs with enough digits to be non-zero.
func costDecimals(c float64) int {
	switch {
	case c >= 1:
		return 2
	case c >= 0.01:
		return 3
	}
	return 4
}

// group writes n with thousands separators: 1234567 → 1,234,567.
func group(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// kindOf is an entry's kind: a CSS class and the script's filter key.
func kindOf(e *session.Entry) string {
	switch e.Type {
	case session.TypeMessage:
		m := e.Message
		if m == nil {
			return "other"
		}
		switch m.Role {
		case session.RoleUser:
			return "user"
		case session.RoleAssistant:
			if m.StopReason == session.StopError || m.ErrorMessage() != "" {
				return "error"
			}
			return "assistant"
		case session.RoleToolResult:
			if m.IsError {
				return "error"
			}
			return "tool"
		case session.RoleBashExecution:
			return "bash"
		case session.RoleCustom:
			return "custom"
		}
	case session.TypeCustomMessage:
		return "custom"
	case session.TypeCompaction:
		return "compaction"
	case session.TypeBranchSummary:
		return "branch"
	case session.TypeModelChange, session.TypeThinkingLevelChange, session.TypeLabel, session.TypeSessionInfo:
		return "setting"
	case session.TypeCustom:
		return "state"
	}
	return "other"
}

// preview is an entry's one line in the tree.
func (p *page) preview(i int) string {
	e := p.order[i]
	const max = 120
	switch e.Type {
	case session.TypeMessage:
		m := e.Message
		if m == nil {
			return "message"
		}
		switch m.Role {
		case session.RoleUser:
			return firstLine(joinText(m.Content), max)
		case session.RoleAssistant:
			if m.StopReason == session.StopError || m.ErrorMessage() != "" {
				return firstLine(orElse(m.ErrorMessage(), joinText(m.Content)), max)
			}
			if t := firstLine(joinText(m.Content), max); t != "" {
				return t
			}
			var calls []string
			for _, c := range m.ToolCalls() {
				calls = append(calls, callSummary(&c))
			}
			if len(calls) > 0 {
				return "→ " + firstLine(strings.Join(calls, ", "), max)
			}
			if m.StopReason == session.StopAborted {
				return "(aborted)"
			}
			return firstLine(thinkingText(m.Content), max)
		case session.RoleToolResult:
			return firstLine(m.ToolName+": "+joinText(m.Content), max)
		case session.RoleBashExecution:
			return firstLine("$ "+m.Command(), max)
		case session.RoleCustom:
			return firstLine("["+m.CustomType()+"] "+joinText(m.Content), max)
		}
		return m.Role
	case session.TypeCustomMessage:
		return firstLine("["+e.CustomType()+"] "+joinText(e.Content()), max)
	case session.TypeCompaction:
		return "compaction: " + group(e.TokensBefore()) + " tokens summarised"
	case session.TypeBranchSummary:
		return firstLine("branch summary: "+e.Summary(), max)
	case session.TypeModelChange:
		return "model: " + modelName(e.Provider(), e.ModelID())
	case session.TypeThinkingLevelChange:
		return "thinking: " + e.ThinkingLevel()
	case session.TypeCustom:
		return "state: " + e.CustomType()
	case session.TypeLabel:
		if e.Label() == "" {
			return "label cleared"
		}
		return firstLine("label: "+e.Label(), max)
	case session.TypeSessionInfo:
		return firstLine("name: "+e.Name(), max)
	}
	return firstLine(e.Type, max)
}

// callSummary is a tool call in a few words: "read src/a.go", "bash ls".
func callSummary(c *session.ContentBlock) string {
	args := map[string]any{}
	_ = json.Unmarshal(c.Arguments, &args)
	for _, k := range []string{"path", "file_path", "command", "pattern", "url", "query"} {
		if v, ok := args[k].(string); ok && v != "" {
			return c.Name + " " + firstLine(v, 80)
		}
	}
	return c.Name
}

func orElse(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// modelName is provider/id, or the id alone.
func modelName(provider, id string) string {
	if provider == "" {
		return id
	}
	return provider + "/" + id
}

// joinText joins a message's text blocks, one blank line apart.
func joinText(content []session.ContentBlock) string {
	var parts []string
	for _, b := range content {
		if b.Type == session.BlockText && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

func thinkingText(content []session.ContentBlock) string {
	for _, b := range content {
		if b.Type == session.BlockThinking && b.Thinking != "" {
			return "thinking: " + b.Thinking
		}
	}
	return ""
}

// firstLine is the first non-blank line of s without terminal escapes,
// cut to max runes with "…".
func firstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	if len(s) > 8*max { // enough for max runes of any width, escapes aside
		s = s[:8*max]
	}
	s = stripControls(s)
	if utf8.RuneCountInString(s) > max {
		n := 0
		for i := range s {
			if n == max {
				return strings.TrimSpace(s[:i]) + "…"
			}
			n++
		}
	}
	return s
}
