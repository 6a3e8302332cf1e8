package main

// Tab completion at the prompt (and in the in-run editor): slash
// commands, their arguments (/model, /thinking, entry and session ids)
// and @file paths.

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/lunar-cli/lunar/agent"
)

// maxCompletions bounds the candidates offered at once: liner would
// otherwise stop to ask "Display all N possibilities?", a prompt the Ctrl+C
// translation cannot leave.
const maxCompletions = 100

// completeWord completes slash commands (and their arguments) at the
// start of the line and file paths after @.
func (r *repl) completeWord(line string, pos int) (string, []string, string) {
	runes := []rune(line)
	if pos > len(runes) {
		pos = len(runes)
	}
	before, tail := string(runes[:pos]), string(runes[pos:])
	if strings.HasPrefix(before, "/") {
		if !strings.Contains(before, " ") {
			var out []string
			for _, c := range r.commands() {
				if strings.HasPrefix("/"+c.Name, before) {
					out = append(out, "/"+c.Name+" ")
				}
			}
			return "", capList(out), tail
		}
		if head, list, ok := r.completeArgument(before); ok {
			return head, capList(list), tail
		}
	}
	start := strings.LastIndexAny(before, " \t") + 1
	word := before[start:]
	if !strings.HasPrefix(word, "@") {
		return before, nil, tail
	}
	dirPart, list := completePath(word[1:], r.a.cwd)
	for i, c := range list {
		if !strings.HasSuffix(c, "/") {
			list[i] = c + " " // a file is complete: go on typing
		}
	}
	return before[:start] + "@" + dirPart, capList(list), tail
}

// capList keeps the first maxCompletions candidates.
func capList(list []string) []string {
	if len(list) > maxCompletions {
		return list[:maxCompletions]
	}
	return list
}

// completeArgument completes the argument of /model, /thinking and the
// commands taking entry or session ids.
func (r *repl) completeArgument(before string) (string, []string, bool) {
	name, arg, _ := strings.Cut(before[1:], " ")
	if strings.Contains(arg, " ") {
		return "", nil, false
	}
	var cands []string
	switch name {
	case "model":
		cands = append(cands, "next")
		seen := map[string]bool{}
		for _, m := range r.modelChoices() {
			cands = append(cands, modelSpec(m))
			// A bare id ("/model gpt-4" Tab) completes to the ids, as
			// --model takes them.
			if !strings.Contains(arg, "/") && !seen[m.ID] {
				seen[m.ID] = true
				cands = append(cands, m.ID)
			}
		}
	case "thinking":
		for _, l := range agent.ThinkingLevels {
			cands = append(cands, string(l))
		}
	case "branch", "fork", "label":
		for _, e := range r.a.agentRuntime.Session().Entries() {
			cands = append(cands, e.ID)
		}
	case "resume":
		infos, _ := r.sessionInfos()
		for _, in := range infos {
			cands = append(cands, in.ID)
		}
	default:
		return "", nil, false
	}
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, arg) {
			out = append(out, c+" ")
		}
	}
	return "/" + name + " ", out, true
}

// completePath lists the entries of the folder named by the part of p up
// to its last slash that start with the rest; folders end in "/".
func completePath(p, cwd string) (string, []string) {
	dirPart, base := "", p
	if i := strings.LastIndex(p, "/"); i >= 0 {
		dirPart, base = p[:i+1], p[i+1:]
	}
	dir := dirPart
	if strings.HasPrefix(dir, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, dir[2:])
		}
	}
	if dir == "" {
		dir = "."
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(cwd, dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return dirPart, nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, base) || (strings.HasPrefix(n, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		if e.IsDir() {
			n += "/"
		}
		out = append(out, n)
	}
	return dirPart, out
}
