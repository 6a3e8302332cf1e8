// Package highlight is a small syntax highlighter: a scanner that
// classifies comments, strings, numbers, keywords, types and constants,
// function names and a few language-specific tokens (shell variables,
// JSON and YAML keys, markup tags, diff lines) for the languages sessions
// are full of. It is not a parser, and needs none to make code easy to
// read. The HTML export and the terminal renderer colour its tokens each
// in their own way.
//
// Why not chroma: its regexp-based lexers run at well under 1 MB/s, and a
// session's tool results hold megabytes of files; a 100,000-entry
// session took 20 s to export with it, against a budget of 2. This
// scanner runs at tens of MB/s, and keeps ~4 MB of lexers (and their
// package initialisation) out of lunar's binary.
package highlight

import (
	"path/filepath"
	"strings"
	"sync"
)

// Class is the kind of a token.
type Class uint8

// Token classes.
const (
	Plain   Class = iota
	Keyword       // language keyword
	Type          // type, built-in or constant
	String        // string literal
	Comment       // comment
	Number        // number literal
	Func          // name of a called or defined function
	Var           // shell or PHP variable
	Key           // JSON/YAML key, markup attribute
	Tag           // markup tag
	Added         // diff: added line
	Removed       // diff: removed line
	Hunk          // diff: file and hunk header
)

// MaxSize is the largest text that is classified; longer text is one
// Plain token.
const MaxSize = 256 << 10

// Lang describes how to scan one language.
type Lang struct {
	lineComments  []string    // "//", "#", "--"
	blockComments [][2]string // {"/*", "*/"}
	quotes        string      // string delimiters
	multiline     string      // delimiters whose strings may span lines
	triple        bool        // """ and ''' strings (Python)
	hashNeedsGap  bool        // # starts a comment only at a word boundary (shell)
	dollarVars    bool        // $name and ${…} are variables (shell, PHP)
	keys          bool        // a string or word before ':' is a key (JSON, YAML)
	markup        bool        // <tags> and attributes (HTML, XML)
	diff          bool        // whole lines by their first character
	noCase        bool        // keywords ignore case (SQL)
	keywords      map[string]bool
	types         map[string]bool // types, built-ins and constants
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// The languages, built on first use (package initialisation stays free).
var (
	loadOnce  sync.Once
	langNames map[string]*Lang // fence languages and file extensions (with their dot)

	langGo, langPython, langJS, langRust, langC, langRuby, langShell, langLua     *Lang
	langSQL, langJSON, langYAML, langTOML, langCSS, langMarkup, langDiff, langPHP *Lang
)

func load() {
	cComments := [][2]string{{"/*", "*/"}}
	langGo = &Lang{lineComments: []string{"//"}, blockComments: cComments, quotes: "\"'`", multiline: "`", keywords: words("break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var"), types: words("bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr any comparable true false nil iota append cap clear close copy delete len make max min new panic print println recover")}
	langPython = &Lang{lineComments: []string{"#"}, quotes: "\"'", triple: true, keywords: words("and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case"), types: words("True False None self cls int str float bool list dict set tuple bytes object type len range print isinstance super open Exception ValueError TypeError KeyError")}
	langJS = &Lang{lineComments: []string{"//"}, blockComments: cComments, quotes: "\"'`", multiline: "`", keywords: words("async await break case catch class const continue debugger default delete do else export extends finally for from function if import in instanceof let new of return static super switch this throw try typeof var void while with yield as implements interface type enum declare readonly private protected public abstract namespace keyof satisfies"), types: words("true false null undefined NaN Infinity string number boolean any unknown never void object Array Object String Number Boolean Promise Map Set Error JSON Math console document window")}
	langRust = &Lang{lineComments: []string{"//"}, blockComments: cComments, quotes: "\"", keywords: words("as async await break const continue crate dyn else enum extern fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait type unsafe use where while"), types: words("bool char str String i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 Vec Option Result Box Some None Ok Err true false")}
	langC = &Lang{lineComments: []string{"//"}, blockComments: cComments, quotes: "\"'", keywords: words("auto break case catch class const constexpr continue default delete do else enum explicit extern for friend goto if inline namespace new noexcept operator private protected public return sizeof static struct switch template this throw try typedef typename union using virtual volatile while import package extends implements final abstract interface throws instanceof synchronized override fun val var when object companion data sealed func let guard defer"), types: words("void int char short long float double signed unsigned bool size_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t true false nullptr NULL null String Integer Boolean boolean byte Object List Map std string vector auto Self self nil Int Double Float Bool")}
	langRuby = &Lang{lineComments: []string{"#"}, quotes: "\"'", keywords: words("alias and begin break case class def defined? do else elsif end ensure for if in module next not or redo rescue retry return self super then undef unless until when while yield require attr_accessor attr_reader private"), types: words("true false nil puts print")}
	langShell = &Lang{lineComments: []string{"#"}, hashNeedsGap: true, quotes: "\"'", multiline: "\"'", dollarVars: true, keywords: words("if then else elif fi case esac for while until do done in function return exit export local readonly set unset shift source alias break continue"), types: words("echo cd ls cat grep sed awk find rm cp mv mkdir chmod chown git go npm npx node python python3 pip make curl wget tar sudo apt apt-get test printf read head tail sort uniq wc xargs tee touch diff kill ps env which true false")}
	langLua = &Lang{lineComments: []string{"--"}, blockComments: [][2]string{{"--[[", "]]"}}, quotes: "\"'", keywords: words("and break do else elseif end for function goto if in local not or repeat return then until while"), types: words("true false nil self require print pairs ipairs type tostring tonumber table string math os io error pcall")}
	langSQL = &Lang{lineComments: []string{"--"}, blockComments: cComments, quotes: "'\"", noCase: true, keywords: words("select from where and or not insert into values update set delete create table drop alter add index primary key foreign references join left right inner outer on group by order having limit offset as distinct union all case when then else end null is in like between exists returning with begin commit rollback"), types: words("int integer bigint text varchar char boolean date timestamp float real numeric serial true false count sum avg min max")}
	langJSON = &Lang{quotes: "\"", keys: true, types: words("true false null")}
	langYAML = &Lang{lineComments: []string{"#"}, hashNeedsGap: true, quotes: "\"'", keys: true, types: words("true false null yes no on off")}
	langTOML = &Lang{lineComments: []string{"#", ";"}, quotes: "\"'", multiline: "", keys: true, types: words("true false")}
	langCSS = &Lang{blockComments: cComments, quotes: "\"'", keys: true, types: words("important inherit initial none auto")}
	langMarkup = &Lang{blockComments: [][2]string{{"<!--", "-->"}}, quotes: "\"'", markup: true}
	langDiff = &Lang{diff: true}
	langPHP = &Lang{lineComments: []string{"//", "#"}, blockComments: cComments, quotes: "\"'", dollarVars: true, keywords: words("abstract as break case catch class const continue declare default do echo else elseif extends final for foreach function global if implements include interface namespace new private protected public require return static switch throw trait try use var while"), types: words("true false null array string int float bool")}
	langNames = map[string]*Lang{
		"go": langGo, "golang": langGo, ".go": langGo,
		"python": langPython, "py": langPython, "python3": langPython, ".py": langPython, ".pyi": langPython,
		"javascript": langJS, "js": langJS, "jsx": langJS, "typescript": langJS, "ts": langJS, "tsx": langJS, "mjs": langJS, "cjs": langJS,
		".js": langJS, ".jsx": langJS, ".ts": langJS, ".tsx": langJS, ".mjs": langJS, ".cjs": langJS, ".vue": langJS, ".svelte": langJS,
		"rust": langRust, "rs": langRust, ".rs": langRust,
		"c": langC, "cpp": langC, "c++": langC, "cc": langC, "h": langC, "hpp": langC, "java": langC, "kotlin": langC, "kt": langC,
		"csharp": langC, "cs": langC, "c#": langC, "swift": langC, "scala": langC, "objc": langC, "dart": langC, "zig": langC,
		".c": langC, ".h": langC, ".cc": langC, ".cpp": langC, ".cxx": langC, ".hpp": langC, ".hh": langC, ".java": langC, ".kt": langC,
		".kts": langC, ".cs": langC, ".swift": langC, ".scala": langC, ".m": langC, ".mm": langC, ".dart": langC, ".zig": langC, ".proto": langC,
		"ruby": langRuby, "rb": langRuby, ".rb": langRuby, ".rake": langRuby, "Gemfile": langRuby, "Rakefile": langRuby,
		"bash": langShell, "sh": langShell, "shell": langShell, "zsh": langShell, "console": langShell, "shellsession": langShell, "fish": langShell,
		"dockerfile": langShell, "docker": langShell, "make": langShell, "makefile": langShell,
		".sh": langShell, ".bash": langShell, ".zsh": langShell, ".fish": langShell, ".env": langShell,
		"Dockerfile": langShell, "Makefile": langShell, "GNUmakefile": langShell, ".mk": langShell,
		"lua": langLua, ".lua": langLua,
		"sql": langSQL, ".sql": langSQL, "postgresql": langSQL, "mysql": langSQL, "sqlite": langSQL,
		"json": langJSON, "jsonc": langJSON, "json5": langJSON, "jsonl": langJSON, ".json": langJSON, ".jsonl": langJSON, ".jsonc": langJSON, ".ipynb": langJSON,
		"yaml": langYAML, "yml": langYAML, ".yaml": langYAML, ".yml": langYAML,
		"toml": langTOML, "ini": langTOML, "conf": langTOML, ".toml": langTOML, ".ini": langTOML, ".cfg": langTOML, ".conf": langTOML, "go.mod": langTOML,
		"css": langCSS, "scss": langCSS, "less": langCSS, ".css": langCSS, ".scss": langCSS, ".less": langCSS,
		"html": langMarkup, "xml": langMarkup, "svg": langMarkup, "xhtml": langMarkup, ".html": langMarkup, ".htm": langMarkup,
		".xml": langMarkup, ".svg": langMarkup, ".xhtml": langMarkup, ".plist": langMarkup,
		"diff": langDiff, "patch": langDiff, ".diff": langDiff, ".patch": langDiff,
		"php": langPHP, ".php": langPHP,
	}
}

// ByName finds the scanner for a fence's language ("go", "py"); nil
// when there is none.
func ByName(name string) *Lang {
	loadOnce.Do(load)
	if l := langNames[name]; l != nil {
		return l
	}
	return langNames[strings.ToLower(name)]
}

// ByFile finds the scanner for a file by its name or extension; nil
// when there is none.
func ByFile(path string) *Lang {
	loadOnce.Do(load)
	base := filepath.Base(strings.ReplaceAll(path, "\\", "/"))
	if l := langNames[base]; l != nil {
		return l
	}
	return langNames[strings.ToLower(filepath.Ext(base))]
}

// Emit receives the text of code in order, each piece with its class.
type Emit func(c Class, text string)

// Tokens splits code into classified pieces and passes them to emit in
// order; joined, they are code. With l nil, or code over MaxSize, code is
// one Plain piece.
func Tokens(code string, l *Lang, emit Emit) {
	if code == "" {
		return
	}
	if l == nil || len(code) > MaxSize {
		emit(Plain, code)
		return
	}
	if l.diff {
		diffTokens(code, emit)
		return
	}
	sc := scanner{emit: emit, s: code, l: l}
	sc.run()
}

func diffTokens(code string, emit Emit) {
	for len(code) > 0 {
		line, rest, nl := strings.Cut(code, "\n")
		c := Plain
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"), strings.HasPrefix(line, "@@"):
			c = Hunk
		case strings.HasPrefix(line, "+"):
			c = Added
		case strings.HasPrefix(line, "-"):
			c = Removed
		}
		if line != "" {
			emit(c, line)
		}
		if nl {
			emit(Plain, "\n")
		}
		code = rest
	}
}

type scanner struct {
	emit  Emit
	s     string
	l     *Lang
	plain int // start of the plain text not written yet
}

// token passes on the plain text before i, then s[i:j] in class c.
func (sc *scanner) token(i, j int, c Class) {
	if i > sc.plain {
		sc.emit(Plain, sc.s[sc.plain:i])
	}
	if j > i {
		sc.emit(c, sc.s[i:j])
	}
	sc.plain = j
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdent(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (sc *scanner) run() {
	s, l := sc.s, sc.l
	inTag := false // inside <tag …> (markup)
	for i := 0; i < len(s); {
		c := s[i]
		// Comments.
		if j := sc.comment(i); j > i {
			sc.token(i, j, Comment)
			i = j
			continue
		}
		// Markup tags: <name, </name, >.
		if l.markup {
			if c == '<' && i+1 < len(s) && (isIdentStart(s[i+1]) || s[i+1] == '/' || s[i+1] == '!' || s[i+1] == '?') {
				j := i + 1
				for j < len(s) && (isIdent(s[j]) || strings.IndexByte("/!?:-.", s[j]) >= 0) {
					j++
				}
				sc.token(i, j, Tag)
				i, inTag = j, true
				continue
			}
			if inTag && (c == '>' || c == '/' && i+1 < len(s) && s[i+1] == '>') {
				j := i + 1
				if c == '/' {
					j++
				}
				sc.token(i, j, Tag)
				i, inTag = j, false
				continue
			}
			if inTag && isIdentStart(c) {
				j := i
				for j < len(s) && (isIdent(s[j]) || s[j] == '-' || s[j] == ':') {
					j++
				}
				sc.token(i, j, Key)
				i = j
				continue
			}
			if !inTag {
				if c == '&' { // an entity
					j := i + 1
					for j < len(s) && j-i < 10 && (isIdent(s[j]) || s[j] == '#') {
						j++
					}
					if j < len(s) && s[j] == ';' {
						sc.token(i, j+1, Type)
						i = j + 1
						continue
					}
				}
				i++
				continue
			}
		}
		// Strings.
		if strings.IndexByte(l.quotes, c) >= 0 {
			j := sc.str(i)
			cls := String
			if l.keys && sc.keyFollows(j) {
				cls = Key
			}
			sc.token(i, j, cls)
			i = j
			continue
		}
		// Shell and PHP variables.
		if l.dollarVars && c == '$' && i+1 < len(s) {
			j := i + 1
			switch {
			case s[j] == '{':
				for j < len(s) && s[j] != '}' && s[j] != '\n' {
					j++
				}
				if j < len(s) && s[j] == '}' {
					j++
				}
			case isIdentStart(s[j]):
				for j < len(s) && isIdent(s[j]) {
					j++
				}
			case strings.IndexByte("0123456789?@#*!$-", s[j]) >= 0:
				j++
			}
			if j > i+1 {
				sc.token(i, j, Var)
				i = j
				continue
			}
		}
		// Numbers.
		if isDigit(c) && (i == 0 || !isIdent(s[i-1]) && s[i-1] != '.') {
			j := i + 1
			for j < len(s) && (isIdent(s[j]) || s[j] == '.' && j+1 < len(s) && isDigit(s[j+1])) {
				j++
			}
			sc.token(i, j, Number)
			i = j
			continue
		}
		// Words: keywords, types, keys, function names.
		if isIdentStart(c) || c == '@' && i+1 < len(s) && isIdentStart(s[i+1]) {
			j := i + 1
			for j < len(s) && (isIdent(s[j]) || l == langShell && (s[j] == '-' || s[j] == '.') && j+1 < len(s) && isIdent(s[j+1])) {
				j++
			}
			w := s[i:j]
			if l.noCase {
				w = strings.ToLower(w)
			}
			cls := Plain
			switch {
			case c == '@':
				cls = Type // a decorator or annotation
			case l.keys && sc.keyFollows(j) && (l != langYAML || sc.lineStartBefore(i)):
				cls = Key
			case l.keywords[w]:
				cls = Keyword
			case l.types[w]:
				cls = Type
			case j < len(s) && s[j] == '(' && !l.keys:
				cls = Func
			}
			if cls != Plain {
				sc.token(i, j, cls)
			}
			i = j
			continue
		}
		i++
	}
	if sc.plain < len(s) {
		sc.emit(Plain, s[sc.plain:])
	}
}

// comment returns the end of a comment starting at i, or i.
func (sc *scanner) comment(i int) int {
	s, l := sc.s, sc.l
	for _, bc := range l.blockComments {
		if strings.HasPrefix(s[i:], bc[0]) {
			if k := strings.Index(s[i+len(bc[0]):], bc[1]); k >= 0 {
				return i + len(bc[0]) + k + len(bc[1])
			}
			return len(s)
		}
	}
	for _, lc := range l.lineComments {
		if strings.HasPrefix(s[i:], lc) {
			if lc == "#" && l.hashNeedsGap && i > 0 && s[i-1] != ' ' && s[i-1] != '\t' && s[i-1] != '\n' {
				continue
			}
			if k := strings.IndexByte(s[i:], '\n'); k >= 0 {
				return i + k
			}
			return len(s)
		}
	}
	return i
}

// str returns the end of the string literal starting at i.
func (sc *scanner) str(i int) int {
	s, l := sc.s, sc.l
	q := s[i]
	if l.triple && i+2 < len(s) && s[i+1] == q && s[i+2] == q {
		if k := strings.Index(s[i+3:], s[i:i+3]); k >= 0 {
			return i + 3 + k + 3
		}
		return len(s)
	}
	multi := strings.IndexByte(l.multiline, q) >= 0
	raw := q == '`' && l == langGo || q == '\'' && l == langShell
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if !raw {
				j++
			}
		case q:
			return j + 1
		case '\n':
			if !multi {
				return j
			}
		}
	}
	return len(s)
}

// keyFollows says a ':' follows j, after spaces (a JSON or YAML key).
func (sc *scanner) keyFollows(j int) bool {
	for j < len(sc.s) && (sc.s[j] == ' ' || sc.s[j] == '\t') {
		j++
	}
	return j < len(sc.s) && sc.s[j] == ':' && (j+1 == len(sc.s) || sc.s[j+1] != ':')
}

// lineStartBefore says only spaces and "- " stand between the line's start
// and i (a YAML key).
func (sc *scanner) lineStartBefore(i int) bool {
	for k := i - 1; k >= 0; k-- {
		switch sc.s[k] {
		case '\n':
			return true
		case ' ', '\t', '-':
		default:
			return false
		}
	}
	return true
}
