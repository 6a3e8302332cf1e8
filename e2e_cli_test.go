// End-to-end tests of the command-line conventions: prompts and @files as
// arguments, model patterns, flag suggestions, --help, completion scripts,
// --temperature/--max-tokens and TERM=dumb.
package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// An argument is the prompt; when stdout is not a terminal the run is
// one-shot, and several prompts are sent one after the other.
func TestCLIPositionalPromptsOneShot(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("first answer"))
	e.srv.Reply(llmtest.Text("second answer"))
	r := e.run("", "what is one", "and two")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "first answer\n\nsecond answer\n", r.stdout)
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "what is one", lastUserText(t, reqs[0]))
	assert.Equal(t, "and two", lastUserText(t, reqs[1]))
	assert.Contains(t, string(reqs[1].Body), "first answer", "one conversation")
	assert.Len(t, e.sessionFiles(), 1)

	// -p and piped stdin, as before: stdin is appended to the prompt.
	e.srv.Reply(llmtest.Text("ok"))
	r = e.run("piped text\n", "-p", "summarise")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "summarise\n\npiped text", lastUserText(t, e.srv.Requests()[2]))
}

// @file arguments attach files to the first prompt in one-shot mode too,
// as @path words do in the REPL: text inline, images as image parts.
func TestCLIFileArgumentsOneShot(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "notes.txt"), []byte("the secret is 42\n"), 0o644))
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "dot.png"), png, 0o644))
	e.srv.Reply(llmtest.Text("seen"))
	r := e.run("", "@notes.txt", "@dot.png", "-p", "what do these say?")
	require.Equal(t, 0, r.code, r.stderr)
	text := lastUserText(t, e.srv.Requests()[0])
	assert.Equal(t, "what do these say?\n\n<file name=\""+filepath.Join(e.cwd, "notes.txt")+"\">\nthe secret is 42\n\n</file>\n"+
		"<file name=\""+filepath.Join(e.cwd, "dot.png")+"\"></file>", text)
	assert.Contains(t, string(e.srv.Requests()[0].Body), "data:image/png;base64,", "the image is an image part")
	msgs := e.onlySession().BuildContext().Messages
	require.NotEmpty(t, msgs)
	assert.True(t, strings.HasPrefix(msgs[0].Message.Text(), "what do these say?\n\n<file name="), msgs[0].Message.Text())

	// -p @file works as pi's: the file is attached, the prompt is an argument.
	e.srv.Reply(llmtest.Text("again"))
	r = e.run("", "-p", "@notes.txt", "summarise")
	require.Equal(t, 0, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(lastUserText(t, e.srv.Requests()[1]), "summarise\n\n<file name="))

	r = e.run("", "@missing.txt", "-p", "read it")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "@missing.txt: no such file")
	assert.Len(t, e.srv.Requests(), 2, "nothing sent")
}

// On a terminal, an argument opens the REPL with it as the first message.
func TestCLIPositionalPromptOpensREPL(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("hello from the model"))
	e.srv.Reply(llmtest.Text("second reply"))
	p := e.start("tell me hello")
	p.expect("> tell me hello")
	p.expect("hello from the model")
	p.line("and more")
	p.expect("second reply")
	p.quit()
	assert.Equal(t, []string{"tell me hello", "and more"}, userTexts(e.onlySession()))
}

func TestCLIListModelsSearch(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	r := e.run("", "--list-models", "sonnet")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	require.Greater(t, len(lines), 2)
	assert.True(t, strings.HasPrefix(lines[0], "provider"))
	for _, l := range lines[1:] {
		assert.Contains(t, l, "sonnet")
	}
	all := e.run("", "--list-models")
	assert.Greater(t, strings.Count(all.stdout, "\n"), len(lines))

	r = e.run("", "--list-models", "anthropic", "haiku")
	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "claude-haiku-4-5")
	assert.NotContains(t, r.stdout, "sonnet")

	r = e.run("", "--list-models", "qqqqzzzz")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `no models match "qqqqzzzz"`)
}

// --model takes a part of an id and a ":level" suffix, as pi's does.
func TestCLIModelPatternAndThinking(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("ok"))
	cmd := exec.Command(lunarBin, "--model", "sonnet:high", "--base-url", e.srv.RootURL(), "--api-key", "sk-test", "--yes", "-p", "hi")
	cmd.Dir = e.cwd
	cmd.Env = append(os.Environ(), "LUNAR_HOME="+e.home, "NO_COLOR=1", "LUNAR_MAX_RETRIES=0")
	r := e.exec(cmd)
	require.Equal(t, 0, r.code, r.stderr)
	req := e.srv.Requests()[0]
	assert.Equal(t, llmtest.APIAnthropic, req.API)
	assert.Equal(t, "claude-sonnet-4-6", req.Field("model"), "the newest alias, as pi picks")
	assert.Equal(t, "adaptive", req.Field("thinking.type"), "the :high suffix turns thinking on")
	s := e.onlySession()
	var levels []string
	for _, en := range s.Entries() {
		if en.Type == "thinking_level_change" {
			levels = append(levels, en.ThinkingLevel())
		}
	}
	assert.Equal(t, []string{"high"}, levels)

	// An explicit --thinking wins over the suffix.
	e.srv.Reply(llmtest.Text("ok"))
	cmd = exec.Command(lunarBin, "--model", "openai/gpt-4.1-mi", "--base-url", e.srv.URL(), "--api-key", "sk-test", "--yes", "--no-session", "-p", "hi")
	cmd.Dir, cmd.Env = e.cwd, append(os.Environ(), "LUNAR_HOME="+e.home, "LUNAR_MAX_RETRIES=0")
	r = e.exec(cmd)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "gpt-4.1-mini", e.srv.Requests()[1].Field("model"))

	r = e.run("", "--model", "nosuchmodelanywhere", "-p", "hi")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `--model: no model matches "nosuchmodelanywhere"`)
}

func TestCLIMistypedFlagSuggestion(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	for typed, want := range map[string]string{"--modle": "--model", "--sesion": "--session", "--tempreature": "--temperature", "--list-model": "--list-models"} {
		r := e.run("", typed, "x", "-p", "hi")
		assert.Equal(t, 2, r.code, typed)
		assert.Contains(t, r.stderr, "unknown flag: "+typed+" (did you mean "+want+"?)")
	}
	r := e.run("", "--zzzzzzzz", "-p", "hi")
	assert.Equal(t, 2, r.code)
	assert.NotContains(t, r.stderr, "did you mean")
}

func TestCLIHelpIsPlain(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	r := e.run("", "--help")
	require.Equal(t, 0, r.code)
	assert.NotContains(t, r.stdout, "[=true|false]")
	assert.NotContains(t, r.stdout, " string ")
	assert.NotContains(t, r.stdout, "stringArray")
	assert.Contains(t, r.stdout, "  -p, --print PROMPT ")
	assert.Contains(t, r.stdout, "      --list-models [SEARCH] ")
	assert.Contains(t, r.stdout, "lunar completion bash|zsh|fish")
	for _, line := range strings.Split(r.stdout, "\n") {
		assert.LessOrEqual(t, len([]rune(line)), 100, "help fits a terminal: %q", line)
	}
}

func TestCLICompletionScripts(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			r := e.run("", "completion", shell)
			require.Equal(t, 0, r.code, r.stderr)
			wants := []string{"--model", "--session", "sessions", "completion", "anthropic/claude-sonnet-4-5", "ollama/llama3.1"}
			if shell == "fish" {
				wants[0], wants[1] = "-l model", "-l session"
			}
			for _, want := range wants {
				assert.Contains(t, r.stdout, want)
			}
			if path, err := exec.LookPath(shell); err == nil {
				check := exec.Command(path, "-n")
				if shell == "fish" {
					check = exec.Command(path, "--no-execute")
				}
				check.Stdin = strings.NewReader(r.stdout)
				out, err := check.CombinedOutput()
				assert.NoError(t, err, "%s -n: %s", shell, out)
			}
		})
	}
	if bash, err := exec.LookPath("bash"); err == nil {
		// The script completes model ids after --model.
		r := e.run("", "completion", "bash")
		script := r.stdout + `
COMP_WORDS=(lunar --model anthropic/claude-so); COMP_CWORD=2; _lunar; printf '%s\n' "${COMPREPLY[@]}"
COMP_WORDS=(lunar sess); COMP_CWORD=1; _lunar; printf '%s\n' "${COMPREPLY[@]}"
COMP_WORDS=(lunar --thi); COMP_CWORD=1; _lunar; printf '%s\n' "${COMPREPLY[@]}"
`
		out, err := exec.Command(bash, "-c", script).CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Equal(t, "anthropic/claude-sonnet-4-0\nanthropic/claude-sonnet-4-20250514\nanthropic/claude-sonnet-4-5\n"+
			"anthropic/claude-sonnet-4-5-20250929\nanthropic/claude-sonnet-4-6\nsessions\n--thinking\n", string(out))
	}
	r := e.run("", "completion", "tcsh")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `unknown shell "tcsh"`)
}

// --temperature and --max-tokens reach the request body of both APIs.
func TestCLITemperatureAndMaxTokens(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			e := newE2E(t)
			e.api = api
			e.srv.Reply(llmtest.Text("ok"))
			r := e.run("", "--temperature", "0.3", "--max-tokens", "777", "-p", "hi")
			require.Equal(t, 0, r.code, r.stderr)
			req := e.srv.Requests()[0]
			assert.Equal(t, 0.3, req.Field("temperature"))
			maxTokens := req.Field("max_tokens")
			if api == "openai" { // OpenAI's own name for it
				maxTokens = req.Field("max_completion_tokens")
			}
			assert.Equal(t, 777.0, maxTokens)

			e.srv.Reply(llmtest.Text("ok"))
			r = e.run("", "-p", "hi")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Nil(t, e.srv.Requests()[1].Field("temperature"), "no temperature unless asked")
		})
	}
	e := newE2E(t)
	for _, args := range [][]string{{"--temperature", "3"}, {"--temperature", "x"}, {"--max-tokens", "0"}} {
		r := e.run("", append(args, "-p", "hi")...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
		assert.Contains(t, r.stderr, args[0])
	}
}

// TERM=dumb: no escape sequences at all (colours, spinner, line editing,
// redrawn lines), even with colours allowed.
func TestCLITermDumbHasNoEscapes(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Thinking("pondering").Split(3), llmtest.Text("plain **answer**").Split(3))
	base := []string{"--model", "openai/gpt-4.1", "--base-url", e.srv.URL(), "--api-key", "sk-test", "--yes"}
	env := append(os.Environ(), "LUNAR_HOME="+e.home, "LUNAR_MAX_RETRIES=0")
	var kept []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "NO_COLOR=") && !strings.HasPrefix(kv, "TERM=") {
			kept = append(kept, kv)
		}
	}
	p := e.startBare(append(kept, "TERM=dumb"), base...)
	p.expect("/help for commands")
	p.line("hello")
	p.expect("plain **answer**")
	p.send("\x04")
	assert.Equal(t, 0, p.wait())
	assert.NotContains(t, p.output(), "\x1b", "no escape sequence reaches a dumb terminal")
}
