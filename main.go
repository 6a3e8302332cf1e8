package main

// main only parses flags and wires the packages together; see flags.go,
// app.go, oneshot.go and repl.go.

import (
	"os"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

func main() {
	deferFirstGC()
	hardenProcess()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
