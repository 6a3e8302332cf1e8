package export

// The exported page in a real browser: headless Chromium driven through
// the DevTools protocol. Skipped when Chromium is not installed (CI
// installs Debian's chromium package). Screenshots and the pages stay in
// LUNAR_EXPORT_ARTIFACTS (default: lunar-export-artifacts in the temp
// dir) for a person to look at.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/lunar-cli/lunar/session"
)

// findChromium returns the browser to drive: $LUNAR_CHROMIUM, else
// chromium (or chromium-browser, google-chrome) on PATH.
func findChromium() string {
	if p := os.Getenv("LUNAR_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is one headless Chromium tab that records what the page must
// not do: console errors and warnings, uncaught exceptions, security
// (CSP) reports and requests for anything but the page itself.
type browser struct {
	t    testing.TB
	ctx  context.Context
	page string // the file: URL of the page under test, without fragment

	mu       sync.Mutex
	problems []string
}

func newBrowser(t testing.TB) *browser {
	t.Helper()
	return launchBrowser(t, 4*time.Minute)
}

// launchBrowser starts a browser that gives up after timeout.
func launchBrowser(t testing.TB, timeout time.Duration) *browser {
	t.Helper()
	chrome := findChromium()
	if chrome == "" {
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	b := &browser{t: t}
	// Chromium itself now and then exits before it listens, with nothing
	// on stderr but its usual D-Bus complaints (seen on a loaded machine;
	// chromedp then says "chrome failed to start"): that launch, and only
	// that, is tried once more, with a fresh profile.
	var err error
	for attempt := 1; ; attempt++ {
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.DisableGPU,
			chromedp.UserDataDir(t.TempDir()), chromedp.Flag("hide-scrollbars", false))
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(b.event))
		t.Cleanup(func() { cancel(); cancelAlloc() })
		ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
		t.Cleanup(cancelTimeout)
		b.ctx = ctx
		_, err = chromedp.Call(ctx, network.Enable, network.EnableParams{})
		if err == nil || attempt == 2 || !strings.Contains(err.Error(), "chrome failed to start") {
			break
		}
		t.Logf("launching chromium again: %v", err)
	}
	require.NoError(t, err)
	_, err = chromedp.Call(b.ctx, cdplog.Enable, cdp.Empty{})
	require.NoError(t, err)
	return b
}

func (b *browser) event(ev any) {
	var p string
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		u := ev.Request.URL
		if !strings.HasPrefix(u, "data:") && (b.page == "" || strings.SplitN(u, "#", 2)[0] != b.page) {
			p = "request: " + u
		}
	case *runtime.EventExceptionThrown:
		p = "exception: " + ev.ExceptionDetails.Text
		if ev.ExceptionDetails.Exception != nil {
			p += " " + ev.ExceptionDetails.Exception.Description
		}
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			p = "console." + string(ev.Type) + ": " + strings.Join(args, " ")
		}
	case *cdppage.EventJavascriptDialogOpening:
		p = "dialog: " + ev.Message
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
			p = "log " + string(ev.Entry.Source) + ": " + ev.Entry.Text
		}
	}
	if p != "" {
		b.mu.Lock()
		b.problems = append(b.problems, p)
		b.mu.Unlock()
	}
}

// noProblems asserts the page did nothing it must not do so far.
func (b *browser) noProblems() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	assert.Empty(b.t, b.problems, "console errors, exceptions or requests")
}

func (b *browser) do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	require.NoError(b.t, chromedp.Do(b.ctx, actions...))
}

func eval[T any](b *browser, js string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	require.NoError(b.t, err, js)
	return v
}

// poll waits until the JavaScript condition holds (the page redraws on
// animation frames), failing after a timeout.
func (b *browser) poll(js string) {
	b.t.Helper()
	_, err := chromedp.Run(b.ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(20*time.Second)))
	require.NoError(b.t, err, "waiting for %s", js)
}

// click scrolls the element sel names to the middle of the view, waits
// until its place has settled and nothing covers its centre, then clicks
// it with the mouse. The articles are laid out only near the view
// (content-visibility: auto), so a scroll moves what is around its
// target for a frame or two: a click at the place measured before that
// lands on whatever came there (it failed a CI run that way).
func (b *browser) click(sel string) {
	b.t.Helper()
	q, err := json.Marshal(sel)
	require.NoError(b.t, err)
	b.poll(fmt.Sprintf(`(() => {
		const e = document.querySelector(%s);
		if (!e) return false;
		const r = e.getBoundingClientRect();
		if (r.top < 60 || r.bottom > innerHeight - 10) { e.scrollIntoView({block: 'center'}); window.__settled = 0; return false; }
		const at = r.left + ',' + r.top + ',' + r.width + ',' + r.height;
		const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
		if (at !== window.__at || !hit || !e.contains(hit)) { window.__at = at; window.__settled = 0; return false; }
		return ++window.__settled >= 3;
	})()`, q))
	b.do(chromedp.Click(chromedp.CSS(sel)))
}

// open loads the page at path (with an optional #fragment) at a viewport
// size, light or dark.
func (b *browser) open(path, fragment string, width, height int64, dark bool) {
	b.t.Helper()
	u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
	if !strings.HasPrefix(u, "file:///") { // Windows: file:///C:/…
		u = strings.Replace(u, "file://", "file:///", 1)
	}
	b.page = u
	scheme := "light"
	if dark {
		scheme = "dark"
	}
	b.do(
		chromedp.EmulateViewport(width, height, func(p *emulation.SetDeviceMetricsOverrideParams, _ *emulation.SetTouchEmulationEnabledParams) {
			p.Mobile = width < 600
		}),
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
			return err
		}),
		chromedp.Navigate(u+fragment),
	)
	b.poll(`document.readyState === 'complete' && document.documentElement.classList.contains('js')`)
}

// screenshot saves the viewport as name.png in the artefact folder.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	require.NoError(b.t, err)
	path := filepath.Join(artifactDir(b.t), name+".png")
	require.NoError(b.t, os.WriteFile(path, png, 0o644))
	b.t.Logf("screenshot %s", path)
}

// shownIDs are the ids of the articles the conversation shows, in order
// (those built so far: all of a small session's).
func (b *browser) shownIDs() []string {
	return eval[[]string](b, `Array.from(document.querySelectorAll('#conv article'), a => a.id)`)
}

func pathIDs(s *session.Session, id string) []string {
	var ids []string
	for _, e := range s.Path(id) {
		ids = append(ids, e.ID)
	}
	return ids
}

func TestBrowserRichSession(t *testing.T) {
	b := newBrowser(t)
	s, ids := richSession(t)
	path := filepath.Join(artifactDir(t), "rich.html")
	require.NoError(t, WriteFile(path, s, Options{Generator: "lunar test", RenderCustom: func(m *session.Message) (string, bool) {
		if m.CustomType() != "memory" {
			return "", false
		}
		return "\x1b[1;32m● memory\x1b[0m " + joinText(m.Content), true
	}}))
	pos := func(id string) int {
		return eval[int](b, fmt.Sprintf(`JSON.parse(document.getElementById('tree-data').textContent).ids.indexOf(%q)`, id))
	}

	t.Run("desktop", func(t *testing.T) {
		b.t = t
		b.open(path, "", 1280, 900, false)
		b.poll(`document.querySelectorAll('#tree .row').length > 0`)
		assert.Equal(t, pathIDs(s, ""), b.shownIDs(), "the leaf's conversation first")
		assert.True(t, eval[bool](b, `document.getElementById('to-leaf').disabled`))
		assert.Equal(t, "rgb(246, 247, 249)", eval[string](b, `getComputedStyle(document.body).backgroundColor`))
		b.screenshot("desktop-light")

		// Another branch: the abandoned answer.
		alt := pos(ids["alt"])
		b.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`#tree .row[data-i="%d"]`, alt))))
		b.poll(fmt.Sprintf(`document.getElementById(%q) !== null`, ids["alt"]))
		assert.Equal(t, pathIDs(s, ids["alt"]), b.shownIDs())
		assert.Equal(t, "#"+ids["alt"], eval[string](b, `location.hash`))
		assert.False(t, eval[bool](b, `document.getElementById('to-leaf').disabled`))
		assert.True(t, eval[bool](b, fmt.Sprintf(`document.querySelector('#tree .row[data-i="%d"]').classList.contains('sel')`, alt)))
		b.screenshot("desktop-branch")

		// Back to the leaf.
		b.do(chromedp.Click(chromedp.ID("to-leaf")))
		b.poll(`document.getElementById('to-leaf').disabled`)
		assert.Equal(t, pathIDs(s, ""), b.shownIDs())

		// Entries before the compaction's first kept entry are marked.
		assert.True(t, eval[bool](b, fmt.Sprintf(`document.getElementById(%q).classList.contains('compacted')`, ids["user1"])))
		assert.False(t, eval[bool](b, fmt.Sprintf(`document.getElementById(%q).classList.contains('compacted')`, ids["assistant2"])))

		// A long output expands; thinking opens.
		b.click(`#conv article .long .more`)
		b.poll(`document.querySelector('#conv article .long').classList.contains('open')`)
		b.do(chromedp.Click(chromedp.ID("toggle-thinking")))
		b.poll(`document.querySelector('#conv details.thinking').open`)

		// Search narrows the tree to matching entries.
		b.do(chromedp.SendKeys(chromedp.ID("search"), "rewrite"))
		b.poll(`document.getElementById('tree-status').textContent.includes(' of ')`)
		rows := eval[[]string](b, `Array.from(document.querySelectorAll('#tree .row .txt'), r => r.textContent)`)
		require.NotEmpty(t, rows)
		for _, r := range rows {
			assert.Contains(t, strings.ToLower(r), "rewrite")
		}

		// Nothing injected ran: the hostile texts are text.
		assert.Equal(t, 2, eval[int](b, `document.scripts.length`))
		assert.Contains(t, eval[string](b, fmt.Sprintf(`document.getElementById(%q).textContent`, ids["user1"])), "<script>alert('user')</script>")
		b.noProblems()
	})

	t.Run("deep link", func(t *testing.T) {
		b.t = t
		b.open(path, "#"+ids["alt"], 1280, 900, false)
		b.poll(fmt.Sprintf(`document.getElementById(%q) !== null`, ids["alt"]))
		assert.Equal(t, pathIDs(s, ids["alt"]), b.shownIDs())
		b.noProblems()
	})

	t.Run("desktop dark", func(t *testing.T) {
		b.t = t
		b.open(path, "", 1280, 900, true)
		assert.Equal(t, "rgb(15, 17, 21)", eval[string](b, `getComputedStyle(document.body).backgroundColor`))
		b.screenshot("desktop-dark")
		b.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, document.body.scrollHeight)`))
		b.poll(`window.scrollY > 0`)
		b.screenshot("desktop-dark-end")
		b.noProblems()
	})

	for _, dark := range []bool{false, true} {
		name := map[bool]string{false: "phone light", true: "phone dark"}[dark]
		t.Run(name, func(t *testing.T) {
			b.t = t
			b.open(path, "", 375, 812, dark)
			noHScroll := `document.documentElement.scrollWidth <= window.innerWidth`
			assert.True(t, eval[bool](b, noHScroll), "no horizontal scroll")
			assert.False(t, eval[bool](b, `document.documentElement.classList.contains('side')`), "the tree starts closed")
			shot := strings.ReplaceAll(name, " ", "-")
			b.screenshot(shot)

			// Everything expanded still fits the width.
			b.do(chromedp.Click(chromedp.ID("toggle-tools")), chromedp.Click(chromedp.ID("toggle-thinking")))
			b.poll(`document.querySelector('#conv .long').classList.contains('open')`)
			assert.True(t, eval[bool](b, noHScroll), "no horizontal scroll with outputs expanded")

			// The tree opens over the page; choosing an entry closes it.
			b.do(chromedp.Click(chromedp.ID("side-toggle")))
			b.poll(`document.querySelectorAll('#tree .row').length > 0`)
			b.screenshot(shot + "-tree")
			assert.True(t, eval[bool](b, noHScroll), "no horizontal scroll with the tree open")
			b.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`#tree .row[data-i="%d"]`, pos(ids["alt"])))))
			b.poll(`!document.documentElement.classList.contains('side')`)
			assert.Equal(t, pathIDs(s, ids["alt"]), b.shownIDs())
			b.noProblems()
		})
	}

	t.Run("print", func(t *testing.T) {
		b.t = t
		b.open(path, "", 1280, 900, true)
		b.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print",
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
			return err
		}))
		assert.Equal(t, "none", eval[string](b, `getComputedStyle(document.getElementById('sidebar')).display`))
		assert.Equal(t, "none", eval[string](b, `getComputedStyle(document.getElementById('toolbar')).display`))
		assert.Equal(t, "rgb(255, 255, 255)", eval[string](b, `getComputedStyle(document.body).backgroundColor`), "print is light")
		assert.Equal(t, "none", eval[string](b, `getComputedStyle(document.querySelector('#conv .long > pre')).maxHeight`), "print shows whole outputs")
		b.noProblems()
	})
}

// TestBrowserLargeTree checks that a 10,000-entry session with many
// branches stays quick: the tree draws only the rows in view, and
// choosing an entry deep in it shows its path at once.
func TestBrowserLargeTree(t *testing.T) {
	b := newBrowser(t)
	s := largeSession(t, 10_000, 50)
	path := filepath.Join(artifactDir(t), "large.html")
	require.NoError(t, WriteFile(path, s, Options{}))
	start := time.Now()
	b.open(path, "", 1280, 900, false)
	b.poll(`document.querySelectorAll('#tree .row').length > 0`)
	t.Logf("10,000 entries: page ready in %v (in the page: DOM loaded at %.0f ms)", time.Since(start),
		eval[float64](b, `performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd`))
	assert.Less(t, eval[int](b, `document.querySelectorAll('#tree .row').length`), 200, "only the rows in view exist")
	leafPath := pathIDs(s, "")
	require.Greater(t, len(leafPath), 1000)
	assert.LessOrEqual(t, eval[int](b, `document.querySelectorAll('#conv article').length`), 4*32, "only the articles near the view exist")

	// The end of the conversation is built when it is scrolled to.
	b.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, document.body.scrollHeight)`))
	b.poll(fmt.Sprintf(`document.getElementById(%q) !== null`, leafPath[len(leafPath)-1]))

	// A link into the middle of the path builds its article and scrolls
	// to it.
	mid := leafPath[len(leafPath)/2]
	b.open(path, "#"+mid, 1280, 900, false)
	b.poll(fmt.Sprintf(`(() => { const a = document.getElementById(%q); return a !== null && a.classList.contains('target'); })()`, mid))
	b.poll(fmt.Sprintf(`(() => { const r = document.getElementById(%q).getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight; })()`, mid))

	b.open(path, "", 1280, 900, false)

	// Scroll the tree to the middle; rows there are drawn.
	b.do(chromedp.Evaluate[chromedp.Void](`document.getElementById('tree').scrollTop = 5000 * 22`))
	b.poll(`Array.from(document.querySelectorAll('#tree .row')).some(r => parseInt(r.style.top) >= 5000 * 22)`)
	b.screenshot("large-tree")

	// Choose a row in view and time the switch, in the page.
	ms := eval[float64](b, `(() => {
		const rows = Array.from(document.querySelectorAll('#tree .row'));
		const row = rows[Math.floor(rows.length / 2)];
		const t0 = performance.now();
		row.click();
		const el = document.querySelector('#conv article[data-i="' + row.dataset.i + '"]');
		if (!el) throw new Error('not shown');
		return performance.now() - t0;
	})()`)
	t.Logf("10,000 entries: switching branch took %.1f ms", ms)
	assert.Less(t, ms, 1500.0)
	ms = eval[float64](b, `(() => { const t0 = performance.now(); document.getElementById('to-leaf').click(); return performance.now() - t0; })()`)
	t.Logf("10,000 entries: back to the leaf took %.1f ms", ms)
	assert.Less(t, ms, 1500.0)
	b.noProblems()
}

// TestBrowserWithoutScripts opens the page in a browser that runs no
// scripts: the leaf's conversation is there, the other branches are not.
func TestBrowserWithoutScripts(t *testing.T) {
	b := newBrowser(t)
	s, ids := richSession(t)
	path := filepath.Join(artifactDir(t), "noscript.html")
	require.NoError(t, WriteFile(path, s, Options{}))
	b.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	b.page = (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
	b.do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(b.page))
	b.poll(`document.readyState === 'complete'`)
	assert.False(t, eval[bool](b, `document.documentElement.classList.contains('js')`))
	shown := `Array.from(document.querySelectorAll('article'), a => a).filter(a => a.getClientRects().length > 0).map(a => a.id)`
	assert.Equal(t, pathIDs(s, ""), eval[[]string](b, shown))
	assert.Equal(t, "none", eval[string](b, `getComputedStyle(document.getElementById('sidebar')).display`))
	assert.True(t, eval[bool](b, fmt.Sprintf(`document.getElementById(%q) !== null`, ids["alt"])), "the other branches are in the page, hidden")
	b.screenshot("noscript")
	b.noProblems()
}

// TestBrowserSearchReadsText checks the search against the text each
// article shows (as a browser without scripts parses it), for searches
// cut by tags (highlighted code, emphasis), with escaped characters, and
// for words that are only in the markup.
func TestBrowserSearchReadsText(t *testing.T) {
	b := newBrowser(t)
	s, _ := richSession(t)
	path := filepath.Join(artifactDir(t), "search.html")
	require.NoError(t, WriteFile(path, s, Options{}))
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	d := parse(t, string(raw))
	td, _ := d.tree(t)
	shown := map[int]string{}
	for _, a := range d.all(func(n *html.Node) bool { return n.Data == "article" && hasClass(n, "e") }) {
		i, _ := attr(a, "data-i")
		k, err := strconv.Atoi(i)
		require.NoError(t, err)
		shown[k] = strings.ToLower(text(a))
	}
	require.Len(t, shown, len(td.IDs))
	want := func(q string) []int {
		q = strings.ToLower(q)
		out := []int{}
		for k := range td.IDs {
			if strings.Contains(strings.ToLower(td.Text[k]), q) || strings.Contains(strings.ToLower(td.Labels[strconv.Itoa(k)]), q) || strings.Contains(shown[k], q) {
				out = append(out, k)
			}
		}
		return out
	}

	b.open(path, "", 1280, 900, false)
	for _, q := range []string{
		`fmt.Println("</script>")`, "way: rewrite it", "<retry>", "grep -v '<ok>'", "STOPPED BY THE USER",
		"a\u2028line", "& stuff", "(from a hook)", "Show all 41 lines", "1,523 · out 312",
		"span class", "link to this entry", "data-i", "&amp;", "&#34;",
	} {
		t.Run(q, func(t *testing.T) {
			b.t = t
			// Escape shows every entry again at once; the search then
			// answers after a pause for typing.
			js, _ := json.Marshal(q)
			b.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
				const s = document.getElementById('search');
				s.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape'}));
				s.value = %s;
				s.dispatchEvent(new Event('input'));
			})()`, js)))
			exp := want(q)
			require.Less(t, len(exp), len(td.IDs))
			rows := `Array.from(document.querySelectorAll('#tree .row'), r => +r.dataset.i).sort((a, b) => a - b)`
			expJS, _ := json.Marshal(exp)
			_, _ = chromedp.Run(b.ctx, chromedp.Poll[bool](fmt.Sprintf(`JSON.stringify(%s) === %q`, rows, expJS),
				chromedp.WithPollingTimeout(5*time.Second)))
			assert.Equal(t, exp, eval[[]int](b, rows))
			assert.Equal(t, fmt.Sprintf("%d of %d entries", len(exp), len(td.IDs)), eval[string](b, `document.getElementById('tree-status').textContent`))
		})
	}
	b.t = t
	b.noProblems()
}

// TestBrowserPrintsWholePath prints a conversation longer than what is
// built for the view: printing builds the rest first.
func TestBrowserPrintsWholePath(t *testing.T) {
	b := newBrowser(t)
	s := largeSession(t, 300, 0)
	path := filepath.Join(artifactDir(t), "print.html")
	require.NoError(t, WriteFile(path, s, Options{}))
	b.open(path, "", 1280, 900, false)
	leafPath := pathIDs(s, "")
	require.Less(t, eval[int](b, `document.querySelectorAll('#conv article').length`), len(leafPath))
	b.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, cdppage.PrintToPDF, cdppage.PrintToPDFParams{}) // fires beforeprint
		return err
	}))
	assert.Equal(t, leafPath, b.shownIDs(), "every article of the path")
	b.noProblems()
}

// TestBrowserHarnessSeesProblems shows that the checks above would fail:
// a page that logs an error and loads an image is caught.
func TestBrowserHarnessSeesProblems(t *testing.T) {
	b := newBrowser(t)
	path := filepath.Join(t.TempDir(), "bad.html")
	require.NoError(t, os.WriteFile(path, []byte(`<!DOCTYPE html><html class="js"><body><img src="http://127.0.0.1:9/x.png"><script>console.error("boom")</script></body></html>`), 0o644))
	b.open(path, "", 800, 600, false)
	b.poll(`document.images[0].complete`)
	b.mu.Lock()
	defer b.mu.Unlock()
	joined := strings.Join(b.problems, "\n")
	assert.Contains(t, joined, "request: http://127.0.0.1:9/x.png")
	assert.Contains(t, joined, "console.error: ")
}
