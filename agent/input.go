package agent

// Where a prompt comes from (chat.message's source, pi's InputEvent
// source), carried by the context of Runtime.Prompt so that every front
// end, and hook-queued prompts, say it without new parameters.

import (
	"context"

	"github.com/lunar-cli/lunar/session"
)

// Input sources, as hooks see them. pi's names where pi has the case.
const (
	SourceInteractive = "interactive" // typed in the REPL (pi: "interactive")
	SourceExtension   = "extension"   // lunar.send, a queued hook prompt (pi: "extension")
	SourcePrint       = "print"       // the -p argument of a one-shot run (pi says "interactive")
	SourceStdin       = "stdin"       // a one-shot prompt piped through stdin (pi says "interactive")
	SourceRPC         = "rpc"         // a prompt command of --mode rpc (pi: "rpc")
)

type sourceKey struct{}

// WithInputSource returns ctx marking prompts made with it as coming from
// source (one of the Source* constants).
func WithInputSource(ctx context.Context, source string) context.Context {
	return context.WithValue(ctx, sourceKey{}, source)
}

// InputSource is the source ctx carries; SourceInteractive when none.
func InputSource(ctx context.Context) string {
	if s, ok := ctx.Value(sourceKey{}).(string); ok && s != "" {
		return s
	}
	return SourceInteractive
}

// SteerQueue holds prompts queued into a running turn (Runtime
// implements it).
type SteerQueue interface {
	HasSteer() bool
	// TakeSteer returns the queued prompts as user messages and clears them.
	TakeSteer(ctx context.Context) []session.Message
}
