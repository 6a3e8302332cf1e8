package lua

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/agent"
)

// loadOrderSources are hooks whose load has order-dependent effects:
// duplicate commands and tools (the first keeps the name, later ones warn
// naming it), prints, a syntax error, a runtime error and a transform each
// hook appends its number to.
func loadOrderSources(n int) []Source {
	var srcs []Source
	for i := range n {
		name := fmt.Sprintf("%02d-hook.lua", i)
		code := fmt.Sprintf(`print("loading %[1]d")
lunar.command("dup", { handler = function() end })
lunar.command("own%[1]d", { handler = function() end })
lunar.tool({ name = "t%[2]d", description = "d", parameters = { type = "object", properties = { s = { type = "string" } } },
  execute = function() return "x" end })
lunar.on("chat.system.transform", function(ev) return { system_prompt = ev.system_prompt .. " %[1]d" } end)
`, i, i%3)
		switch i {
		case 7:
			code = "lunar.on(\"context\", function() end\n" // syntax error
		case 11:
			code = `lunar.command("gone", { handler = function() end }); error("boom at load")`
		}
		srcs = append(srcs, Source{Name: name, Origin: OriginGlobal, Code: []byte(code)})
	}
	return srcs
}

// TestLoadPreparedAsSequentially checks that loading hooks prepared
// first (in the background) gives what loading one hook after another
// gives: the same reports and log lines in the same order, the same
// registrations, handlers in file order.
func TestLoadPreparedAsSequentially(t *testing.T) {
	srcs := loadOrderSources(40)
	type outcome struct {
		lines  []string
		report []HookReport
		prompt string
		cmds   []string
	}
	load := func(mode string) outcome {
		var mu sync.Mutex
		var o outcome
		add := func(s string) { mu.Lock(); o.lines = append(o.lines, s); mu.Unlock() }
		opts := Options{Report: add, Log: func(hook, level, msg string) { add(hook + " " + level + " " + msg) }}
		var r *Runtime
		switch mode {
		case "load":
			r = Load(srcs, opts)
		case "prepared": // in the background, then loaded
			r = Prepare(srcs).Load(opts)
		default:
			r = newRuntime(opts)
			for _, src := range srcs {
				r.loadHook(src)
			}
			r.rebuild()
		}
		defer r.Close()
		o.report = r.Report()
		for i := range o.report {
			o.report[i].LoadTime = 0
		}
		o.prompt = r.SystemPrompt(context.Background(), "base")
		for _, c := range r.Commands() {
			o.cmds = append(o.cmds, c.Name)
		}
		return o
	}
	want := load("sequential")
	require.NotEmpty(t, want.lines)
	assert.Contains(t, strings.Join(want.lines, "\n"), "07-hook.lua:1: syntax error", "the syntax error is reported")
	assert.Contains(t, strings.Join(want.lines, "\n"), "boom at load")
	for i := range 6 {
		got := load([]string{"load", "prepared"}[i%2])
		assert.Equal(t, want.lines, got.lines)
		assert.Equal(t, want.report, got.report)
		assert.Equal(t, want.prompt, got.prompt)
		assert.Equal(t, want.cmds, got.cmds)
	}
	assert.True(t, strings.HasPrefix(want.prompt, "base 0 1 2 3 4 5 6 8 9 10 12 13"), want.prompt)
}

// TestPreparedNotLoadedIsClosed: hooks prepared and never loaded (lunar
// failed to set up) have their states released.
func TestPreparedNotLoadedIsClosed(t *testing.T) {
	p := Prepare(loadOrderSources(3))
	p.Close()
	for _, h := range p.hooks {
		assert.Nil(t, h.L)
	}
	p.Close() // twice is harmless
}

// TestCompiledChunksKeepNoCompilerBuffers: a loaded hook's functions hold
// their code, not the compiler's 1,024-entry buffers, and errors still
// name their lines.
func TestCompiledChunksKeepNoCompilerBuffers(t *testing.T) {
	var reports []string
	r := Load([]Source{{Name: "t.lua", Code: []byte("local n = 0\nlunar.on(\"turn.start\", function()\n  n = n + 1\n  error(\"boom \" .. n)\nend)\n")}},
		Options{Report: func(m string) { reports = append(reports, m) }})
	defer r.Close()
	require.Len(t, r.hooks, 1)
	var walk func(p *glua.FunctionProto)
	n := 0
	walk = func(p *glua.FunctionProto) {
		n++
		assert.Less(t, cap(p.Code), 64)
		assert.Less(t, cap(p.DbgSourcePositions), 64)
		assert.Len(t, p.DbgSourcePositions, len(p.Code))
		for _, f := range p.FunctionPrototypes {
			walk(f)
		}
	}
	walk(r.listeners(evTurnStart)[0].fn.Proto) // nested in the main chunk
	assert.Equal(t, 1, n)
	r.Notify(context.Background(), agent.Event{Type: agent.EventTurnStart})
	assert.Equal(t, []string{"hook t.lua: turn.start: t.lua:4: boom 1"}, reports)
}
