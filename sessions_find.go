package main

// Naming sessions from the command line and the REPL: short ids (the
// shortest unique prefix, as git abbreviates commits), and finding a
// session by path, id, name or words of its first message.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lunar-cli/lunar/session"
)

// minShortID is the shortest id shown: UUIDv7 ids start with the time in
// milliseconds, so sessions started more than a minute apart differ in
// their first eight characters.
const minShortID = 8

// shortIDs maps each id to its shortest prefix of at least minShortID
// characters that no other id shares (never ending in a dash).
func shortIDs(ids []string) map[string]string {
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		out[id] = shortID(id, ids)
	}
	return out
}

// paddedShortIDs are the sessions' short ids padded to one width, so
// that the columns after them align in a list.
func paddedShortIDs(infos []session.Info) map[string]string {
	short := shortIDs(sessionIDs(infos))
	width := 0
	for _, s := range short {
		width = max(width, len(s))
	}
	for id, s := range short {
		short[id] = fmt.Sprintf("%-*s", width, s)
	}
	return short
}

// shortID is id's entry of shortIDs(ids).
func shortID(id string, ids []string) string {
	n := min(minShortID, len(id))
	for _, other := range ids {
		if other == id {
			continue
		}
		common := 0
		for common < len(id) && common < len(other) && id[common] == other[common] {
			common++
		}
		n = max(n, min(common+1, len(id)))
	}
	if n < len(id) && id[n-1] == '-' {
		n++
	}
	return id[:n]
}

func sessionIDs(infos []session.Info) []string {
	ids := make([]string, len(infos))
	for i, in := range infos {
		ids[i] = in.ID
	}
	return ids
}

// shortSessionID abbreviates id among the sessions of this folder (their
// file names hold their ids: nothing is read). The banner shows it before
// the first prompt: one pass over the ids, not shortIDs' one per id.
func (a *app) shortSessionID(id string) string {
	ids := []string{id}
	entries, _ := os.ReadDir(a.sessionDir())
	for _, e := range entries {
		name := e.Name()
		if i := strings.LastIndexByte(name, '_'); i >= 0 && strings.HasSuffix(name, ".jsonl") {
			if other := strings.TrimSuffix(name[i+1:], ".jsonl"); other != id {
				ids = append(ids, other)
			}
		}
	}
	return shortID(id, ids)
}

// matchSessions finds the sessions query names, trying in turn: an id
// (its start, or four or more of its characters), a name (exactly, then
// containing every word of query), the first message (containing every
// word). The first way that finds any wins; case is ignored.
func matchSessions(infos []session.Info, query string) []session.Info {
	q := strings.TrimSpace(query)
	if q == "" {
		return nil
	}
	lq := strings.ToLower(q)
	words := strings.Fields(lq)
	hasWords := func(s string) bool {
		s = strings.ToLower(s)
		for _, w := range words {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	}
	tiers := []func(session.Info) bool{
		func(in session.Info) bool { return in.ID == q },
		func(in session.Info) bool {
			return strings.HasPrefix(in.ID, lq) || (len(lq) >= 4 && strings.Contains(in.ID, lq))
		},
		func(in session.Info) bool { return in.Name != "" && strings.EqualFold(in.Name, q) },
		func(in session.Info) bool { return in.Name != "" && hasWords(in.Name) },
		func(in session.Info) bool { return hasWords(in.FirstMessage) },
	}
	for _, match := range tiers {
		var out []session.Info
		for _, in := range infos {
			if match(in) {
				out = append(out, in)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// errAmbiguous lists the sessions a query matches.
func errAmbiguous(query string, matches []session.Info) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%q matches %d sessions; give more of one's id or name:", query, len(matches))
	short := paddedShortIDs(matches)
	for _, in := range matches {
		fmt.Fprintf(&b, "\n  %s", formatSessionInfo(in, short[in.ID]))
	}
	return errors.New(b.String())
}

// resolveSession finds the session file a --session, `lunar sessions
// show|rm` or --export argument names: a path, else a session of this
// folder (see matchSessions), else one of another folder.
func (a *app) resolveSession(query string) (string, error) {
	if strings.HasSuffix(query, ".jsonl") || strings.ContainsRune(query, filepath.Separator) || strings.ContainsRune(query, '/') {
		if _, err := os.Stat(query); err != nil {
			return "", fmt.Errorf("session %s: %w", query, err)
		}
		return query, nil
	}
	infos, err := a.listSessions(false)
	if err != nil {
		return "", err
	}
	if path, ok, err := pickSession(infos, query); ok || err != nil {
		return path, err
	}
	if a.opts.SessionDir == "" {
		// An id of another folder's session: only headers are read.
		path, err := session.Find(a.paths.Sessions(), a.cwd, query)
		if err == nil || !errors.Is(err, session.ErrNotFound) {
			return path, err
		}
		all, err := session.ListAll(a.paths.Sessions())
		if err != nil {
			return "", err
		}
		if path, ok, err := pickSession(all, query); ok || err != nil {
			return path, err
		}
	}
	return "", fmt.Errorf("no session matches %q (lunar sessions lists them; --all those of every folder)", query)
}

// sessionInfoOf describes one session file.
func sessionInfoOf(path string) (session.Info, error) {
	in, ok := session.Describe(path)
	if !ok {
		return session.Info{}, fmt.Errorf("%s is not a session file", path)
	}
	return in, nil
}

// pickSession is the one session of infos query matches (ok), an error
// when it matches several, or neither when it matches none.
func pickSession(infos []session.Info, query string) (path string, ok bool, err error) {
	switch m := matchSessions(infos, query); len(m) {
	case 0:
		return "", false, nil
	case 1:
		return m[0].Path, true, nil
	default:
		return "", false, errAmbiguous(query, m)
	}
}
