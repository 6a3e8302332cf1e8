package main

// The REPL's /tree: the session's entries as a tree, with the current
// path marked.

import (
	"context"
	"fmt"
	"strings"

	"github.com/lunar-cli/lunar/agent/compaction"
	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/session/export/ansi"
)

func (r *repl) cmdTree(_ context.Context, _ string) error {
	s := r.a.agentRuntime.Session()
	roots := s.Tree()
	if len(roots) == 0 {
		r.printf("the session is empty\n")
		return nil
	}
	onPath := map[string]bool{}
	leaf := ""
	if id := s.LeafID(); id != "" {
		for _, e := range s.Path(id) {
			onPath[e.ID] = true
			// The marker goes on the last entry shown: a trailing label
			// or name entry is not drawn.
			if !hiddenInTree(e) {
				leaf = e.ID
			}
		}
	}
	tw := &treeWriter{t: r.term, onPath: onPath, leaf: leaf, width: r.term.columns(), label: s.Label}
	tw.nodes(visible(roots), "")
	r.printf("%s", tw.b.String())
	return nil
}

// treeWriter renders the session tree: a chain of single children stays
// in one column, branches are drawn with ├─ and └─.
type treeWriter struct {
	t      *terminal
	b      strings.Builder
	onPath map[string]bool
	leaf   string
	width  int
	label  func(id string) string
}

// hiddenInTree are entry types /tree leaves out (their children take
// their place).
func hiddenInTree(e *session.Entry) bool {
	return e.Type == session.TypeLabel || e.Type == session.TypeSessionInfo
}

// visible replaces hidden nodes by their visible descendants.
func visible(nodes []*session.TreeNode) []*session.TreeNode {
	var out []*session.TreeNode
	for _, n := range nodes {
		if hiddenInTree(n.Entry) {
			out = append(out, visible(n.Children)...)
		} else {
			out = append(out, n)
		}
	}
	return out
}

// nodes writes sibling subtrees under prefix.
func (tw *treeWriter) nodes(nodes []*session.TreeNode, prefix string) {
	if len(nodes) == 1 {
		tw.chain(nodes[0], prefix, "", prefix)
		return
	}
	for i, n := range nodes {
		if i == len(nodes)-1 {
			tw.chain(n, prefix, "└─ ", prefix+"   ")
		} else {
			tw.chain(n, prefix, "├─ ", prefix+"│  ")
		}
	}
}

// chain writes n and its single-child descendants, then its branches.
func (tw *treeWriter) chain(n *session.TreeNode, prefix, connector, cont string) {
	for {
		tw.line(n.Entry, prefix+connector, n.Label)
		kids := visible(n.Children)
		if len(kids) != 1 {
			tw.nodes(kids, cont)
			return
		}
		n, prefix, connector = kids[0], cont, ""
	}
}

func (tw *treeWriter) line(e *session.Entry, prefix, label string) {
	mark := "  "
	if tw.onPath[e.ID] {
		mark = tw.t.paint(ansiGreen, "* ")
	}
	if label == "" && tw.label != nil {
		label = tw.label(e.ID)
	}
	suffix := ""
	if label != "" {
		suffix += " " + tw.t.paint(ansiYellow, "["+label+"]")
	}
	if e.ID == tw.leaf {
		suffix += " " + tw.t.paint(ansiGreen, "← leaf")
	}
	desc := ansi.Sanitize(entryPreview(e))
	room := tw.width - len([]rune(prefix)) - 12 - len([]rune(label)) - 10
	fmt.Fprintf(&tw.b, "%s%s%s  %s%s\n", mark, prefix, tw.t.paint(ansiDim, e.ID), truncateRunes(desc, max(room, 20)), suffix)
}

// entryPreview describes an entry in one line: role and text for
// messages, the change for model and thinking entries.
func entryPreview(e *session.Entry) string {
	switch e.Type {
	case session.TypeMessage:
		if e.Message != nil {
			return messagePreview(e.Message)
		}
	case session.TypeModelChange:
		return "model → " + e.Provider() + "/" + e.ModelID()
	case session.TypeThinkingLevelChange:
		return "thinking → " + e.ThinkingLevel()
	case session.TypeCompaction:
		return "compaction: " + firstLine(e.Summary(), 200)
	case session.TypeBranchSummary:
		return "branch summary: " + firstLine(strings.TrimPrefix(e.Summary(), compaction.BranchSummaryPreamble), 200)
	case session.TypeCustomMessage:
		return "[" + e.CustomType() + "] " + firstLine(session.BlocksText(e.Content()), 200)
	case session.TypeCustom:
		return "custom " + e.CustomType()
	}
	return e.Type
}
