package stdlib_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRE(t *testing.T) {
	L := limitedState(t, context.Background(), 1<<30)
	for _, c := range []struct{ code, want string }{
		// match: groups, or the whole match; nil
		{`return re.match("key = value", [[^(\w+)\s*=\s*(\w+)$]])`, "key|value"},
		{`return re.match("abc123", [[\d+]])`, "123"},
		{`return re.match("abc", [[\d+]])`, "nil"},
		{`return re.match("ab", "(a)(x)?(b)")`, "a|nil|b"},
		{`return re.match("xab", "^a", 2)`, "a"},
		{`return re.match("abab", "ab", -2)`, "ab"},
		{`return re.match("ab", "a", 9)`, "nil"},
		// find: 1-based inclusive positions, then groups
		{`return re.find("hello world", "o w")`, "5|7"},
		{`return re.find("hello world", "(o) (w)")`, "5|7|o|w"},
		{`return re.find("hello world", "o", 6)`, "8|8"},
		{`return re.find("abc", "")`, "1|0"},
		{`return re.find("abc", "rm -rf|sudo")`, "nil"},
		{`return re.find("cd /; sudo rm -rf /", [[\brm\s+(-rf?|--recursive)]])`, "12|17|-rf"},
		// exec and find_all: match tables with named groups
		{`local m = re.exec("v1.22.3", [[(?P<major>\d+)\.(?P<minor>\d+)(x)?]]) return m.match, m.start, m.stop, m.major, m.minor, m[1], m[2], m[3]`, "1.22|2|5|1|22|1|22|false"},
		{`return re.exec("abc", "x")`, "nil"},
		{`local t = {} for _, m in ipairs(re.find_all("a1 b22 c333", [[(?P<l>[a-z])(\d+)]])) do t[#t+1] = m.l .. "=" .. m[2] .. "@" .. m.start end return table.concat(t, " ")`, "a=1@1 b=22@4 c=333@8"},
		{`return #re.find_all("aaaa", "a", 2)`, "2"},
		// gmatch
		{`local t = {} for k, v in re.gmatch("a=1, b=2", [[(\w+)=(\w+)]]) do t[#t+1] = k .. v end return table.concat(t, ";")`, "a1;b2"},
		{`local t = {} for w in re.gmatch("one two  three", [[\S+]]) do t[#t+1] = w end return table.concat(t, ",")`, "one,two,three"},
		// gsub: string ($1, ${name}, $$), table, function, n
		{`return re.gsub("hello world", "(o)", "[$1$1]")`, "hell[oo] w[oo]rld|2"},
		{`return re.gsub("John Smith", [[(?P<first>\w+) (?P<last>\w+)]], "${last}, ${first} $$5")`, "Smith, John $5|1"},
		{`return re.gsub("$name is $age", [[\$(\w+)]], {name = "Ann", age = 7})`, "Ann is 7|2"},
		{`return re.gsub("$name is $x", [[\$(\w+)]], {name = "Ann"})`, "Ann is $x|2"},
		{`return re.gsub("a b c", [[\w]], function(c) if c == "b" then return nil end return c:upper() end)`, "A b C|3"},
		{`return re.gsub("a b c", [[\w]], "x", 2)`, "x x c|2"},
		{`return re.gsub("abc", "x", "y")`, "abc|0"},
		{`return re.gsub("abc", "", "-")`, "-a-b-c-|4"},
		// split, as Go's regexp.Split
		{`return table.concat(re.split("a, b,c", [[,\s*]]), "|")`, "a|b|c"},
		{`return table.concat(re.split("a,b,", ","), "|")`, "a|b|"},
		{`return table.concat(re.split("a,b,c", ",", 2), "|")`, "a|b,c"},
		{`return table.concat(re.split("abc", ""), "|")`, "a|b|c"},
		{`return #re.split("", ",")`, "1"},
		// escape
		{`return re.escape("1+1=2?")`, `1\+1=2\?`},
		{`return re.find("a 1+1=2? b", re.escape("1+1=2?"))`, "3|8"},
	} {
		assert.Equal(t, c.want, runIn(L, `local re = require("re") `+c.code), c.code)
	}
}

func TestREErrors(t *testing.T) {
	L := limitedState(t, context.Background(), 1<<30)
	for code, want := range map[string]string{
		`return re.find("x", "(a")`:                          "bad argument #2 to find (error parsing regexp: missing closing ): `(a`)",
		`return re.gsub("x", "a{1001}", "")`:                 "bad argument #2 to gsub (error parsing regexp: invalid repeat count: `{1001}`)",
		`return re.gsub("a", "a", function() return {} end)`: "invalid replacement value (a table)",
		`return re.gsub("a", "a", true)`:                     "bad argument #3 to gsub",
	} {
		got := runIn(L, `local re = require("re") `+code)
		assert.Contains(t, got, want, code)
	}
}

// TestREObeysTheCallLimits: a match count the memory cap cannot hold is
// refused before it is gathered, and a stopped call ends the walk.
func TestREObeysTheCallLimits(t *testing.T) {
	L := limitedState(t, context.Background(), 8<<20)
	got := runIn(L, `local re = require("re") local s = ("a"):rep(2^20) return re.gsub(s, "", "-")`)
	assert.Contains(t, got, "memory limit exceeded: re.gsub: more than")

	ctx, cancel := context.WithCancel(context.Background())
	L = limitedState(t, ctx, 1<<30)
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	got = runIn(L, `local re = require("re") local s = ("ab"):rep(2^16) while true do s = re.gsub(s, "a", "a") end`)
	assert.Contains(t, got, "context canceled")
	assert.Less(t, time.Since(start), 10*time.Second)
}
