// Command-line flags (pi's names where pi has one) and the usage text.
package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
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
	Export             string
	Output             string
	Version            bool
	Help               bool
	Debug              bool
	ShowThinking       bool
	Raw                bool

	Args []string // positional arguments (subcommands)
}

// usageError is a bad command line: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func newFlagSet(o *options) *pflag.FlagSet {
	fs := pflag.NewFlagSet("lunar", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.StringVarP(&o.Prompt, "print", "p", "", "run one prompt and print the answer (one-shot mode)")
	fs.StringVar(&o.Mode, "mode", "text", "one-shot output: text (the answer) or json (one event per line)")
	fs.StringVarP(&o.Model, "model", "m", "", "model as provider/id (or an id of --provider)")
	fs.StringVar(&o.Provider, "provider", "", "provider name (openai, anthropic, ollama, openrouter, groq, google, xai, deepseek, mistral, or one from config)")
	fs.StringVar(&o.APIKey, "api-key", "", "API key (overrides the provider's environment variable)")
	fs.StringVar(&o.BaseURL, "base-url", "", "API base URL (overrides the provider's)")
	fs.StringVar(&o.Thinking, "thinking", "", "thinking level: off|minimal|low|medium|high")
	fs.StringVar(&o.SystemPrompt, "system-prompt", "", "replace the system prompt (text or a file)")
	fs.StringVar(&o.AppendSystemPrompt, "append-system-prompt", "", "append to the system prompt (text or a file)")
	fs.BoolVarP(&o.Continue, "continue", "c", false, "continue the most recent session of this folder")
	fs.BoolVarP(&o.Resume, "resume", "r", false, "pick a session of this folder to resume")
	fs.StringVar(&o.Session, "session", "", "use this session file or id (prefix)")
	fs.StringVar(&o.Fork, "fork", "", "fork this session file or id into a new session")
	fs.BoolVar(&o.NoSession, "no-session", false, "do not save the conversation")
	fs.StringVar(&o.SessionDir, "session-dir", "", "folder for session files (instead of the per-folder default)")
	fs.StringVar(&o.Tools, "tools", "", "comma-separated tools to enable (default read,bash,edit,write)")
	fs.BoolVar(&o.NoTools, "no-tools", false, "disable all tools")
	fs.StringArrayVarP(&o.Hooks, "hook", "e", nil, "load this hook file (repeatable)")
	fs.BoolVar(&o.NoHooks, "no-hooks", false, "load no hooks at all (the bundled ones too: tools then run without asking)")
	fs.BoolVar(&o.Trust, "trust", false, "trust this project's .lunar/ (config.json and hooks.d) without asking")
	fs.BoolVar(&o.Yes, "yes", false, "run tools without asking (permissions mode auto for this run; deny rules still apply)")
	fs.BoolVar(&o.ListModels, "list-models", false, "list known models and exit")
	fs.StringVar(&o.Export, "export", "", "export a session file or id to HTML and exit")
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
		return nil, fs, &usageError{err.Error()}
	}
	o.PromptSet = fs.Changed("print")
	o.Args = fs.Args()
	if o.Mode != "text" && o.Mode != "json" {
		return nil, fs, &usageError{fmt.Sprintf("--mode: %q is not text or json", o.Mode)}
	}
	if o.Thinking != "" && !validThinking(o.Thinking) {
		return nil, fs, &usageError{fmt.Sprintf("--thinking: %q is not one of %s", o.Thinking, strings.Join(thinkingLevels, "|"))}
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

func printUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, `lunar %s — a minimal LLM agent for the terminal, customised with Lua hooks

Usage:
  lunar [flags]                 interactive REPL
  lunar -p "prompt" [flags]     one-shot: print the answer and exit
  echo "prompt" | lunar         one-shot from stdin
  lunar sessions                list this folder's sessions
  lunar hooks                   list loaded hooks, their events, commands and tools
  lunar hooks check FILE        load one hook in isolation and report problems
  lunar hooks types             print LuaLS type annotations for the hook API

Flags:
%s
Examples:
  lunar -p "explain main.go"
  git diff | lunar -p "write a commit message for this diff"
  lunar --model anthropic/claude-sonnet-4-5 --thinking medium
  lunar --model ollama/llama3.1 -p "hello"
  lunar -c                      continue where you left off
  lunar --mode json -p "list the files here" | jq .type
  lunar -e ./my-hook.lua        load an extra hook
  lunar --yes -p "fix the failing test"   let a script write, edit and run commands

Environment: OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, ...
  LUNAR_HOME overrides the config/data/state roots; LUNAR_DEBUG=1 traces hooks.
`, version, fs.FlagUsages())
}
