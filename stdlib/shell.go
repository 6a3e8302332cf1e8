package stdlib

// The shell module: bash command lines parsed with a real bash parser
// (mvdan.cc/sh/v3/syntax, the parser behind shfmt, in its bash variant)
// and reduced to the simple commands bash would run, each a list of the
// exact words its program receives. The permission policy judges bash
// commands with it; a hand-written splitter disagreed with bash on \r,
// $'…', ${x@P}, arithmetic and >&word, and each disagreement ran a command
// no rule covered.
//
// Parse is exact or refuses: whatever it cannot reduce to plain simple
// commands with literal words (an expansion, a glob, a redirection that
// writes, a function, a loop variable…) is an error naming the construct.
// Scan is the opposite trade, for deny rules: every command-like thing
// anywhere in the text, best effort, never an error it cannot get past.

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	glua "github.com/yuin/gopher-lua"
	"mvdan.cc/sh/v3/syntax"
)

// MaxShellCommand is the longest command the shell module parses (64 KiB):
// a command line is rarely over a few hundred bytes, and the cap bounds
// the parser's memory (its syntax tree is some 50 times the text).
const MaxShellCommand = 64 << 10

// maxShellNesting bounds how deep brackets may nest: the parser recurses
// per level and takes time quadratic in the depth (30,000 "(" take
// seconds). Real commands nest a handful deep.
const maxShellNesting = 100

// maxScanDepth bounds how deep ScanShell looks into quoted words and
// here-documents as shell text (sh -c '…' inside ssh host "…" is 2).
const maxScanDepth = 3

// maxScanParses bounds how many words and here-documents ScanShell parses
// again as shell (some 40 µs each); past it they are cut lexically.
const maxScanParses = 256

// ShellCommand is one simple command of a bash command line.
type ShellCommand struct {
	// Words are the program and its arguments, exactly as the program
	// receives them (quotes removed, ~ expanded).
	Words []string
	// Assigns are the NAME=value (or NAME+=value) assignments before the
	// program (a command of assignments alone has no words).
	Assigns []string
}

func shellModule() *Module {
	cmdType := "shell.Command[]?, string?"
	return &Module{
		Name: "shell",
		Doc: "Bash command lines, parsed with a real bash parser (mvdan.cc/sh, bash variant). " +
			"parse is exact or refuses: the commands it returns are exactly those bash would run; scan finds every command anywhere, best effort, for tripwires.",
		Funcs: []Func{
			{Name: "parse", Fn: shellParse, Returns: cmdType,
				Params: []Param{{Name: "command", Type: "string"}},
				Doc: "The simple commands bash would run for command (in order; every command that might run, whatever the branches do), each a list of the exact words its program receives, quotes removed and ~ expanded. " +
					"nil and the reason for anything that cannot be reduced to literal words: a syntax error; parameter, arithmetic, command or process substitution; globs and brace expansion; $'…' with escapes and $\"…\"; redirections other than reading a file, >/dev/null and fd duplication (2>&1); here-documents; functions, for/select/case loops, [[ ]], (( )), declare/export/local/let, coproc; a \\r, a NUL or invalid UTF-8 (the parser and bash read those differently); more than 64 KiB."},
			{Name: "scan", Fn: shellScan, Returns: cmdType,
				Params: []Param{{Name: "command", Type: "string"}},
				Doc: "Every simple command that appears anywhere in command, for deny rules: inside substitutions, functions, loops and here-documents, and inside quoted words and here-document bodies read again as shell (sh -c '…'); a word that is not literal is given as written. " +
					"On a syntax error, what parsed plus the text cut at operators, quotes and blanks, with the error as second value. nil and a message only over 64 KiB."},
		},
		Classes: []Class{{Name: "shell.Command", Doc: "One simple command: [1] is the program, [2]… its arguments.", Fields: []Field{
			{Name: "[integer]", Type: "string"},
			{Name: "assigns", Type: "string[]", Doc: "NAME=value assignments before the program (the command's environment); a command of assignments alone has no words"},
		}}},
	}
}

func shellParse(L *glua.LState) int {
	cmds, err := ParseShell(L.CheckString(1))
	return pushShell(L, cmds, err, false)
}

func shellScan(L *glua.LState) int {
	cmds, err := ScanShell(L.CheckString(1))
	return pushShell(L, cmds, err, true)
}

func pushShell(L *glua.LState, cmds []ShellCommand, err error, partial bool) int {
	if err != nil && (!partial || cmds == nil) {
		L.Push(glua.LNil)
		L.Push(glua.LString(err.Error()))
		return 2
	}
	out := L.CreateTable(len(cmds), 0)
	for _, c := range cmds {
		t := L.CreateTable(len(c.Words), 1)
		for _, w := range c.Words {
			t.Append(glua.LString(w))
		}
		as := L.CreateTable(len(c.Assigns), 0)
		for _, a := range c.Assigns {
			as.Append(glua.LString(a))
		}
		t.RawSetString("assigns", as)
		out.Append(t)
	}
	L.Push(out)
	if err != nil {
		L.Push(glua.LString(err.Error()))
		return 2
	}
	return 1
}

// shellParsers keeps parsers for reuse: making one is half the cost of
// parsing a short command. A tree does not share memory with its parser.
var shellParsers = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
}}

// commentContinuations returns the offsets of the backslashes that end a
// comment's line. The parser takes such a backslash and the newline for
// a line continuation, so the next line joins the command before the
// comment ("echo #x\<newline>rm y" is echo rm y); for bash a comment ends
// at the newline and rm runs.
func commentContinuations(f *syntax.File, src string) []int {
	var out []int
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.Comment); ok && c.Hash.IsValid() && !c.Hash.IsRecovered() {
			start := int(c.Hash.Offset())
			if start >= len(src) {
				return true
			}
			end := strings.IndexByte(src[start:], '\n')
			if end < 0 {
				return true
			}
			if end > 0 && src[start+end-1] == '\\' {
				out = append(out, start+end-1)
			}
		}
		return true
	})
	return out
}

// checkShellText refuses what the parser and bash read differently: the
// parser takes \r for a blank (bash: an ordinary character, so "a\r#;b"
// runs b) and skips NUL bytes; invalid UTF-8 becomes U+FFFD.
func checkShellText(src string) error {
	switch {
	case len(src) > MaxShellCommand:
		return fmt.Errorf("longer than %d bytes", MaxShellCommand)
	case strings.IndexByte(src, '\r') >= 0:
		return errors.New("a carriage return (\\r)")
	case strings.IndexByte(src, 0) >= 0:
		return errors.New("a NUL byte")
	case !utf8.ValidString(src):
		return errors.New("invalid UTF-8")
	case nesting(src) > maxShellNesting:
		return fmt.Errorf("brackets nested more than %d deep", maxShellNesting)
	}
	return nil
}

// nesting is how deep ( and { nest in src, quotes ignored: an upper bound
// of how deep the parser recurses.
func nesting(src string) int {
	depth, most := 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(', '{', '`':
			depth++
			most = max(most, depth)
		case ')', '}':
			depth = max(depth-1, 0)
		}
	}
	return most
}

// ParseShell returns the simple commands bash would run for src, or an
// error naming the first construct that cannot be reduced to them.
func ParseShell(src string) ([]ShellCommand, error) {
	if err := checkShellText(src); err != nil {
		return nil, err
	}
	p := shellParsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	shellParsers.Put(p)
	if err != nil {
		return nil, fmt.Errorf("syntax: %w", err)
	}
	if len(commentContinuations(f, src)) > 0 {
		return nil, errors.New("a comment ending in a backslash (bash and the parser read the next line differently)")
	}
	r := reducer{home: os.Getenv("HOME")}
	r.stmts(f.Stmts)
	if r.err != nil {
		return nil, r.err
	}
	return r.cmds, nil
}

// reducer walks a syntax tree into simple commands; err is the first
// construct it could not reduce.
type reducer struct {
	home string
	cmds []ShellCommand
	err  error
}

func (r *reducer) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func (r *reducer) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		if r.err != nil {
			return
		}
		r.stmt(s)
	}
}

func (r *reducer) stmt(s *syntax.Stmt) {
	if s.Coprocess || s.Disown {
		r.fail("coproc")
		return
	}
	for _, rd := range s.Redirs {
		r.redirect(rd)
	}
	switch c := s.Cmd.(type) {
	case nil: // redirections alone
	case *syntax.CallExpr:
		r.call(c)
	case *syntax.BinaryCmd:
		r.stmt(c.X)
		r.stmt(c.Y)
	case *syntax.Subshell:
		r.stmts(c.Stmts)
	case *syntax.Block:
		r.stmts(c.Stmts)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			r.stmts(c.Cond)
			r.stmts(c.Then)
		}
	case *syntax.WhileClause:
		r.stmts(c.Cond)
		r.stmts(c.Do)
	case *syntax.TimeClause:
		if c.Stmt != nil {
			r.stmt(c.Stmt)
		}
	case *syntax.ForClause:
		r.fail("a for or select loop (it assigns a variable)")
	case *syntax.CaseClause:
		r.fail("case")
	case *syntax.FuncDecl:
		r.fail("a function definition")
	case *syntax.ArithmCmd:
		r.fail("arithmetic (( ))")
	case *syntax.TestClause:
		r.fail("[[ ]] (it evaluates arithmetic)")
	case *syntax.DeclClause:
		r.fail("%s (it sets variables)", c.Variant.Value)
	case *syntax.LetClause:
		r.fail("let (arithmetic)")
	case *syntax.CoprocClause:
		r.fail("coproc")
	default:
		r.fail("%T", c)
	}
}

func (r *reducer) call(c *syntax.CallExpr) {
	var cmd ShellCommand
	for _, a := range c.Assigns {
		if a.Index != nil || a.Array != nil || a.Naked || a.Name == nil {
			r.fail("an array assignment")
			return
		}
		val := ""
		if a.Value != nil {
			v, ok := r.word(a.Value, true)
			if !ok {
				return
			}
			val = v
		}
		op := "="
		if a.Append {
			op = "+="
		}
		cmd.Assigns = append(cmd.Assigns, a.Name.Value+op+val)
	}
	for _, w := range c.Args {
		v, ok := r.word(w, false)
		if !ok {
			return
		}
		cmd.Words = append(cmd.Words, v)
	}
	r.cmds = append(r.cmds, cmd)
}

// harmlessTargets may be written to: nothing lands in a file.
var harmlessTargets = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true}

// redirect accepts reading a file, writing to /dev/null, duplicating or
// closing a descriptor and a here-string; anything else (a file written,
// a here-document, bash's /dev/tcp) is an error.
func (r *reducer) redirect(rd *syntax.Redirect) {
	if rd.N != nil && !allDigits(rd.N.Value) {
		r.fail("a redirection to a named descriptor {%s}", rd.N.Value)
		return
	}
	if rd.Hdoc != nil || rd.Op == syntax.Hdoc || rd.Op == syntax.DashHdoc {
		r.fail("a here-document")
		return
	}
	target, ok := r.word(rd.Word, false)
	if !ok {
		return
	}
	if strings.HasPrefix(target, "/dev/tcp/") || strings.HasPrefix(target, "/dev/udp/") {
		r.fail("a network redirection (%s)", target)
		return
	}
	switch rd.Op {
	case syntax.RdrIn, syntax.WordHdoc:
		return
	case syntax.DplIn, syntax.DplOut:
		// >&2, 2>&1, <&0, >&- and 2>&1- (move): descriptors; >&word with
		// any other word writes stdout and stderr to the file word.
		if t := strings.TrimSuffix(target, "-"); allDigits(t) || target == "-" {
			return
		}
	}
	if !harmlessTargets[target] {
		r.fail("a redirection that writes to a file (%s %s)", rd.Op, target)
	}
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// word returns the text bash makes of w, when that is w's literal text:
// quotes removed, a leading ~ or ~/ expanded. assign is true for the
// value of an assignment.
func (r *reducer) word(w *syntax.Word, assign bool) (string, bool) {
	var b strings.Builder
	var unq strings.Builder // the unquoted characters, for brace detection
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if i > 0 && strings.HasPrefix(v, "~") {
				r.fail("tilde expansion (%s)", v)
				return "", false
			}
			if i == 0 && strings.HasPrefix(v, "~") {
				rest, ok := r.tilde(v, len(w.Parts) == 1)
				if !ok {
					return "", false
				}
				v = rest
			}
			if !r.unquoted(v, &b, &unq, assign) {
				return "", false
			}
		case *syntax.SglQuoted:
			if p.Dollar && strings.ContainsRune(p.Value, '\\') {
				r.fail("$'…' with escapes")
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				r.fail("$\"…\" (translated)")
				return "", false
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					r.expansion(q)
					return "", false
				}
				b.WriteString(dblQuoteRemoval(lit.Value))
			}
		default:
			r.expansion(part)
			return "", false
		}
	}
	s, text := unq.String(), b.String()
	if strings.Contains(s, "{") && strings.Contains(s, "}") && (strings.Contains(s, ",") || strings.Contains(s, "..")) {
		r.fail("brace expansion (%s)", text)
		return "", false
	}
	if strings.Contains(s, "[") && strings.Contains(text, "]") {
		r.fail("a glob (%s)", text)
		return "", false
	}
	return text, true
}

// tilde expands a word's leading ~ as bash does, when it can tell what it
// gives: ~ and ~/… are $HOME; ~user, ~+, ~- and a ~ followed by quotes are
// refused.
func (r *reducer) tilde(v string, alone bool) (string, bool) {
	switch {
	case r.home == "":
	case v == "~" && alone:
		return r.home, true
	case strings.HasPrefix(v, "~/"):
		return r.home + v[1:], true
	}
	r.fail("tilde expansion (%s)", v)
	return "", false
}

// unquoted removes the backslashes of an unquoted literal into b and
// refuses what bash would expand: globs (* ? […]), extended tildes after
// = or : (bash expands those in assignments and in words that look like
// one).
func (r *reducer) unquoted(v string, b, unq *strings.Builder, assign bool) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 == len(v) {
			// Only at the end of the text (elsewhere it escapes what
			// follows): bash drops it, the parser keeps it.
			r.fail("a backslash at the end")
			return false
		}
		if c == '\\' {
			i++
			b.WriteByte(v[i])
			unq.WriteByte('_')
			continue
		}
		switch c {
		case '*', '?':
			r.fail("a glob (%s)", v)
			return false
		case '~':
			if i > 0 && (v[i-1] == '=' || v[i-1] == ':') || assign {
				r.fail("tilde expansion (%s)", v)
				return false
			}
		}
		b.WriteByte(c)
		unq.WriteByte(c)
	}
	return true
}

// dblQuoteRemoval removes the backslashes bash removes inside "…": before
// $ ` " \ and newline (the parser already joined escaped newlines).
func dblQuoteRemoval(v string) string {
	if strings.IndexByte(v, '\\') < 0 {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) && strings.IndexByte("$`\"\\\n", v[i+1]) >= 0 {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

func (r *reducer) expansion(p syntax.WordPart) {
	switch p := p.(type) {
	case *syntax.ParamExp:
		r.fail("parameter expansion ($%s)", paramName(p))
	case *syntax.CmdSubst:
		r.fail("command substitution")
	case *syntax.ArithmExp:
		r.fail("arithmetic expansion")
	case *syntax.ProcSubst:
		r.fail("process substitution")
	case *syntax.ExtGlob:
		r.fail("an extended glob")
	default:
		r.fail("%T", p)
	}
}

func paramName(p *syntax.ParamExp) string {
	if p.Param != nil {
		return p.Param.Value
	}
	return "…"
}

// ScanShell returns every simple command that appears anywhere in src,
// for deny rules: it over-approximates where ParseShell refuses. Words
// that are not literal are given as written. A quoted word or a
// here-document body that holds blanks or operators is read again as
// shell (up to maxScanDepth deep), so that sh -c 'rm -rf /' yields rm. On
// a syntax error it returns what parsed and the text cut at operators,
// quotes and blanks, with the error.
func ScanShell(src string) ([]ShellCommand, error) {
	if len(src) > MaxShellCommand {
		return nil, fmt.Errorf("longer than %d bytes", MaxShellCommand)
	}
	s := scanner{parser: syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.RecoverErrors(8), syntax.KeepComments(true))}
	err := s.text(src, 0)
	return s.cmds, err
}

type scanner struct {
	parser *syntax.Parser
	parses int
	cmds   []ShellCommand
}

// again reads text found inside a command as shell too.
func (s *scanner) again(text string, depth int) {
	if depth > maxScanDepth {
		return
	}
	if s.parses++; s.parses > maxScanParses {
		s.lexical(scanBlank.Replace(text))
		return
	}
	_ = s.text(text, depth)
}

// scanBlank replaces what the parser would take for a blank or skip and
// bash would not (\r, NUL): an ordinary character, as bash reads it.
var scanBlank = strings.NewReplacer("\r", "_", "\x00", "_")

func (s *scanner) text(src string, depth int) error {
	src = scanBlank.Replace(src)
	if n := nesting(src); n > maxShellNesting {
		s.lexical(src)
		return fmt.Errorf("brackets nested more than %d deep", maxShellNesting)
	}
	// (The parser can be used again while f is walked: each Parse
	// allocates a new tree.)
	f, err := s.parser.Parse(strings.NewReader(src), "")
	if f != nil {
		if at := commentContinuations(f, src); len(at) > 0 {
			// Read it as bash does: the backslash is part of the comment.
			b := []byte(src)
			for _, i := range at {
				b[i] = ' '
			}
			src = string(b)
			f, err = s.parser.Parse(strings.NewReader(src), "")
		}
	}
	if f != nil {
		s.walk(f, src, depth)
	}
	if err != nil {
		s.lexical(src)
		return fmt.Errorf("syntax: %w", err)
	}
	return nil
}

// source is the text of node n in src ("" when the parser recovered from
// an error there and has no position).
func source(src string, n syntax.Node) string {
	a, b := n.Pos(), n.End()
	if !a.IsValid() || !b.IsValid() || a.IsRecovered() || b.IsRecovered() {
		return ""
	}
	i, j := int(a.Offset()), int(b.Offset())
	if i < 0 || j > len(src) || i > j {
		return ""
	}
	return src[i:j]
}

func (s *scanner) walk(f *syntax.File, src string, depth int) {
	r := reducer{home: os.Getenv("HOME")}
	word := func(w *syntax.Word) string {
		r.err = nil
		if v, ok := r.word(w, false); ok {
			if strings.ContainsAny(v, " \t\n;&|()<>`$") {
				s.again(v, depth+1) // sh -c '…', ssh host "…"
			}
			return v
		}
		return source(src, w)
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			var c ShellCommand
			for _, a := range n.Assigns {
				c.Assigns = append(c.Assigns, source(src, a))
			}
			for _, w := range n.Args {
				c.Words = append(c.Words, word(w))
			}
			s.cmds = append(s.cmds, c)
		case *syntax.DeclClause:
			c := ShellCommand{Words: []string{n.Variant.Value}}
			for _, a := range n.Args {
				c.Words = append(c.Words, source(src, a))
			}
			s.cmds = append(s.cmds, c)
		case *syntax.Redirect:
			if n.Hdoc != nil {
				s.again(source(src, n.Hdoc), depth+1)
			}
		}
		return true
	})
}

// lexical adds the pieces of src between operators and quotes as
// commands: what a syntax error may hide from the parser.
func (s *scanner) lexical(src string) {
	start := 0
	for i := 0; i <= len(src); i++ {
		if i < len(src) && strings.IndexByte(";&|()<>`$\"'\n{}", src[i]) < 0 {
			continue
		}
		if words := strings.Fields(src[start:i]); len(words) > 0 {
			s.cmds = append(s.cmds, ShellCommand{Words: words})
		}
		start = i + 1
	}
}
