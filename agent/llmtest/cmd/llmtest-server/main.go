// Command llmtest-server runs the llmtest fake LLM server as a separate
// process, for end-to-end tests of the lunar binary.
//
//	llmtest-server --script replies.json [--record requests.jsonl] [--models a,b]
//
// It listens on 127.0.0.1 on a free port, prints its base URL (".../v1",
// good for both APIs) as the first line of stdout, serves the script's
// replies in order, appends every request it receives to the --record file
// as one JSON line, and runs until SIGINT or SIGTERM. The script format is
// llmtest.Script: {"replies":[{"parts":[{"type":"text","text":"hi"}]}]}.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/spf13/pflag"
)

func main() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { <-sig; close(done) }()
	if err := run(os.Args[1:], os.Stdout, done); err != nil {
		fmt.Fprintln(os.Stderr, "llmtest-server:", err)
		if errors.Is(err, pflag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(2)
	}
}

// run serves the script named in args until done is closed.
func run(args []string, stdout io.Writer, done <-chan struct{}) error {
	fs := pflag.NewFlagSet("llmtest-server", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	script := fs.String("script", "", "JSON script file: the replies to serve (required)")
	record := fs.String("record", "", "append every request received to this file as JSON lines")
	models := fs.StringSlice("models", nil, "model ids GET /v1/models lists")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w\nusage: llmtest-server --script FILE [--record FILE] [--models a,b]", err)
	}
	if *script == "" {
		return errors.New("--script is required")
	}
	sc, err := llmtest.LoadScript(*script)
	if err != nil {
		return fmt.Errorf("--script: %w", err)
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Load(sc)
	if len(*models) > 0 {
		srv.SetModels(*models...)
	}
	if *record != "" {
		f, err := os.OpenFile(*record, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("--record: %w", err)
		}
		defer f.Close()
		srv.RecordTo(f)
	}
	if _, err := fmt.Fprintln(stdout, srv.URL()); err != nil {
		return fmt.Errorf("print url: %w", err)
	}
	<-done
	return nil
}
