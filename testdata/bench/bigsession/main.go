// Command bigsession writes a large session file in pi's format for
// resume.sh: one long path (no compaction) of user prompts, assistant
// replies with thinking, text and a tool call, tool results with code,
// and answers, about 1.3 KB an entry (the session BenchmarkResumeLarge in
// e2e_pi_scale_test.go resumes): sessiontest.WriteLarge.
//
//	bigsession -n ENTRIES -api openai-completions|anthropic-messages -model PROVIDER/ID -cwd DIR FILE
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/lunar-cli/lunar/session/sessiontest"
)

func main() {
	n := flag.Int("n", 100_000, "entries")
	api := flag.String("api", "openai-completions", "the assistant messages' api")
	model := flag.String("model", "big/big-model", "the session's provider/model")
	cwd := flag.String("cwd", "/tmp", "the header's cwd")
	flag.Parse()
	provider, id, ok := strings.Cut(*model, "/")
	if flag.NArg() != 1 || !ok {
		fmt.Fprintln(os.Stderr, "usage: bigsession [-n ENTRIES] [-api API] [-model PROVIDER/ID] [-cwd DIR] FILE")
		os.Exit(2)
	}
	if err := write(flag.Arg(0), *cwd, *n, *api, provider, id); err != nil {
		fmt.Fprintln(os.Stderr, "bigsession:", err)
		os.Exit(1)
	}
}

func write(path, cwd string, n int, api, provider, model string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := sessiontest.WriteLarge(f, cwd, n, api, provider, model); err != nil {
		return err
	}
	return f.Close()
}
