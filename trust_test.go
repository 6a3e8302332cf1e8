package main

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/lua"
)

// A project hooks folder that cannot be hashed is never trusted, not even
// with --trust, and lunar still starts.
func TestProjectThatCannotBeHashedIsNotTrusted(t *testing.T) {
	cwd := t.TempDir()
	writeFile(t, filepath.Join(cwd, ".lunar", "hooks.d", "a.lua"), "-- hook")
	old := readHooks
	readHooks = func(string) (*lua.HookDir, error) { return nil, errors.New("too many files") }
	t.Cleanup(func() { readHooks = old })
	var stderr bytes.Buffer
	a := &app{opts: &options{Trust: true}, paths: paths{State: t.TempDir()}, cfg: &config{}, cwd: cwd, stderr: &stderr}
	require.NoError(t, a.trustProject(func(string, []string) bool { return true }))
	assert.False(t, a.projectTrusted)
	assert.Contains(t, stderr.String(), "cannot be checked (too many files): skipped")
}
