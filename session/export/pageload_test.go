package export

// How soon a large session's page can be used: headless Chromium loads
// the export of a generated session, and the search box is used as soon
// as the page has loaded. The times are the page's own clock, from the
// start of the navigation.

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// pageQuery is in the output of one tool result (turn 123's), in no
// entry's line in the tree: the search has to read every entry's text.
const pageQuery = "TestLexer123/case_7"

// searchAnswer loads the page at path and searches for pageQuery; it
// returns when, in ms since the navigation started, the page's load event
// ended and the tree showed the one entry that matches.
func (b *browser) searchAnswer(path string) (loaded, answered float64) {
	b.t.Helper()
	b.open(path, "", 1280, 900, false)
	loaded = eval[float64](b, `performance.getEntriesByType('navigation')[0].loadEventEnd`)
	b.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const s = document.getElementById('search');
		s.value = %q;
		s.dispatchEvent(new Event('input'));
	})()`, pageQuery)))
	b.poll(`document.getElementById('tree-status').textContent.startsWith('1 of ')`)
	answered = eval[float64](b, `performance.now()`)
	return loaded, answered
}

// bigPage exports a generated session of n entries (a branch every 500)
// into the artefact folder.
func bigPage(tb testing.TB, n int) string {
	tb.Helper()
	s := largeSession(tb, n, 500)
	path := filepath.Join(artifactDir(tb), fmt.Sprintf("big-%d.html", n))
	require.NoError(tb, WriteFile(path, s, Options{}))
	return path
}

// BenchmarkPageSearch times the pages of a 30,000- and a 100,000-entry
// session in headless Chromium, from navigation to the load event's end
// (ms-to-load) and to the first search's answer (ms-to-search):
//
//	go test ./session/export -run '^$' -bench PageSearch -benchtime 3x
func BenchmarkPageSearch(b *testing.B) {
	for _, n := range []int{30_000, 100_000} {
		b.Run(fmt.Sprint(n/1000, "k"), func(b *testing.B) {
			path := bigPage(b, n)
			br := launchBrowser(b, 20*time.Minute) // a page of every article takes minutes
			var loaded, answered float64
			for b.Loop() {
				l, a := br.searchAnswer(path)
				loaded += l
				answered += a
			}
			b.ReportMetric(loaded/float64(b.N), "ms-to-load")
			b.ReportMetric(answered/float64(b.N), "ms-to-search")
			b.ReportMetric(0, "ns/op") // the time of a round is mostly the export's and the browser's start
		})
	}
}
