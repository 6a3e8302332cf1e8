package agent

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateGolden = flag.Bool("update", false, "rewrite golden files in testdata/")

var (
	promptNow   = time.Date(2026, 3, 15, 23, 40, 0, 0, time.UTC)
	promptTools = []*Tool{
		{Name: "read", Description: "Read the contents of a file. Supports text files and images."},
		{Name: "bash", Description: "Execute a bash command in the current working directory. Returns stdout and stderr."},
		{Name: "edit", Description: "Edit a file by replacing exact text.\nMore detail."},
		{Name: "write", Description: "Write content to a file"},
	}
)

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGolden {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -run %s -update to create it", t.Name())
	assert.Equal(t, string(want), got)
}

func TestSystemPromptBase(t *testing.T) {
	got := SystemPrompt(SystemPromptOptions{Cwd: "/home/u/project", Tools: promptTools, Now: promptNow})
	golden(t, "sysprompt_base.golden", got)
}

func TestSystemPromptToolDependentGuidelines(t *testing.T) {
	tests := []struct {
		name     string
		tools    []*Tool
		want     []string
		wantNone []string
	}{
		{"read only", promptTools[:1],
			[]string{"- read: Read the contents of a file.\n", "- Be concise in your responses."},
			[]string{"- bash", "Use edit", "Use write", "Use bash"}},
		{"bash only", promptTools[1:2],
			[]string{"- bash: Execute a bash command in the current working directory.\n", "Use bash for file operations"},
			[]string{"Read a file before editing it", "Use edit"}},
		{"no tools", nil,
			[]string{"Available tools:\n(none: answer from the conversation alone)\n"},
			[]string{"Use bash", "Use edit"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SystemPrompt(SystemPromptOptions{Cwd: "/p", Tools: tc.tools, Now: promptNow})
			for _, w := range tc.want {
				assert.Contains(t, got, w)
			}
			for _, w := range tc.wantNone {
				assert.NotContains(t, got, w)
			}
		})
	}
}

func TestSystemPromptCustomAndAppend(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prompt.md"), []byte("You are a pirate.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "extra.md"), []byte("Always answer in French.\n\n"), 0o644))

	tests := []struct {
		name           string
		custom, append string
		want           string
	}{
		{"custom text", "Be terse.", "", "Be terse.\n\nCurrent date: 2026-03-15\nCurrent working directory: " + dir},
		{"custom file relative to cwd", "prompt.md", "", "You are a pirate.\n\nCurrent date: 2026-03-15\nCurrent working directory: " + dir},
		{"custom absolute file", filepath.Join(dir, "prompt.md"), "", "You are a pirate.\n\nCurrent date: 2026-03-15\nCurrent working directory: " + dir},
		{"custom and append file", "Be terse.", "extra.md",
			"Be terse.\n\nAlways answer in French.\n\nCurrent date: 2026-03-15\nCurrent working directory: " + dir},
		{"missing file is text", "missing.md", "", "missing.md\n\nCurrent date: 2026-03-15\nCurrent working directory: " + dir},
		{"a directory is text", ".", "", ".\n\nCurrent date: 2026-03-15\nCurrent working directory: " + dir},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SystemPrompt(SystemPromptOptions{Cwd: dir, Custom: tc.custom, Append: tc.append, Tools: promptTools, Now: promptNow})
			assert.Equal(t, tc.want, got)
		})
	}

	t.Run("append to base", func(t *testing.T) {
		got := SystemPrompt(SystemPromptOptions{Cwd: dir, Append: "Use tabs.", Tools: promptTools, Now: promptNow})
		assert.True(t, strings.HasPrefix(got, "You are an expert coding assistant"))
		assert.Contains(t, got, "- Show file paths clearly when working with files.\n\nUse tabs.\n\nCurrent date: 2026-03-15\n")
	})
}

func TestSystemPromptContextFiles(t *testing.T) {
	root := t.TempDir()
	global := filepath.Join(root, "config", "lunar")
	project := filepath.Join(root, "work", "project")
	cwd := filepath.Join(project, "pkg", "sub")
	require.NoError(t, os.MkdirAll(global, 0o755))
	require.NoError(t, os.MkdirAll(cwd, 0o755))
	write := func(path, content string) {
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	write(filepath.Join(global, "AGENTS.md"), "Global rule.\n")
	write(filepath.Join(root, "work", "CLAUDE.md"), "Work rule.\n")
	write(filepath.Join(project, "AGENTS.md"), "Project rule.\n")
	write(filepath.Join(project, "CLAUDE.md"), "Ignored: AGENTS.md wins.\n")
	write(filepath.Join(cwd, "AGENTS.md"), "Sub rule.")

	got := SystemPrompt(SystemPromptOptions{Cwd: cwd, Custom: "Base.", GlobalDir: global, ContextFiles: true, Now: promptNow})
	want := "Base.\n\n# Project context\n\nProject-specific instructions and guidelines:\n" +
		"\n## " + filepath.Join(global, "AGENTS.md") + "\n\nGlobal rule.\n" +
		"\n## " + filepath.Join(root, "work", "CLAUDE.md") + "\n\nWork rule.\n" +
		"\n## " + filepath.Join(project, "AGENTS.md") + "\n\nProject rule.\n" +
		"\n## " + filepath.Join(cwd, "AGENTS.md") + "\n\nSub rule.\n" +
		"\nCurrent date: 2026-03-15\nCurrent working directory: " + cwd
	assert.Equal(t, want, got)

	t.Run("disabled", func(t *testing.T) {
		got := SystemPrompt(SystemPromptOptions{Cwd: cwd, Custom: "Base.", GlobalDir: global, Now: promptNow})
		assert.NotContains(t, got, "Project context")
	})
	t.Run("no global dir", func(t *testing.T) {
		got := SystemPrompt(SystemPromptOptions{Cwd: cwd, Custom: "Base.", ContextFiles: true, Now: promptNow})
		assert.NotContains(t, got, "Global rule.")
		assert.Contains(t, got, "Sub rule.")
	})
}

func TestSystemPromptDefaultsToNow(t *testing.T) {
	got := SystemPrompt(SystemPromptOptions{Cwd: "/p", Custom: "x"})
	assert.Contains(t, got, "Current date: "+time.Now().Format("2006-01-02"))
}

// The builder reads the context files once and gives SystemPrompt's text
// for each tool set; a new tool set rebuilds the prompt, the same one
// reuses it.
func TestSystemPromptBuilder(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("first rules\n"), 0o644))
	opts := SystemPromptOptions{Cwd: dir, Now: promptNow, ContextFiles: true}
	build := SystemPromptBuilder(opts)
	all := build(promptTools)
	opts.Tools = promptTools
	assert.Equal(t, SystemPrompt(opts), all)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("second rules\n"), 0o644))
	readOnly := build(promptTools[:1])
	assert.Contains(t, readOnly, "first rules", "context files are read once")
	assert.NotContains(t, readOnly, "- bash: ")
	assert.Contains(t, readOnly, "- read: ")
	assert.Equal(t, all, build(promptTools))

	renamed := *promptTools[0]
	renamed.Description = "Read a file, differently. More text."
	assert.Contains(t, build([]*Tool{&renamed}), "- read: Read a file, differently.\n")

	custom := SystemPromptBuilder(SystemPromptOptions{Cwd: dir, Now: promptNow, Custom: "be brief"})
	assert.Equal(t, custom(promptTools), custom(nil), "a custom prompt does not list the tools")
}
