package stdlib_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/stdlib"
)

// limitedState is a state with lunar's bounded library functions, running
// under ctx with a memory cap of maxBytes.
func limitedState(t *testing.T, ctx context.Context, maxBytes int64) *glua.LState {
	t.Helper()
	L := glua.NewState()
	t.Cleanup(L.Close)
	stdlib.LimitLibs(L)
	stdlib.Preload(L, stdlib.Modules(&stdlib.Env{Cwd: t.TempDir()}))
	L.SetContext(stdlib.WithLimits(ctx, &stdlib.Limits{MaxBytes: maxBytes}))
	return L
}

// backtrack is a pattern search that takes gopher-lua's matcher minutes.
const backtrack = `local s = ("a"):rep(60) local p = ("a*"):rep(6) .. "b"`

func TestLongRunningFunctionsStopWhenTheCallIsStopped(t *testing.T) {
	tests := []struct{ name, code string }{
		{"string.find", backtrack + ` return s:find(p)`},
		{"string.match", backtrack + ` return s:match(p)`},
		{"string.gmatch", backtrack + ` for m in s:gmatch(p) do end`},
		{"string.gsub", backtrack + ` return s:gsub(p, "x")`},
		{"string.gsub building", `local s = ("ab"):rep(2^20) while true do s = s:gsub("a", "aa") end`},
		{"%b scanning", `local s = ("("):rep(2^16) return s:gsub("%b()", "")`},
		{"table.sort", `local t = {} for i = 1, 2^20 do t[i] = (i * 7919) % 1000003 end while true do table.sort(t) end`},
		{"table.concat", `local t = {} for i = 1, 2^16 do t[i] = ("x"):rep(1024) end while true do table.concat(t) end`},
		{"string.rep", `while true do local s = ("x"):rep(2^26) end`},
		{"string.upper", `local s = ("é"):rep(2^22) while true do s:upper() end`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			L := limitedState(t, ctx, 1<<30)
			stop := time.AfterFunc(300*time.Millisecond, cancel)
			defer stop.Stop()
			start := time.Now()
			err := L.DoString(tt.code)
			took := time.Since(start)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "context canceled")
			t.Logf("stopped %v after the cancellation", took-300*time.Millisecond)
			// The target is 100 ms; the margin absorbs a loaded machine.
			assert.Less(t, took, 300*time.Millisecond+time.Second)
		})
	}
}

func TestSizeProducingFunctionsRespectTheCap(t *testing.T) {
	tests := []struct{ name, code, want string }{
		{"string.rep", `return ("x"):rep(2^40)`, "memory limit exceeded: string.rep would take 1 TiB (the cap is 8 MiB)"},
		{"string.rep overflow", `return ("xy"):rep(2^62)`, "memory limit exceeded: string.rep would take more than 8 EiB"},
		{"table.concat", `local t = {} for i = 1, 16 do t[i] = ("x"):rep(2^20) end return table.concat(t, ",")`,
			"memory limit exceeded: table.concat would take 16.0 MiB (the cap is 8 MiB)"},
		{"string.format", `return string.format(("%999999d"):rep(20), 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20)`,
			"memory limit exceeded: string.format would take"},
		{"string.gsub", `local s = ("x"):rep(2^20) return s:gsub("x", "xxxxxxxxxxxxxxxx")`, "memory limit exceeded: string.gsub reached"},
		{"loadstring", `return assert(loadstring(("x = 1\n"):rep(2^16)))`, "chunk too large: 384 KiB (load compiles at most 256 KiB)"},
		{"load reader", `local n = 0 return assert(load(function() n = n + 1 if n < 100 then return ("x = 1\n"):rep(1000) end end))`,
			"chunk too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			L := limitedState(t, t.Context(), 8<<20)
			err := L.DoString(tt.code)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestSameResultsAsGopherLua runs each snippet in a plain gopher-lua state
// and in one with lunar's functions: the results must be equal.
func TestSameResultsAsGopherLua(t *testing.T) {
	snippets := []string{
		`return ("hello world"):find("o w")`,
		`return ("hello world"):find("o", 6)`,
		`return ("hello world"):find("l+")`,
		`return ("hello world"):find("(h)(e)(l+)")`,
		`return ("hello world"):find("()ll()")`,
		`return ("a.b"):find(".", 1, true)`,
		`return ("abc"):find("b", -1)`,
		`return ("abc"):find("")`,
		`return ("abc"):find("^b")`,
		`return ("abc"):find("c$")`,
		`return ("key = value"):match("^(%w+)%s*=%s*(%w+)$")`,
		`return ("f(a(b)c)d"):match("%b()")`,
		`return ("hello"):match(".-(l+)(.*)", 2)`,
		`return ("hello"):match("()", 3)`,
		`local t = {} for k, v in ("a=1, b=2, c=3"):gmatch("(%w+)=(%w+)") do t[#t+1] = k .. v end return table.concat(t, ";")`,
		`local t = {} for w in ("one two  three"):gmatch("%a+") do t[#t+1] = w end return table.concat(t, ",")`,
		`local t = {} for w in ("abc"):gmatch("") do t[#t+1] = "[" .. w .. "]" end return table.concat(t)`,
		`local t = {} for a, b in ("abcd"):gmatch("()(.)") do t[#t+1] = a .. b end return table.concat(t)`,
		`return ("hello world"):gsub("o", "0")`,
		`return ("hello world"):gsub("(o)", "[%1%1]", 1)`,
		`return ("hello world"):gsub("%w+", "<%0>")`,
		`return ("abc"):gsub("", "-")`,
		`return ("abc"):gsub("%w", "%%")`,
		`return ("abc"):gsub("%w", "%x")`,
		`return ("abc"):gsub("b", "%")`,
		`return ("$name is $age"):gsub("%$(%w+)", {name = "Ann", age = 7})`,
		`return ("$name is $x"):gsub("%$(%w+)", {name = "Ann"})`,
		`return ("a b c"):gsub("%w", function(c) return c:upper() .. "!" end)`,
		`return ("a b c"):gsub("(%w)", function(c) if c == "b" then return false end return 1 end)`,
		`return ("abc"):gsub("()", function(p) return p end)`,
		`return ("abc"):gsub("x", "y")`,
		`return string.gsub(123, "2", "x")`,
		`return ("%d and %s"):format(42, "x")`,
		`return string.format("%5.2f|%-5d|%05d|%x|%X|%o|%e|%g|%c|%q|%%|%s", 3.14159, 42, 7, 255, 255, 8, 12345.678, 0.0001, 65, "a\"b", 1.5)`,
		`return string.format("%d %d", 1)`,
		`return string.format("%s", 1, 2, 3)`,
		`return string.format("%10s|%-10s|%.2s", "ab", "cd", "efgh")`,
		`return string.format("100%")`,
		`return string.format("%5.1s", "xyz")`,
		`return ("x"):rep(5), ("ab"):rep(0), ("ab"):rep(-1), (""):rep(100)`,
		`return ("Hello É"):upper(), ("Hello É"):lower(), ("abc"):reverse(), (""):reverse()`,
		`return table.concat({1, 2, "x", 3.5}, ", ")`,
		`return table.concat({"a", "b", "c"}, "-", 2)`,
		`return table.concat({"a", "b", "c"}, "-", 2, 3)`,
		`return table.concat({"a", "b", "c"}, "-", 0)`,
		`return table.concat({"a", "b", "c"}, "-", 5)`,
		`return table.concat({"a", "b", "c"}, "-", 3, 1)`,
		`return table.concat({})`,
		`local t = {5, 2, 8, 1, 9, 3} table.sort(t) return table.concat(t, " ")`,
		`local t = {"pear", "apple", "fig"} table.sort(t) return table.concat(t, " ")`,
		`local t = {5, 2, 8, 1, 9, 3} table.sort(t, function(a, b) return a > b end) return table.concat(t, " ")`,
		`local t = {} for i = 1, 200 do t[i] = (i * 37) % 101 end table.sort(t) return table.concat(t, " ")`,
		`return assert(loadstring("return 1 + 1"))()`,
		`return loadstring("return +")`,
		`local parts = {"return ", "4", "2"} local i = 0 return assert(load(function() i = i + 1 return parts[i] end))()`,
	}
	for _, code := range snippets {
		want := runPlain(t, code)
		L := limitedState(t, t.Context(), 1<<30)
		got := runIn(L, code)
		assert.Equal(t, want, got, code)
	}
	errors := []string{
		`return ("abc"):find("%")`,
		`return ("abc"):find("[a")`,
		`return ("abc"):find("(a")`,
		`return ("abc"):gsub("(a)", "%2")`,
		`return table.concat({1, {}, 3})`,
		`local t = {1, "x", 2} table.sort(t)`,
	}
	for _, code := range errors {
		L := limitedState(t, t.Context(), 1<<30)
		assert.Equal(t, errorText(runPlain(t, code)), errorText(runIn(L, code)), code)
	}
}

// Where lunar differs from gopher-lua, on purpose: Lua's results.
func TestDifferencesFromGopherLua(t *testing.T) {
	L := limitedState(t, t.Context(), 1<<30)
	assert.Equal(t, "1|nil", runIn(L, `return select("#", ("abc"):match("x")), ("abc"):match("x")`), "no match is one nil")
	assert.Equal(t, "aaa|0", runIn(L, `return ("aaa"):gsub("a", "b", 0)`), "n = 0 replaces nothing")
	assert.Equal(t, "nil", runIn(L, `return ("abc"):find("b", 10, true)`), "gopher-lua panics")
	assert.Equal(t, "200000", runIn(L, `local t = {} for i = 1, 200000 do t[i] = "x" end return #table.concat(t)`),
		"gopher-lua overflows its stack past 128k elements")
	assert.Contains(t, runIn(L, `return ("aa"):find("(a)%1%2")`), "invalid capture index", "gopher-lua panics")
}

// runPlain runs code in a state with gopher-lua's own libraries.
func runPlain(t *testing.T, code string) string {
	t.Helper()
	L := glua.NewState()
	defer L.Close()
	return runIn(L, code)
}

// runIn runs code and renders its results (or error) as a string.
func runIn(L *glua.LState, code string) string {
	top := L.GetTop()
	if err := L.DoString(code); err != nil {
		return "error: " + err.Error()
	}
	var parts []string
	for i := top + 1; i <= L.GetTop(); i++ {
		parts = append(parts, fmt.Sprint(L.Get(i)))
	}
	L.SetTop(top)
	return strings.Join(parts, "|")
}

// errorText keeps an error's message without the Go stack gopher-lua
// appends.
func errorText(s string) string {
	s, _, _ = strings.Cut(s, "\nstack traceback")
	return s
}

// TestFrontierPatterns: %f is where lunar's string library departs from
// gopher-lua's, which reads it as a literal "f" (so these never matched);
// the answers are Lua 5.1's.
func TestFrontierPatterns(t *testing.T) {
	for code, want := range map[string]string{
		`return ("THE (quick) fox"):find("%f[%a]%a+")`:                                                          "1|3",
		`return ("cd /tmp; rm -rf /"):find("%f[%w]rm%s+%-rf")`:                                                  "10|15",
		`return ("farm -rf"):find("%f[%w]rm%s+%-rf")`:                                                           "nil",
		`return ("THE (quick) fox"):gsub("%f[%a]%a+", "W")`:                                                     "W (W) W|3",
		`local t = {} for w in ("one, two"):gmatch("%f[%w]%w+") do t[#t+1] = w end return table.concat(t, "+")`: "one+two",
		`return pcall(string.find, "x", "%f%w")`:                                                                "false|<string>:1: missing '[' after '%f' in pattern at 1",
	} {
		L := limitedState(t, t.Context(), 1<<30)
		assert.Equal(t, want, runIn(L, code), code)
	}
}
