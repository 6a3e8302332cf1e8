package stdlib

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseShell(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	ok := []struct {
		name, src string
		want      [][]string
	}{
		{"words", "git status -s", [][]string{{"git", "status", "-s"}}},
		{"lists and pipes", "cd sub && go test ./... 2>&1 | tail -5; ls &", [][]string{{"cd", "sub"}, {"go", "test", "./..."}, {"tail", "-5"}, {"ls"}}},
		{"quotes removed", `echo 'a b' "c\"d\x" e\ f $'g' ""`, [][]string{{"echo", "a b", `c"d\x`, "e f", "g", ""}}},
		{"comments", "ls # rm -rf /\nls a#b", [][]string{{"ls"}, {"ls", "a#b"}}},
		{"subshells, blocks, if, while", "(ls) && { pwd; }; if true; then echo y; else echo n; fi; while false; do :; done",
			[][]string{{"ls"}, {"pwd"}, {"true"}, {"echo", "y"}, {"echo", "n"}, {"false"}, {":"}}},
		{"negation and time", "! time -p ls", [][]string{{"ls"}}},
		{"tilde", "ls ~ ~/x '~'", [][]string{{"ls", "/home/u", "/home/u/x", "~"}}},
		{"harmless redirections", "go test >/dev/null 2>&1 <in.txt 3>&- 2>&1- &>/dev/null <<<word", [][]string{{"go", "test"}}},
		{"assignments", "A=1 B+=x go test", nil},
		{"a lone $ and braces", "echo a$ {} x{y} [ -f x", [][]string{{"echo", "a$", "{}", "x{y}", "[", "-f", "x"}}},
		{"escaped newline", "echo a\\\nb", [][]string{{"echo", "ab"}}},
	}
	for _, tt := range ok {
		t.Run(tt.name, func(t *testing.T) {
			cmds, err := ParseShell(tt.src)
			require.NoError(t, err)
			var got [][]string
			for _, c := range cmds {
				got = append(got, c.Words)
			}
			if tt.want != nil {
				assert.Equal(t, tt.want, got)
			}
		})
	}
	cmds, err := ParseShell("A=1 B+=x go test")
	require.NoError(t, err)
	assert.Equal(t, []ShellCommand{{Words: []string{"go", "test"}, Assigns: []string{"A=1", "B+=x"}}}, cmds)

	refused := []struct{ src, reason string }{
		{"echo hi\r# ; touch pwned", "carriage return"},
		{"echo #x\\\nrm -rf y", "comment ending in a backslash"},
		{"echo $'\\'' ; touch pwned", "$'…' with escapes"},
		{"echo ${x@P}", "parameter expansion"},
		{"echo $HOME", "parameter expansion"},
		{"echo $((1+2))", "arithmetic expansion"},
		{"echo $(id)", "command substitution"},
		{"echo `id`", "command substitution"},
		{"cat <(id)", "process substitution"},
		{"echo >&1file", "writes to a file"},
		{"echo > out", "writes to a file"},
		{"echo >> out", "writes to a file"},
		{"cat <> f", "writes to a file"},
		{"cat </dev/tcp/h/80", "network"},
		{"cat <<EOF\nx\nEOF", "here-document"},
		{"f() { id; }; f", "function"},
		{"for a in b; do id; done", "for or select"},
		{"case x in x) id;; esac", "case"},
		{"[[ -v x ]]", "[[ ]]"},
		{"(( x ))", "arithmetic"},
		{"export A=1", "export"},
		{"let x=1", "let"},
		{"coproc id", "coproc"},
		{"ls *.go", "glob"},
		{"ls a?", "glob"},
		{"ls [ab]", "glob"},
		{"echo -ex{ec,}", "brace expansion"},
		{"echo {1..3}", "brace expansion"},
		{"ls ~root", "tilde"},
		{"a=b:~/x ls", "tilde"},
		{"echo x=~/y", "tilde"},
		{"a[1]=x ls", "array"},
		{"echo $\"x\"", "translated"},
		{"echo '", "syntax"},
		{"! ! ls", "syntax"},
		{"echo a\x00b", "NUL"},
		{"echo \xff", "UTF-8"},
		{strings.Repeat("x", MaxShellCommand+1), "longer than"},
	}
	for _, tt := range refused {
		t.Run(tt.src, func(t *testing.T) {
			cmds, err := ParseShell(tt.src)
			require.Error(t, err, "%q", cmds)
			assert.Contains(t, err.Error(), tt.reason)
		})
	}
}

func TestScanShell(t *testing.T) {
	words := func(src string) []string {
		cmds, _ := ScanShell(src)
		var out []string
		for _, c := range cmds {
			out = append(out, strings.Join(c.Words, " "))
		}
		return out
	}
	assert.Contains(t, words(`echo "$(rm -rf /)"`), "rm -rf /")
	assert.Contains(t, words(`sh -c 'rm -rf /'`), "rm -rf /")
	assert.Contains(t, words("sh <<EOF\nrm -rf x\nEOF"), "rm -rf x")
	assert.Contains(t, words("f() { rm -rf x; }"), "rm -rf x")
	assert.Contains(t, words("echo hi\r# ; rm -rf x"), "rm -rf x")
	assert.Contains(t, words("echo #x\\\nrm -rf x"), "rm -rf x", "a comment ends at the newline")
	assert.Contains(t, words("ls )( ; rm -rf x"), "rm -rf x", "a syntax error falls back to the text")
	assert.Contains(t, words("echo $x; rm -rf ${HOME}"), "rm -rf ${HOME}", "non-literal words as written")
	_, err := ScanShell(strings.Repeat("! ", 20000))
	assert.Error(t, err)
}

// Pathological input stays linear: a cap on length, no blow-up within it.
func TestShellLarge(t *testing.T) {
	for _, src := range []string{strings.Repeat("! ", 20000) + "ls", strings.Repeat("(", 30000), strings.Repeat("$(", 30000), strings.Repeat("a; ", 20000), strings.Repeat("'a b' ", 10000)} {
		_, _ = ParseShell(src)
		_, _ = ScanShell(src)
	}
}
