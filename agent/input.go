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

// SteerQueue holds messages queued into a running loop (Runtime
// implements it): steering messages, added before the next model call,
// and follow-ups, added when the agent would stop.
type SteerQueue interface {
	// HasSteer reports whether a steering message that asks for a model
	// call waits (a run that would end makes one more then).
	HasSteer() bool
	// TakeSteer removes and returns the next steering messages (user or
	// custom role).
	TakeSteer(ctx context.Context) []session.Message
	// TakeFollowUp removes and returns the next follow-ups; none when
	// no waiting follow-up asks for a model call.
	TakeFollowUp(ctx context.Context) []session.Message
	// TurnBoundary runs between two turns of a run, before the next
	// one's messages and model call (a compaction a hook asked for).
	TurnBoundary(ctx context.Context)
}
