package main

// Command-line flags (pi's names where pi has one) and the usage text.

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lunar-cli/lunar/agent"
)

// Exit codes, the same in every mode.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// options are the parsed command line.
type options struct {
	Prompt             string
	PromptSet          bool
	Mode               string
	Model              string
	Provider           string
	APIKey             string
	BaseURL            string
	Thinking           string
	SystemPrompt       string
	AppendSystemPrompt string
	Continue           bool
	Resume             bool
	Session            string
	Fork               string
	NoSession          bool
	SessionDir         string
	Tools              string
	NoTools            bool
	Hooks              []string
	NoHooks            bool
	Trust              bool
	Yes                bool
	ListModels         bool
	All                bool // lunar sessions --all
	JSON               bool // lunar sessions --json
	Temperature        float64
	TemperatureSet     bool
	MaxTokens          int
	Export             string
	Output             string
	Version            bool
	Help               bool
	Debug              bool
	ShowThinking       bool
	Raw                bool

	Args []string // positional arguments: a subcommand, or messages and @files

	// Filled from Args when they are not a subcommand (see splitArgs).
	Messages []string // prompts, sent one after the other
	Files    []string // @file arguments, attached to the first prompt
}

// usageError is a bad command line: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func newFlagSet(o *options) *pflag.FlagSet {
	fs := pflag.NewFlagSet("lunar", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.StringVarP(&o.Prompt, "print", "p", "", "run one prompt and print the answer (one-shot mode)")
	fs.StringVar(&o.Mode, "mode", "text", "one-shot output: text (the answer) or json (one event per line); rpc: pi's RPC protocol on stdin/stdout (docs/rpc.md)")
	fs.StringVarP(&o.Model, "model", "m", "", "model: provider/id, an id or a part of one (sonnet), with an optional :thinking level")
	fs.StringVar(&o.Provider, "provider", "", "provider name (openai, anthropic, ollama, openrouter, groq, google, xai, deepseek, mistral, or one from config)")
	fs.StringVar(&o.APIKey, "api-key", "", "API key (overrides the provider's environment variable)")
	fs.StringVar(&o.BaseURL, "base-url", "", "API base URL (overrides the provider's)")
	fs.StringVar(&o.Thinking, "thinking", "", "thinking level: off|minimal|low|medium|high")
	fs.Float64Var(&o.Temperature, "temperature", 0, "sampling temperature T (0-2) sent with every request")
	fs.IntVar(&o.MaxTokens, "max-tokens", 0, "most output tokens N a reply may use")
	fs.StringVar(&o.SystemPrompt, "system-prompt", "", "replace the system prompt (text or a file)")
	fs.StringVar(&o.AppendSystemPrompt, "append-system-prompt", "", "append to the system prompt (text or a file)")
	fs.BoolVarP(&o.Continue, "continue", "c", false, "continue the most recent session of this folder")
	fs.BoolVarP(&o.Resume, "resume", "r", false, "pick a session of this folder to resume")
	fs.StringVar(&o.Session, "session", "", "use this session: a file, an id (prefix), a name or words of its first message")
	fs.StringVar(&o.Fork, "fork", "", "fork this session (file or id) into a new session")
	fs.BoolVar(&o.NoSession, "no-session", false, "do not save the conversation")
	fs.StringVar(&o.SessionDir, "session-dir", "", "folder for session files (instead of the per-folder default)")
	fs.StringVar(&o.Tools, "tools", "", "comma-separated tools to enable, built-in or a hook's (default: read,bash,edit,write and every hook tool)")
	fs.BoolVar(&o.NoTools, "no-tools", false, "disable all tools")
	fs.StringArrayVarP(&o.Hooks, "hook", "e", nil, "load this hook file (repeatable)")
	fs.BoolVar(&o.NoHooks, "no-hooks", false, "load no hooks at all (the bundled ones too: tools then run without asking)")
	fs.BoolVar(&o.Trust, "trust", false, "trust this project's .lunar/ (config.json and hooks.d) without asking")
	fs.BoolVar(&o.Yes, "yes", false, "run tools without asking (permissions mode auto for this run; deny rules still apply)")
	fs.BoolVar(&o.All, "all", false, "lunar sessions: list the sessions of every folder")
	fs.BoolVar(&o.JSON, "json", false, "lunar sessions: print JSON")
	fs.BoolVar(&o.ListModels, "list-models", false, "list known models (those matching a search given after it) and exit")
	fs.StringVar(&o.Export, "export", "", "export a session (file or id) to HTML and exit")
	fs.StringVarP(&o.Output, "output", "o", "", "output file for --export")
	fs.BoolVar(&o.ShowThinking, "show-thinking", false, "show the model's thinking in full (REPL)")
	fs.BoolVar(&o.Raw, "raw", false, "print answers as the model wrote them: no markdown rendering on a terminal")
	fs.BoolVar(&o.Debug, "debug", false, "trace hook calls on stderr (also LUNAR_DEBUG=1)")
	fs.BoolVarP(&o.Version, "version", "v", false, "print the version and exit")
	fs.BoolVarP(&o.Help, "help", "h", false, "show this help")
	return fs
}

func parseFlags(args []string) (*options, *pflag.FlagSet, error) {
	o := &options{}
	fs := newFlagSet(o)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return nil, fs, &usageError{flagErrorHint(fs, err)}
	}
	o.PromptSet = fs.Changed("print")
	o.TemperatureSet = fs.Changed("temperature")
	o.Args = fs.Args()
	if o.Mode != "text" && o.Mode != "json" && o.Mode != "rpc" {
		return nil, fs, &usageError{fmt.Sprintf("--mode: %q is not text, json or rpc", o.Mode)}
	}
	if _, err := agent.ParseThinkingLevel(o.Thinking); o.Thinking != "" && err != nil {
		return nil, fs, &usageError{"--thinking: " + err.Error()}
	}
	if o.TemperatureSet && (o.Temperature < 0 || o.Temperature > 2 || math.IsNaN(o.Temperature)) {
		return nil, fs, &usageError{fmt.Sprintf("--temperature: %v is not between 0 and 2", o.Temperature)}
	}
	if fs.Changed("max-tokens") && o.MaxTokens <= 0 {
		return nil, fs, &usageError{fmt.Sprintf("--max-tokens: %d is not a positive number", o.MaxTokens)}
	}
	if o.NoTools && o.Tools != "" {
		return nil, fs, &usageError{"--tools and --no-tools cannot be used together"}
	}
	n := 0
	for _, b := range []bool{o.Continue, o.Resume, o.Session != "", o.Fork != "", o.NoSession} {
		if b {
			n++
		}
	}
	if n > 1 {
		return nil, fs, &usageError{"choose one of --continue, --resume, --session, --fork, --no-session"}
	}
	return o, fs, nil
}

// flagErrorHint is pflag's error with, for a mistyped flag, the nearest
// real one: "unknown flag: --modle (did you mean --model?)".
func flagErrorHint(fs *pflag.FlagSet, err error) string {
	msg := err.Error()
	var typed string
	switch {
	case strings.HasPrefix(msg, "unknown flag: --"):
		typed = strings.TrimPrefix(msg, "unknown flag: --")
	case strings.HasPrefix(msg, "unknown shorthand flag: "):
		// "unknown shorthand flag: 'x' in -xyz": a long flag typed with one dash?
		if i := strings.LastIndex(msg, " in -"); i >= 0 {
			typed = msg[i+len(" in -"):]
		}
	default:
		return msg
	}
	typed, _, _ = strings.Cut(typed, "=")
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if best, ok := nearestName(typed, names); ok {
		return fmt.Sprintf("%s (did you mean --%s?)", msg, best)
	}
	return msg
}

// editDistance is the edit distance between a and b, a swap of two
// neighbours counting as one edit (optimal string alignment).
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// flagValue names the value of each flag that takes one, for --help.
var flagValue = map[string]string{
	"print": "PROMPT", "mode": "text|json|rpc", "model": "MODEL", "provider": "NAME", "api-key": "KEY",
	"base-url": "URL", "thinking": "LEVEL", "temperature": "T", "max-tokens": "N",
	"system-prompt": "TEXT|FILE", "append-system-prompt": "TEXT|FILE", "session": "ID|NAME|FILE",
	"fork": "ID|FILE", "session-dir": "DIR", "tools": "LIST", "hook": "FILE", "export": "SESSION",
	"output": "FILE",
}

// flagUsages lists the flags for --help: "-p, --print PROMPT" and the
// description, without pflag's type names and "[=true|false]".
func flagUsages(fs *pflag.FlagSet) string {
	type row struct{ left, desc string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *pflag.Flag) {
		left := "    "
		if f.Shorthand != "" {
			left = "-" + f.Shorthand + ", "
		}
		left += "--" + f.Name
		if v := flagValue[f.Name]; v != "" {
			left += " " + v
		} else if f.Name == "list-models" {
			left += " [SEARCH]"
		}
		rows = append(rows, row{left, f.Usage})
		width = max(width, len(left))
	})
	// Descriptions are wrapped to fit 80 columns, under one another.
	descWidth := max(80-width-4, 30)
	var b strings.Builder
	for _, r := range rows {
		for i, line := range wrapWords(r.desc, descWidth) {
			left := r.left
			if i > 0 {
				left = ""
			}
			fmt.Fprintf(&b, "  %-*s  %s\n", width, left, line)
		}
	}
	return b.String()
}

func printUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, `lunar %s — a minimal LLM agent for the terminal, customised with Lua hooks

Usage:
  lunar [flags] [@files...] [prompts...]
                                the REPL, starting with the prompts (one-shot when
                                stdout is not a terminal)
  lunar -p "prompt" [flags]     one-shot: print the answer and exit
  echo "prompt" | lunar         one-shot from stdin
  lunar sessions [--all] [--json]   this folder's sessions (every folder's with --all)
  lunar sessions show ID        print a session's conversation
  lunar sessions rm ID [--yes]  delete a session
  lunar hooks                   list loaded hooks, their events, commands and tools
  lunar hooks check FILE        load one hook in isolation and report problems
  lunar hooks types             print LuaLS type annotations for the hook API
  lunar mcp list                start the MCP servers, list their tools and prompts
  lunar completion bash|zsh|fish   print a shell completion script

Flags:
%s
Examples:
  lunar "explain main.go"       the REPL, with this as the first prompt
  lunar -p "explain main.go"
  lunar @main.go @shot.png -p "what does the screenshot show of this code?"
  git diff | lunar -p "write a commit message for this diff"
  lunar --model sonnet:high     a model by part of its id, with a thinking level
  lunar --model ollama/llama3.1 -p "hello"
  lunar --list-models gpt       the known models whose id matches "gpt"
  lunar -c                      continue where you left off
  lunar --session "flaky test"  resume the session named so, or whose first prompt says so
  lunar --mode json -p "list the files here" | jq .type
  lunar -e ./my-hook.lua        load an extra hook
  lunar --yes -p "fix the failing test"   let a script write, edit and run commands

Environment: ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY,
  GROQ_API_KEY, XAI_API_KEY, DEEPSEEK_API_KEY, MISTRAL_API_KEY (Ollama needs none);
  LUNAR_HOME overrides the config/data/state roots; LUNAR_DEBUG=1 traces hooks;
  NO_COLOR=1 turns colours off; TERM=dumb also drops the spinner and line editing.
`, version, flagUsages(fs))
}
