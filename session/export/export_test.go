package export

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/lunar-cli/lunar/session"
)

// doc is an exported page parsed as a browser that runs no scripts
// parses it: every article is an element.
type doc struct {
	root *html.Node
	raw  string
}

func parse(t *testing.T, page string) *doc {
	t.Helper()
	root, err := html.ParseWithOptions(strings.NewReader(page), html.ParseOptionEnableScripting(false))
	require.NoError(t, err)
	return &doc{root: root, raw: page}
}

// all returns the elements that match.
func (d *doc) all(match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for n := range d.root.Descendants() {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
	}
	return out
}

// byID returns the element with the id.
func (d *doc) byID(t *testing.T, id string) *html.Node {
	t.Helper()
	els := d.all(func(n *html.Node) bool { v, _ := attr(n, "id"); return v == id })
	require.Len(t, els, 1, "#%s", id)
	return els[0]
}

func tag(name string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == name }
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func hasClass(n *html.Node, class string) bool {
	c, _ := attr(n, "class")
	return strings.Contains(" "+c+" ", " "+class+" ")
}

func text(n *html.Node) string {
	var b strings.Builder
	for c := range n.Descendants() {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// find returns the descendants of n that match.
func find(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for c := range n.Descendants() {
		if c.Type == html.ElementNode && match(c) {
			out = append(out, c)
		}
	}
	return out
}

// article returns the article of the entry id.
func (d *doc) article(t *testing.T, id string) *html.Node {
	t.Helper()
	arts := d.all(func(n *html.Node) bool {
		v, _ := attr(n, "id")
		return n.Data == "article" && v == id
	})
	require.Len(t, arts, 1, "article of %s", id)
	return arts[0]
}

// tree decodes the page's tree data.
func (d *doc) tree(t *testing.T) (treeData, string) {
	t.Helper()
	s := d.all(func(n *html.Node) bool { v, _ := attr(n, "id"); return n.Data == "script" && v == "tree-data" })
	require.Len(t, s, 1)
	raw := text(s[0])
	var td treeData
	require.NoError(t, json.Unmarshal([]byte(raw), &td))
	return td, raw
}

func TestDocumentIsSafe(t *testing.T) {
	s, ids := richSession(t)
	d := parse(t, export(t, s, Options{Generator: "lunar test"}))

	// The only scripts are the tree data and the page's own script, and
	// the CSP allows that script alone.
	scripts := d.all(tag("script"))
	require.Len(t, scripts, 2)
	typ, _ := attr(scripts[0], "type")
	assert.Equal(t, "application/json", typ)
	assert.Equal(t, pageJS, text(scripts[1]))
	sum := sha256.Sum256([]byte(text(scripts[1])))
	metas := d.all(func(n *html.Node) bool { v, _ := attr(n, "http-equiv"); return v == "Content-Security-Policy" })
	require.Len(t, metas, 1)
	policy, _ := attr(metas[0], "content")
	assert.Contains(t, policy, "default-src 'none'")
	assert.Contains(t, policy, "script-src 'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
	assert.Contains(t, policy, "img-src data:")

	// No markup from the session became elements, handlers or requests.
	for _, n := range d.all(func(*html.Node) bool { return true }) {
		switch n.Data {
		case "iframe", "object", "embed", "link", "base", "form", "input", "textarea", "video", "audio", "source", "svg", "math":
			if v, _ := attr(n, "id"); n.Data == "input" && v == "search" {
				continue
			}
			t.Errorf("unexpected <%s>", n.Data)
		}
		for _, a := range n.Attr {
			if strings.HasPrefix(a.Key, "on") || a.Key == "style" && n.Data != "span" || a.Key == "srcdoc" {
				t.Errorf("<%s> has attribute %s=%q", n.Data, a.Key, a.Val)
			}
			if a.Key == "src" && !strings.HasPrefix(a.Val, "data:image/") {
				t.Errorf("<%s> loads %q", n.Data, a.Val)
			}
			if a.Key == "href" && !strings.HasPrefix(a.Val, "#") && !strings.HasPrefix(a.Val, "https://") && !strings.HasPrefix(a.Val, "http://") {
				t.Errorf("<%s> links to %q", n.Data, a.Val)
			}
		}
	}
	u := d.article(t, ids["user1"])
	assert.Contains(t, text(u), "<script>alert('user')</script>")
	assert.Contains(t, text(u), "<img src=x onerror=alert(1)>")
	assert.Contains(t, text(u), "a\u2028line\u2029sep", "U+2028 and U+2029 are text in HTML")
	a1 := d.article(t, ids["assistant1"])
	assert.Contains(t, text(a1), `fmt.Println("</script>")`)
	assert.Contains(t, text(a1), `<div onclick="alert(4)">block html</div>`)
	assert.Contains(t, text(a1), "click me")
	assert.Empty(t, find(a1, func(n *html.Node) bool {
		h, _ := attr(n, "href")
		return n.Data == "a" && strings.Contains(h, "script")
	}))

	// The JSON in the page cannot end its element, open a comment or
	// break a JavaScript string.
	td, raw := d.tree(t)
	low := strings.ToLower(raw)
	assert.NotContains(t, low, "</script")
	assert.NotContains(t, low, "<!--")
	assert.NotContains(t, raw, "\u2028")
	assert.NotContains(t, raw, "\u2029")
	assert.Contains(t, raw, `\u2028`)
	assert.Equal(t, hostileLabel, td.Labels[strconv.Itoa(indexOf(td.IDs, ids["user1"]))])
	// The page's title and heading are the name, as text.
	assert.Equal(t, strings.TrimSpace(hostileSessionNm), text(d.all(tag("title"))[0]))
	assert.Equal(t, strings.TrimSpace(hostileSessionNm), text(d.all(tag("h1"))[0]))
}

func indexOf(ids []string, id string) int {
	for i, v := range ids {
		if v == id {
			return i
		}
	}
	return -1
}

func TestDocumentHasEveryEntryOnceInTreeOrder(t *testing.T) {
	s, ids := richSession(t)
	page := export(t, s, Options{})
	d := parse(t, page)
	td, _ := d.tree(t)
	entries := s.Entries()
	require.Len(t, td.IDs, len(entries))

	// The leaf's path is the conversation; every other entry is in a
	// hidden element after it. Each part is in tree order.
	onLeaf := map[string]bool{}
	for _, e := range s.Path("") {
		onLeaf[e.ID] = true
	}
	isArticle := func(n *html.Node) bool { return n.Data == "article" && hasClass(n, "e") }
	conv := find(d.byID(t, "conv"), isArticle)
	branches := d.byID(t, "branches")
	_, hidden := attr(branches, "hidden")
	assert.True(t, hidden)
	others := find(branches, isArticle)
	require.Len(t, conv, len(s.Path("")))
	require.Len(t, others, len(entries)-len(conv))
	seen := map[int]bool{}
	for part, arts := range [][]*html.Node{conv, others} {
		last := -1
		for _, a := range arts {
			di, _ := attr(a, "data-i")
			i, err := strconv.Atoi(di)
			require.NoError(t, err)
			assert.Greater(t, i, last, "in tree order")
			last = i
			seen[i] = true
			id, _ := attr(a, "id")
			assert.Equal(t, td.IDs[i], id)
			assert.Equal(t, part == 0, onLeaf[id], id)
			_, hidden := attr(a, "hidden")
			assert.False(t, hidden, "the script builds the articles shown")
		}
	}
	assert.Len(t, seen, len(entries), "every entry once")
	for i := range td.IDs {
		if p := td.Parent[i]; p >= 0 {
			assert.Less(t, p, i, "a parent comes before its children")
			assert.Equal(t, s.Get(td.IDs[i]).ParentID, td.IDs[p])
		}
	}
	assert.Equal(t, indexOf(td.IDs, ids["unknown"]), td.Leaf)
	assert.Equal(t, indexOf(td.IDs, ids["assistant2"]), td.Cut[strconv.Itoa(indexOf(td.IDs, ids["compaction"]))])

	// Entries before the compaction's first kept entry are marked; the
	// branch that was left is not on the path.
	assert.True(t, hasClass(d.article(t, ids["assistant1"]), "compacted"))
	assert.False(t, hasClass(d.article(t, ids["assistant2"]), "compacted"))
	assert.False(t, hasClass(d.article(t, ids["model"]), "compacted"), "settings are not context")

	// Two exports of the same session are the same bytes.
	assert.Equal(t, export(t, s, Options{}), export(t, s, Options{}))
}

// TestArticlesAreTextToScripts reads the page as a browser that runs
// scripts: the articles are two texts, which the script splits after each
// "</article>\n" into the conversation's and the other entries' articles.
// No message can end a text or an article early.
func TestArticlesAreTextToScripts(t *testing.T) {
	s, ids := richSession(t)
	page := export(t, s, Options{})
	root, err := html.Parse(strings.NewReader(page))
	require.NoError(t, err)
	d := &doc{root: root, raw: page}
	assert.Empty(t, d.all(tag("article")), "no article is an element")
	td, _ := d.tree(t)
	var path, others []string
	for i, id := range td.IDs {
		if slices.Contains(pathIDs(s, ""), id) {
			path = append(path, strconv.Itoa(i))
		} else {
			others = append(others, strconv.Itoa(i))
		}
	}
	require.Contains(t, others, strconv.Itoa(indexOf(td.IDs, ids["alt"])))
	for holder, want := range map[string][]string{"conv": path, "branches": others} {
		ns := find(d.byID(t, holder), tag("noscript"))
		require.Len(t, ns, 1)
		c := ns[0].FirstChild
		require.True(t, c != nil && c.Type == html.TextNode && c.NextSibling == nil, "one text")
		parts := strings.Split(c.Data, "</article>\n")
		require.Equal(t, "", parts[len(parts)-1], "the last article ends the text")
		parts = parts[:len(parts)-1]
		var got []string
		for _, part := range parts {
			nodes, err := html.ParseFragment(strings.NewReader(part+"</article>"), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
			require.NoError(t, err)
			require.Len(t, nodes, 1, part)
			assert.Equal(t, "article", nodes[0].Data)
			i, _ := attr(nodes[0], "data-i")
			got = append(got, i)
		}
		assert.Equal(t, want, got, holder)
	}
	assert.Contains(t, page, "&lt;/noscript&gt;&lt;/article&gt;\n&lt;/ARTICLE &gt;", "the hostile text is there, escaped")
}

// TestArticleEntities checks the escapes the page's search expects: the
// articles write &, <, >, " and ' as these references and no character
// as any other.
func TestArticleEntities(t *testing.T) {
	s, _ := richSession(t)
	page := export(t, s, Options{RenderCustom: func(m *session.Message) (string, bool) {
		return "\x1b[1m<b>&amp; \"x\" 'y'\x1b[0m", true
	}})
	start := strings.Index(page, `<div id="conv">`)
	end := strings.Index(page, `<script type="application/json"`)
	require.True(t, start > 0 && end > start)
	refs := map[string]int{}
	for _, m := range regexp.MustCompile(`&[^&;\s]*;`).FindAllString(page[start:end], -1) {
		refs[m]++
	}
	for r := range refs {
		assert.Contains(t, []string{"&amp;", "&lt;", "&gt;", "&quot;", "&#34;", "&#39;"}, r)
	}
	assert.NotZero(t, refs["&#39;"])
	assert.NotZero(t, refs["&quot;"], "goldmark's")
}

func TestEveryEntryType(t *testing.T) {
	s, ids := richSession(t)
	d := parse(t, export(t, s, Options{RenderCustom: func(m *session.Message) (string, bool) {
		if m.CustomType() == "memory" && m.Display() {
			return "\x1b[1;32m● memory\x1b[0m " + joinText(m.Content) + "\x1b]8;;http://x\x07", true
		}
		return "", false
	}}))
	sel := func(class string) func(*html.Node) bool { return func(n *html.Node) bool { return hasClass(n, class) } }
	tests := []struct {
		name, kind string
		texts      []string
		has        []string // classes of descendants
	}{
		{"model", "k-setting", []string{"Model", "anthropic/claude-sonnet-4-5"}, nil},
		{"thinking", "k-setting", []string{"Thinking level", "high"}, nil},
		{"user1", "k-user", []string{"You", hostileLabel}, []string{"img", "label"}},
		{"alt", "k-assistant", []string{"openai/gpt-4.1", "Another way: rewrite it.", "Stopped by the user."}, nil},
		{"branch_summary", "k-branch", []string{"Branch summary", "(from a hook)", "Tried a rewrite; abandoned <it>."}, nil},
		{"assistant1", "k-assistant", []string{"Plan", "src/parse.go:10-29", "$ go test ./... | grep -v '<ok>'", "timeout 60 s", "in 1,523 · out 312 · cache read 20,480 · $0.015"}, []string{"thinking", "call", "code", "h-k", "img", "img-link", "bad-link"}},
		{"read", "k-tool", []string{"read result", "src/parse.go:10-29", "// Parse parses."}, []string{"h-k", "h-c"}},
		{"bash", "k-error", []string{"bash error", "FAIL <pkg>", "Show all 41 lines"}, []string{"long", "a-f2", "a-b", "more"}},
		{"assistant2", "k-assistant", []string{"edit", "write", "notes.md", "search_web", `"</script><script>alert(5)</script>"`}, []string{"diff", "add", "del", "h-a"}},
		{"edit", "k-tool", []string{"Successfully replaced 1 block(s)", `+4 func Parse(s string) error { return errors.New("<bad>") }`}, []string{"add", "del"}},
		{"write", "k-tool", []string{"Wrote 18 bytes to notes.md"}, nil},
		{"hostile_result", "k-error", []string{"search_web error", "no results for </script>"}, []string{"img"}},
		{"shell", "k-bash", []string{"$ make test", "FAIL <x>", "exit code 2"}, nil},
		{"shell_excluded", "k-bash", []string{"not sent to the model (!!)"}, nil},
		{"custom_shown", "k-custom", []string{"Hook message", "● memory The user prefers tabs."}, []string{"term", "a-b", "a-f2"}},
		{"custom_hidden", "k-custom", []string{"sent to the model, not displayed", "secret context <b>"}, []string{"hidden-msg"}},
		{"custom_role", "k-custom", []string{"legacy", "old hook message"}, nil},
		{"state", "k-state", []string{"Hook state", "todo", `"</script>"`}, []string{"data"}},
		{"label", "k-setting", []string{"“" + hostileLabel + "” on " + ids["user1"]}, []string{"ref"}},
		{"name", "k-setting", []string{"Session name", strings.TrimSpace(hostileSessionNm)}, nil},
		{"compaction", "k-compaction", []string{"123,456 tokens", "Fix the parser.", "src/a.go", "src/parse.go"}, []string{"summary"}},
		{"user2", "k-user", []string{"after compaction"}, nil},
		{"error", "k-error", []string{"429 rate limited <retry>"}, []string{"error-box"}},
		{"leaf", "k-assistant", []string{"Done. Costs 0.000123 $."}, []string{"usage"}},
		{"unknown", "k-other", []string{"stack_pop", `"</script>"`}, []string{"data"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := d.article(t, ids[tc.name])
			assert.True(t, hasClass(a, tc.kind), "class %s", tc.kind)
			for _, s := range tc.texts {
				assert.Contains(t, text(a), s)
			}
			for _, c := range tc.has {
				if c == "img" {
					imgs := find(a, tag("img"))
					if assert.NotEmpty(t, imgs, "an image") {
						src, _ := attr(imgs[0], "src")
						assert.Equal(t, "data:image/png;base64,"+tinyPNG, src)
					}
					continue
				}
				assert.NotEmpty(t, find(a, sel(c)), "an element of class %s", c)
			}
			assert.NotContains(t, text(a), "\x1b", "no terminal escapes")
		})
	}
	// Thinking is folded; the hidden hook message too.
	th := find(d.article(t, ids["assistant1"]), sel("thinking"))
	_, open := attr(th[0], "open")
	assert.False(t, open)
}

func TestHeaderFacts(t *testing.T) {
	s, _ := richSession(t)
	d := parse(t, export(t, s, Options{}))
	facts := d.all(func(n *html.Node) bool { v, _ := attr(n, "id"); return v == "facts" })
	require.Len(t, facts, 1)
	f := text(facts[0])
	for _, want := range []string{
		"Session" + s.ID(), "Folder/home/ana/code/<proj>", "anthropic/claude-sonnet-4-5, openai/gpt-4.1",
		"2 user · 5 assistant · 5 tool results · 2 shell · 3 custom", "5 tool calls · 25 entries · 2 branches · 1 compaction · 1 branch summary",
		"in 4,569 · out 936 · cache read 61,440", "Cost$0.046",
	} {
		assert.Contains(t, f, want)
	}
	assert.Contains(t, f, s.Header().Timestamp[:10])
}

func TestEmptySession(t *testing.T) {
	s := session.CreateInMemory("/tmp")
	page := export(t, s, Options{})
	d := parse(t, page)
	td, _ := d.tree(t)
	assert.Equal(t, -1, td.Leaf)
	assert.Empty(t, td.IDs)
	assert.Contains(t, page, "This session has no entries yet.")
	assert.Equal(t, "Session "+s.ID(), text(d.all(tag("title"))[0]))
}

func TestWriteFile(t *testing.T) {
	s, _ := richSession(t)
	dir := t.TempDir()
	path := filepath.Join(dir, DefaultFileName(s))
	assert.Equal(t, "lunar-session-"+strings.TrimSuffix(filepath.Base(s.File()), ".jsonl")+".html", filepath.Base(path))
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o600))
	require.NoError(t, WriteFile(path, s, Options{}))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(got, []byte("<!DOCTYPE html>")))
	files, _ := os.ReadDir(dir)
	assert.Len(t, files, 1, "no temporary file left")
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())

	assert.Error(t, WriteFile(filepath.Join(dir, "missing", "x.html"), s, Options{}))
	mem := session.CreateInMemory("/")
	assert.Equal(t, "lunar-session-"+mem.ID()+".html", DefaultFileName(mem))
}
