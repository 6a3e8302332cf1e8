// This file builds the system prompt: the base coding-assistant prompt (or
// the user's --system-prompt), --append-system-prompt, the project's
// AGENTS.md/CLAUDE.md files, and the date and working directory.

package agent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// contextFileNames are the project context files looked for in each
// folder, in order of preference: the first one present is used.
var contextFileNames = []string{"AGENTS.md", "CLAUDE.md"}

// SystemPromptOptions are the inputs of SystemPrompt.
type SystemPromptOptions struct {
	Cwd   string  // working directory, shown to the model and where context files are searched from
	Tools []*Tool // tools the model may call, listed with the first sentence of their description
	// Custom replaces the base prompt (--system-prompt). If it names an
	// existing file (relative to Cwd), the file's content is used.
	Custom string
	// Append is added after the base or custom prompt
	// (--append-system-prompt), with the same file rule.
	Append string
	// Now gives the date shown to the model; zero means time.Now().
	Now time.Time
	// ContextFiles includes AGENTS.md (or CLAUDE.md) from GlobalDir and from
	// every folder from / down to Cwd.
	ContextFiles bool
	// GlobalDir is the user's lunar config folder
	// ($XDG_CONFIG_HOME/lunar); "" skips the global context file.
	GlobalDir string
}

// SystemPrompt builds the system prompt. Files that cannot be read are
// skipped: a prompt is always returned.
func SystemPrompt(opts SystemPromptOptions) string {
	var files []contextFile
	if opts.ContextFiles {
		files = loadContextFiles(opts.Cwd, opts.GlobalDir)
	}
	return buildSystemPrompt(opts, promptText(opts.Custom, opts.Cwd), promptText(opts.Append, opts.Cwd), files)
}

// buildSystemPrompt is SystemPrompt once the prompt files and context
// files are read.
func buildSystemPrompt(opts SystemPromptOptions, custom, appendix string, files []contextFile) string {
	var sb strings.Builder
	if custom != "" {
		sb.WriteString(custom)
	} else {
		sb.WriteString(basePrompt(opts.Tools))
	}
	if appendix != "" {
		sb.WriteString("\n\n")
		sb.WriteString(appendix)
	}
	if len(files) > 0 {
		sb.WriteString("\n\n# Project context\n\nProject-specific instructions and guidelines:")
		for _, f := range files {
			sb.WriteString("\n\n## ")
			sb.WriteString(f.path)
			sb.WriteString("\n\n")
			sb.WriteString(strings.TrimRight(f.content, "\n"))
		}
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	sb.WriteString("\n\nCurrent date: ")
	sb.WriteString(now.Format("2006-01-02"))
	sb.WriteString("\nCurrent working directory: ")
	sb.WriteString(opts.Cwd)
	return sb.String()
}

// SystemPromptBuilder returns the system prompt for a tool set: opts
// without its Tools, the context and prompt files read once, and the
// prompt rebuilt only when the tools' names, descriptions or prompt
// snippets and guidelines change (a hook registers, replaces, enables or
// disables one), as pi rebuilds its prompt when the active tools change.
// Safe for concurrent use.
func SystemPromptBuilder(opts SystemPromptOptions) func(tools []*Tool) string {
	return NewPromptBuilder(opts).Prompt
}

// PromptBuilder builds the system prompt for the tools a run starts with
// (Prompt) and says what it was built from (Info). Safe for concurrent use.
type PromptBuilder struct {
	opts  SystemPromptOptions // Custom and Append read from their files
	files []contextFile

	mu       sync.Mutex
	lastKey  string
	lastText string
	built    bool
}

// NewPromptBuilder reads opts' prompt and context files, once, so a
// prompt rebuilt for new tools keeps the context the session started
// with.
func NewPromptBuilder(opts SystemPromptOptions) *PromptBuilder {
	opts.Custom = promptText(opts.Custom, opts.Cwd)
	opts.Append = promptText(opts.Append, opts.Cwd)
	b := &PromptBuilder{opts: opts}
	if opts.ContextFiles {
		b.files = loadContextFiles(opts.Cwd, opts.GlobalDir)
	}
	return b
}

// Prompt is the system prompt for tools.
func (b *PromptBuilder) Prompt(tools []*Tool) string {
	var key strings.Builder
	if b.opts.Custom == "" { // a custom prompt does not list the tools
		for _, t := range tools {
			key.WriteString(t.Name)
			key.WriteByte(0)
			key.WriteString(toolLine(t))
			key.WriteByte(0)
			for _, g := range t.PromptGuidelines {
				key.WriteString(g)
				key.WriteByte(1)
			}
			key.WriteByte(0)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.built && key.String() == b.lastKey {
		return b.lastText
	}
	o := b.opts
	o.Tools = tools
	b.lastKey, b.lastText, b.built = key.String(), buildSystemPrompt(o, o.Custom, o.Append, b.files), true
	return b.lastText
}

// SystemPromptInfo is what a system prompt is built from, as hooks see it
// (agent.before_start's system_prompt_options, pi's systemPromptOptions).
type SystemPromptInfo struct {
	Cwd string
	// Custom is the --system-prompt text (a file's content when it named
	// one); "" for lunar's own prompt.
	Custom string
	// Append is the --append-system-prompt text, read the same way.
	Append string
	// SelectedTools are the names of the tools offered, in order.
	SelectedTools []string
	// ToolSnippets is each selected tool's line in the prompt's tool list
	// (its prompt snippet, or its description's first sentence); empty
	// with a custom prompt, which lists no tools.
	ToolSnippets map[string]string
	// PromptGuidelines are the selected tools' own guideline bullets
	// (lunar's built-in ones excluded); empty with a custom prompt.
	PromptGuidelines []string
	// ContextFiles are the AGENTS.md/CLAUDE.md files in the prompt.
	ContextFiles []ContextFile
}

// ContextFile is a project context file included in the system prompt.
type ContextFile struct {
	Path, Content string
}

// Info describes the prompt Prompt builds for tools.
func (b *PromptBuilder) Info(tools []*Tool) SystemPromptInfo {
	info := SystemPromptInfo{Cwd: b.opts.Cwd, Custom: b.opts.Custom, Append: b.opts.Append,
		SelectedTools: []string{}, ToolSnippets: map[string]string{}, PromptGuidelines: []string{}, ContextFiles: []ContextFile{}}
	for _, t := range tools {
		info.SelectedTools = append(info.SelectedTools, t.Name)
	}
	if b.opts.Custom == "" {
		for _, t := range tools {
			if l := toolLine(t); l != "" {
				info.ToolSnippets[t.Name] = l
			}
		}
		info.PromptGuidelines = toolGuidelines(tools, nil)
	}
	for _, f := range b.files {
		info.ContextFiles = append(info.ContextFiles, ContextFile{Path: f.path, Content: f.content})
	}
	return info
}

// toolLine is a tool's line in the prompt's tool list: its prompt snippet
// on one line, or the first sentence of its description.
func toolLine(t *Tool) string {
	if s := strings.Join(strings.Fields(t.PromptSnippet), " "); s != "" {
		return s
	}
	return firstSentence(t.Description)
}

// toolGuidelines appends the tools' own guidelines to have, trimmed,
// without empty ones and without any already there.
func toolGuidelines(tools []*Tool, have []string) []string {
	out := have
	for _, t := range tools {
		for _, g := range t.PromptGuidelines {
			if g = strings.TrimSpace(g); g != "" && !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// basePrompt is lunar's own prompt: who the model is, its tools, and
// guidelines that depend on which tools it has, the tools' own included.
func basePrompt(tools []*Tool) string {
	var sb strings.Builder
	sb.WriteString("You are an expert coding assistant working in the user's terminal through lunar, a minimal coding agent. " +
		"You help the user by reading files, running commands, editing code and writing new files.\n\n")

	sb.WriteString("Available tools:\n")
	has := map[string]bool{}
	for _, t := range tools {
		has[t.Name] = true
		sb.WriteString("- ")
		sb.WriteString(t.Name)
		if d := toolLine(t); d != "" {
			sb.WriteString(": ")
			sb.WriteString(d)
		}
		sb.WriteString("\n")
	}
	if len(tools) == 0 {
		sb.WriteString("(none: answer from the conversation alone)\n")
	}

	var guidelines []string
	if has["bash"] {
		guidelines = append(guidelines, "Use bash for file operations like ls, rg and find, and to run builds, tests and git.")
	}
	if has["read"] && has["edit"] {
		guidelines = append(guidelines, "Read a file before editing it. Use read to examine files, not cat or sed.")
	}
	if has["edit"] {
		guidelines = append(guidelines, "Use edit for precise changes: each oldText must match the file exactly, once. Put several changes to one file in one edit call.")
	}
	if has["write"] {
		guidelines = append(guidelines, "Use write only for new files or complete rewrites.")
	}
	if has["edit"] || has["write"] {
		guidelines = append(guidelines, "When summarizing what you did, write plain text: do not use cat or bash to display it.")
	}
	// The tools' own guidelines, then the two that always close the list
	// (pi's order).
	guidelines = toolGuidelines(tools, guidelines)
	for _, g := range []string{"Be concise in your responses.", "Show file paths clearly when working with files."} {
		if !slices.Contains(guidelines, g) {
			guidelines = append(guidelines, g)
		}
	}
	sb.WriteString("\nGuidelines:")
	for _, g := range guidelines {
		sb.WriteString("\n- ")
		sb.WriteString(g)
	}
	return sb.String()
}

// firstSentence is a tool description's first sentence (or first line).
func firstSentence(desc string) string {
	desc = strings.TrimSpace(desc)
	if i := strings.IndexByte(desc, '\n'); i >= 0 {
		desc = desc[:i]
	}
	if i := strings.Index(desc, ". "); i >= 0 {
		desc = desc[:i+1]
	}
	return desc
}

// promptText returns s, or the content of the file s names. A value that
// reads as a prompt (several lines, very long) is never taken for a path.
func promptText(s, cwd string) string {
	if s == "" || strings.ContainsRune(s, '\n') || len(s) > 4096 {
		return s
	}
	p := s
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
		if b, err := os.ReadFile(p); err == nil {
			return strings.TrimRight(string(b), "\n")
		}
	}
	return s
}

// ContextFiles returns the paths of the context files (AGENTS.md or
// CLAUDE.md) SystemPrompt includes for cwd and globalDir, in its order.
func ContextFiles(cwd, globalDir string) []string {
	var paths []string
	for _, f := range loadContextFiles(cwd, globalDir) {
		paths = append(paths, f.path)
	}
	return paths
}

type contextFile struct {
	path, content string
}

// loadContextFiles returns the global context file, then those of every
// folder from / down to cwd: outermost first, so the nearest has the last
// word.
func loadContextFiles(cwd, globalDir string) []contextFile {
	var files []contextFile
	seen := map[string]bool{}
	add := func(dir string) {
		for _, name := range contextFileNames {
			p := filepath.Join(dir, name)
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			if !seen[p] {
				seen[p] = true
				files = append(files, contextFile{p, string(b)})
			}
			return
		}
	}
	if globalDir != "" {
		add(globalDir)
	}
	var dirs []string
	for dir := filepath.Clean(cwd); ; dir = filepath.Dir(dir) {
		dirs = append(dirs, dir)
		if filepath.Dir(dir) == dir {
			break
		}
	}
	slices.Reverse(dirs)
	for _, dir := range dirs {
		add(dir)
	}
	return files
}
