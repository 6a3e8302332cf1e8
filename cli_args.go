package main

// Positional arguments, as pi reads them: `lunar [@files...] [prompts...]`.
// A known subcommand name first makes them a subcommand; otherwise @path
// arguments are files attached to the first prompt and the others are
// prompts, sent one after the other.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lunar-cli/lunar/session"
)

// subcommands are the names that make the positional arguments a
// subcommand (a prompt that is one of these words needs -p).
var subcommands = []string{"sessions", "hooks", "mcp", "completion"}

func isSubcommand(args []string) bool {
	return len(args) > 0 && slices.Contains(subcommands, args[0])
}

// splitArgs fills o.Messages and o.Files from the positional arguments
// (and a -p value that names a file, as in `lunar -p @main.go "explain"`).
func splitArgs(o *options) {
	if strings.HasPrefix(o.Prompt, "@") && !strings.ContainsAny(o.Prompt, " \n") && len(o.Prompt) > 1 {
		o.Files = append(o.Files, o.Prompt[1:])
		o.Prompt = ""
	}
	for _, arg := range o.Args {
		if strings.HasPrefix(arg, "@") && len(arg) > 1 {
			o.Files = append(o.Files, arg[1:])
			continue
		}
		if strings.TrimSpace(arg) != "" {
			o.Messages = append(o.Messages, arg)
		}
	}
}

// prompts are the prompts the command line asks for, in order: -p's, then
// the positional ones.
func (o *options) prompts() []string {
	var out []string
	if strings.TrimSpace(o.Prompt) != "" {
		out = append(out, o.Prompt)
	}
	return append(out, o.Messages...)
}

// initialPrompt is one prompt from the command line with what is attached
// to it.
type initialPrompt struct {
	text   string
	images []session.ContentBlock
}

// attachFiles appends the @file arguments to text as the REPL attaches
// @path words (text inline in <file> blocks, images as image parts). A
// file that cannot be attached is an error naming it.
func attachFiles(text string, files []string, cwd string) (string, []session.ContentBlock, error) {
	if len(files) == 0 {
		return text, nil, nil
	}
	words := make([]string, len(files))
	for i, f := range files {
		path, ok := attachmentPath(f, cwd)
		if !ok {
			return "", nil, fmt.Errorf("@%s: no such file", f)
		}
		words[i] = "@" + path
	}
	joined := strings.Join(words, " ")
	expanded, images, notes := expandAttachments(joined, cwd)
	if len(notes) > 0 {
		return "", nil, fmt.Errorf("%s", notes[0])
	}
	blocks := strings.TrimPrefix(strings.TrimPrefix(expanded, joined), "\n\n")
	switch {
	case blocks == "":
		return text, images, nil
	case text == "":
		return blocks, images, nil
	}
	return text + "\n\n" + blocks, images, nil
}
