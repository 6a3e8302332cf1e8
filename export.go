package main

// HTML export of a session: `lunar --export SESSION [-o FILE]` and the
// REPL's /export [FILE]. The page itself is built by session/export.

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/session/export"
)

// exportCommand runs --export: the session named by a path, an id or an
// id prefix is written to -o FILE ("-" for stdout), by default to
// lunar-session-<session file name>.html in the working folder; the path
// written is printed on stdout.
func (a *app) exportCommand() int {
	path, err := a.findSession(a.opts.Export)
	if err != nil {
		return a.fail(fmt.Errorf("--export: %w", err))
	}
	s, err := session.Load(path)
	if err != nil {
		return a.fail(fmt.Errorf("--export: %w", err))
	}
	if a.opts.Output == "-" {
		if err := export.HTML(a.stdout, s, a.exportOptions()); err != nil {
			return a.fail(err)
		}
		return exitOK
	}
	out, err := a.exportSession(s, a.opts.Output)
	if err != nil {
		return a.fail(err)
	}
	fmt.Fprintln(a.stdout, out)
	return exitOK
}

// exportSession writes s as HTML to out (a file, or a folder to put the
// default name in; "" for the default name in the working folder) and
// returns the path written.
func (a *app) exportSession(s *session.Session, out string) (string, error) {
	if out == "" {
		out = filepath.Join(a.cwd, export.DefaultFileName(s))
	} else if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		out = filepath.Join(out, export.DefaultFileName(s))
	}
	if err := export.WriteFile(out, s, a.exportOptions()); err != nil {
		return "", err
	}
	return out, nil
}

// exportOptions renders custom messages with the hooks' renderers when
// hooks are loaded (in the REPL; --export runs without them).
func (a *app) exportOptions() export.Options {
	opts := export.Options{Generator: "lunar " + version}
	if a.hooks != nil {
		opts.RenderCustom = func(m *session.Message) (string, bool) { return a.hooks.Render(m, true) }
	}
	return opts
}
