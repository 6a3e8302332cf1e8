package main

// `lunar completion bash|zsh|fish`: a completion script for the shell,
// listing the flags, the subcommands and the model ids known when it was
// made (built-in and from config.json).

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lunar-cli/lunar/agent"
)

// completionWords is what a script completes.
type completionWords struct {
	flags     []string          // --name and -x
	valued    map[string]bool   // flags that take a value (--name)
	values    map[string]string // value words per flag (--model: model ids)
	commands  []string          // subcommands
	sessions  []string          // words after `lunar sessions`
	hooks     []string          // words after `lunar hooks`
	shells    []string          // words after `lunar completion`
	flagUsage map[string]string // description per --name (fish, zsh)
}

func (a *app) subcommandCompletion(args []string) int {
	if len(args) != 1 {
		return a.fail(&usageError{"usage: lunar completion bash|zsh|fish"})
	}
	if err := a.setupModels(); err != nil {
		return a.fail(err)
	}
	w := a.completionWords()
	switch args[0] {
	case "bash":
		writeBashCompletion(a.stdout, w)
	case "zsh":
		writeZshCompletion(a.stdout, w)
	case "fish":
		writeFishCompletion(a.stdout, w)
	default:
		return a.fail(&usageError{fmt.Sprintf("completion: unknown shell %q (bash, zsh or fish)", args[0])})
	}
	return exitOK
}

func (a *app) completionWords() completionWords {
	w := completionWords{valued: map[string]bool{}, values: map[string]string{}, flagUsage: map[string]string{},
		commands: subcommands, sessions: []string{"show", "rm"}, hooks: []string{"check", "types"}, shells: []string{"bash", "zsh", "fish"}}
	newFlagSet(&options{}).VisitAll(func(f *pflag.Flag) {
		w.flags = append(w.flags, "--"+f.Name)
		if f.Shorthand != "" {
			w.flags = append(w.flags, "-"+f.Shorthand)
		}
		if flagValue[f.Name] != "" {
			w.valued["--"+f.Name] = true
			if f.Shorthand != "" {
				w.valued["-"+f.Shorthand] = true
			}
		}
		w.flagUsage[f.Name] = f.Usage
	})
	var ids []string
	var providers []string
	seen := map[string]bool{}
	for _, m := range a.registry.All() {
		ids = append(ids, agent.ModelSpec(m))
		if !seen[m.Provider] {
			seen[m.Provider] = true
			providers = append(providers, m.Provider)
		}
	}
	sort.Strings(ids)
	w.values["--model"] = strings.Join(ids, " ")
	w.values["-m"] = w.values["--model"]
	w.values["--provider"] = strings.Join(providers, " ")
	w.values["--thinking"] = agent.ThinkingLevelNames(" ")
	w.values["--mode"] = "text json rpc"
	w.values["--tools"] = "read bash edit write"
	return w
}

func writeBashCompletion(out io.Writer, w completionWords) {
	var valued []string
	for f := range w.valued {
		valued = append(valued, f)
	}
	sort.Strings(valued)
	fmt.Fprintf(out, `# lunar completion for bash: eval "$(lunar completion bash)" (or save it in
# ~/.local/share/bash-completion/completions/lunar)
_lunar() {
    local cur prev
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    case "$prev" in
`)
	for _, f := range valued {
		if v := w.values[f]; v != "" {
			fmt.Fprintf(out, "        %s) COMPREPLY=( $(compgen -W %q -- \"$cur\") ); return ;;\n", f, v)
		}
	}
	fmt.Fprintf(out, "        %s) COMPREPLY=( $(compgen -f -- \"$cur\") ); return ;;\n", strings.Join(valuedWithout(valued, w.values), "|"))
	fmt.Fprintf(out, `    esac
    if [[ $COMP_CWORD -ge 2 ]]; then
        case "${COMP_WORDS[1]}" in
            sessions) COMPREPLY=( $(compgen -W %q -- "$cur") ); return ;;
            hooks) COMPREPLY=( $(compgen -W %q -- "$cur") $(compgen -f -- "$cur") ); return ;;
            completion) COMPREPLY=( $(compgen -W %q -- "$cur") ); return ;;
        esac
    fi
    if [[ "$cur" == -* ]]; then
        COMPREPLY=( $(compgen -W %q -- "$cur") )
    elif [[ "$cur" == @* ]]; then
        COMPREPLY=( $(compgen -P @ -f -- "${cur#@}") )
    elif [[ $COMP_CWORD -eq 1 ]]; then
        COMPREPLY=( $(compgen -W %q -- "$cur") )
    fi
}
complete -o default -F _lunar lunar
`, strings.Join(append(w.sessions, "--all", "--json", "--yes"), " "), strings.Join(w.hooks, " "), strings.Join(w.shells, " "),
		strings.Join(w.flags, " "), strings.Join(w.commands, " "))
}

// valuedWithout lists the valued flags without a word list (they take
// files or free text).
func valuedWithout(valued []string, values map[string]string) []string {
	var out []string
	for _, f := range valued {
		if values[f] == "" {
			out = append(out, f)
		}
	}
	return out
}

func writeZshCompletion(out io.Writer, w completionWords) {
	fmt.Fprint(out, "#compdef lunar\n# lunar completion for zsh: lunar completion zsh > \"${fpath[1]}/_lunar\"\n_lunar() {\n  local -a args\n  args=(\n")
	newFlagSet(&options{}).VisitAll(func(f *pflag.Flag) {
		desc := zshEscape(f.Usage)
		action := ""
		if flagValue[f.Name] != "" {
			if v := w.values["--"+f.Name]; v != "" {
				action = fmt.Sprintf(":%s:(%s)", strings.ToLower(flagValue[f.Name]), v)
			} else {
				action = fmt.Sprintf(":%s:_files", strings.ToLower(flagValue[f.Name]))
			}
		}
		if f.Shorthand != "" {
			fmt.Fprintf(out, "    '(-%s --%s)'{-%s,--%s}'[%s]%s'\n", f.Shorthand, f.Name, f.Shorthand, f.Name, desc, action)
		} else {
			fmt.Fprintf(out, "    '--%s[%s]%s'\n", f.Name, desc, action)
		}
	})
	fmt.Fprintf(out, `    '1: :->first'
    '*:: :->rest'
  )
  _arguments -s $args
  case $state in
    first) _alternative 'commands:command:(%s)' 'files:file:_files' ;;
    rest)
      case $words[1] in
        sessions) _values 'sessions command' %s ;;
        hooks) _alternative 'commands:command:(%s)' 'files:file:_files' ;;
        completion) _values 'shell' %s ;;
        *) _files ;;
      esac ;;
  esac
}
compdef _lunar lunar
`, strings.Join(w.commands, " "), strings.Join(w.sessions, " "), strings.Join(w.hooks, " "), strings.Join(w.shells, " "))
}

func zshEscape(s string) string {
	return strings.NewReplacer("'", `'\''`, "[", `\[`, "]", `\]`, ":", `\:`).Replace(s)
}

func writeFishCompletion(out io.Writer, w completionWords) {
	fmt.Fprint(out, "# lunar completion for fish: lunar completion fish > ~/.config/fish/completions/lunar.fish\n")
	fmt.Fprint(out, "complete -c lunar -f\n")
	fmt.Fprintf(out, "complete -c lunar -n __fish_use_subcommand -a %q\n", strings.Join(w.commands, " "))
	fmt.Fprintf(out, "complete -c lunar -n '__fish_seen_subcommand_from sessions' -a %q\n", strings.Join(w.sessions, " "))
	fmt.Fprintf(out, "complete -c lunar -n '__fish_seen_subcommand_from hooks' -a %q -F\n", strings.Join(w.hooks, " "))
	fmt.Fprintf(out, "complete -c lunar -n '__fish_seen_subcommand_from completion' -a %q\n", strings.Join(w.shells, " "))
	newFlagSet(&options{}).VisitAll(func(f *pflag.Flag) {
		line := "complete -c lunar -l " + f.Name
		if f.Shorthand != "" {
			line += " -s " + f.Shorthand
		}
		if flagValue[f.Name] != "" {
			if v := w.values["--"+f.Name]; v != "" {
				line += fmt.Sprintf(" -x -a %q", v)
			} else {
				line += " -r -F"
			}
		}
		line += fmt.Sprintf(" -d %q", f.Usage)
		fmt.Fprintln(out, line)
	})
}
