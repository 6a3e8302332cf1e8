package compaction

// The differential test: pi 0.73.1's own compaction code
// (testdata/pi_compaction.mjs, run with node) and this package on the same
// session files — the real pi sessions of the shared fixtures (migrated to
// v3 by lunar), session/testdata/pi-v3.jsonl and synthetic tool-heavy
// trees — at many leaves and keepRecentTokens values. Skipped when node or
// the pi package is missing (CI has no npm). LUNAR_PI_DIR names the
// package folder when it is not under `npm root -g`; LUNAR_PI_FULL=1 makes
// the helper send whole texts instead of their hashes, for debugging.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/session"
)

const piVersion = llmtest.PiVersion

// piDir returns the folder of the pi package, or skips the test.
func piDir(t *testing.T) string { return llmtest.PiDir(t) }

// The request and answer of testdata/pi_compaction.mjs.
type (
	piRequest struct {
		Full     bool             `json:"full"`
		Prepare  []piPrepareCase  `json:"prepare"`
		Branch   []piBranchCase   `json:"branch"`
		Overflow []piOverflowCase `json:"overflow"`
	}
	piPrepareCase struct {
		File         string `json:"file"`
		Leaf         string `json:"leaf"`
		Keep         int    `json:"keep"`
		Reserve      int    `json:"reserve"`
		Compact      bool   `json:"compact"`
		Instructions string `json:"instructions"`
	}
	piBranchCase struct {
		File         string `json:"file"`
		OldLeaf      string `json:"oldLeaf"`
		Target       string `json:"target"`
		Window       int    `json:"window"`
		Instructions string `json:"instructions"`
	}
	piOverflowCase struct {
		Message json.RawMessage `json:"message"`
		Window  int             `json:"window"`
	}
	piCall struct {
		Prompt    string `json:"prompt"`
		MaxTokens int    `json:"maxTokens"`
		Reasoning bool   `json:"reasoning"`
	}
	piFileOps struct {
		Read    []string `json:"read"`
		Written []string `json:"written"`
		Edited  []string `json:"edited"`
	}
	piPrepared struct {
		Undefined        bool      `json:"undefined"`
		Start            *int      `json:"start"`
		Cut              *piCut    `json:"cut"`
		FirstKeptEntryID string    `json:"firstKeptEntryId"`
		IsSplitTurn      bool      `json:"isSplitTurn"`
		TokensBefore     int       `json:"tokensBefore"`
		PreviousSummary  string    `json:"previousSummary"`
		Summarize        int       `json:"summarize"`
		Prefix           int       `json:"prefix"`
		SummarizeRoles   string    `json:"summarizeRoles"`
		PrefixRoles      string    `json:"prefixRoles"`
		SummarizeText    string    `json:"summarizeText"`
		PrefixText       string    `json:"prefixText"`
		FileOps          piFileOps `json:"fileOps"`
		Compact          *struct {
			Calls            []piCall        `json:"calls"`
			Summary          string          `json:"summary"`
			FirstKeptEntryID string          `json:"firstKeptEntryId"`
			TokensBefore     int             `json:"tokensBefore"`
			Details          json.RawMessage `json:"details"`
		} `json:"compact"`
	}
	piBranched struct {
		Entries       []string  `json:"entries"`
		Messages      int       `json:"messages"`
		Roles         string    `json:"roles"`
		Text          string    `json:"text"`
		FileOps       piFileOps `json:"fileOps"`
		Summary       string    `json:"summary"`
		ReadFiles     []string  `json:"readFiles"`
		ModifiedFiles []string  `json:"modifiedFiles"`
		Calls         []piCall  `json:"calls"`
	}
	piAnswer struct {
		Prepare  []piPrepared `json:"prepare"`
		Branch   []piBranched `json:"branch"`
		Overflow []bool       `json:"overflow"`
	}
)

// piCut is pi's CutPointResult.
type piCut struct {
	FirstKeptEntryIndex int  `json:"firstKeptEntryIndex"`
	TurnStartIndex      int  `json:"turnStartIndex"`
	IsSplitTurn         bool `json:"isSplitTurn"`
}

func runPi(t *testing.T, dir string, req *piRequest) *piAnswer {
	t.Helper()
	data, err := json.Marshal(req)
	require.NoError(t, err)
	reqFile := filepath.Join(t.TempDir(), "request.json")
	require.NoError(t, os.WriteFile(reqFile, data, 0o644))
	cmd := exec.Command("node", filepath.Join("testdata", "pi_compaction.mjs"), dir, reqFile)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "node: %s", stderr.String())
	var ans piAnswer
	require.NoError(t, json.Unmarshal(out, &ans))
	return &ans
}

// diffSessions are the session files of the differential test, copied
// into a temporary folder (v1 fixtures migrated there by lunar), with
// short names for messages.
func diffSessions(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{}
	copyIn := func(src, name string) string {
		data, err := os.ReadFile(src)
		require.NoError(t, err)
		dst := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(dst, data, 0o644))
		return dst
	}
	for _, name := range []string{"before-compaction.jsonl", "large-session.jsonl"} {
		src := filepath.Join(fixturesDir(t), name)
		dst := copyIn(src, name)
		s, err := session.Open(dst) // migrates v1 → v3 in place (a backup is kept beside it)
		require.NoError(t, err)
		require.NoError(t, s.Close())
		files[dst] = name
	}
	files[copyIn(filepath.Join("..", "..", "session", "testdata", "pi-v3.jsonl"), "pi-v3.jsonl")] = "pi-v3.jsonl"
	for i, f := range generated(t) {
		files[f] = fmt.Sprintf("synthetic-%d", i+1)
	}
	maps.Copy(files, crafted(t))
	return files
}

// fixturesDir is the folder of the real pi v1 sessions: the shared
// fixtures, else the copies in session/testdata.
func fixturesDir(t *testing.T) string {
	for _, d := range []string{"/work/shared/fixtures/pi-v1", filepath.Join("..", "..", "session", "testdata", "pi-v1")} {
		if _, err := os.Stat(filepath.Join(d, "large-session.jsonl")); err == nil {
			return d
		}
	}
	t.Skip("no pi v1 fixtures")
	return ""
}

// pickLeaves chooses about n entries of s spread over the file (and its
// last entry) as leaves.
func pickLeaves(s *session.Session, n int, r *rand.Rand) []string {
	all := s.Entries()
	var ids []string
	step := max(1, len(all)/n)
	for i := r.IntN(step); i < len(all); i += step {
		ids = append(ids, all[i].ID)
	}
	if last := all[len(all)-1].ID; !slices.Contains(ids, last) {
		ids = append(ids, last)
	}
	return ids
}

// sameText compares a text (or its hash) with pi's, showing where whole
// texts first differ.
func sameText(t *testing.T, want, got, msg string, args ...any) {
	t.Helper()
	if want == got {
		return
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	lo := max(0, i-80)
	assert.Fail(t, fmt.Sprintf(msg, args...), "first difference at byte %d:\npi:    %q\nlunar: %q", i, want[lo:min(len(want), i+80)], got[lo:min(len(got), i+80)])
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// roles is what the helper reports of a message list: role@timestamp.
func roles(msgs []session.Message) string {
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		parts[i] = m.Role + "@" + strconv.FormatInt(m.Timestamp, 10)
	}
	return strings.Join(parts, ",")
}

func sortedKeys(m map[string]bool) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, compareUTF16)
	return out
}

// placeholders turns lunar's prompts into the helper's placeholders for
// pi's, which are worded differently.
func placeholders(text string) string {
	for _, p := range []struct{ kind, prompt string }{
		{"initial", compactionPrompt}, {"update", updatePrompt}, {"prefix", turnPrefixPrompt}, {"branch", branchSummaryPrompt},
	} {
		if i := strings.LastIndex(text, p.prompt); i >= 0 {
			return text[:i] + "<<PROMPT:" + p.kind + ">>" + text[i+len(p.prompt):]
		}
	}
	return text
}

// recorder is a Completer that answers like the helper's fake model and
// records the calls as the helper reports them. Compaction asks for its
// two summaries concurrently, hence the lock.
type recorder struct {
	full  bool
	mu    sync.Mutex
	calls []piCall
}

func (r *recorder) complete(_ context.Context, req Request) (string, error) {
	prompt := placeholders(req.Messages[0].Text())
	if !r.full {
		prompt = sha(prompt)
	}
	if req.System != SystemPrompt {
		return "", errors.New("wrong system prompt")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, piCall{Prompt: prompt, MaxTokens: req.MaxTokens, Reasoning: req.Reasoning})
	slices.SortStableFunc(r.calls, func(a, b piCall) int { return b.MaxTokens - a.MaxTokens })
	return fmt.Sprintf("summary(%d)", req.MaxTokens), nil
}

func TestDifferentialPi(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pi with node for a few seconds")
	}
	dir := piDir(t)
	files := diffSessions(t)
	r := rand.New(rand.NewPCG(7, 11))
	req := &piRequest{Full: os.Getenv("LUNAR_PI_FULL") == "1"}
	keeps := []int{0, 700, 3000, 10000, 20000, 60000}
	loaded := map[string]*session.Session{}
	var names []string
	for f := range files {
		names = append(names, f)
	}
	slices.Sort(names)
	for _, f := range names {
		s, err := session.Load(f)
		require.NoError(t, err)
		loaded[f] = s
		for _, leaf := range pickLeaves(s, 20, r) {
			for _, keep := range keeps {
				req.Prepare = append(req.Prepare, piPrepareCase{File: f, Leaf: leaf, Keep: keep, Reserve: 16384})
			}
		}
		for i, leaf := range pickLeaves(s, 6, r) {
			req.Prepare = append(req.Prepare, piPrepareCase{File: f, Leaf: leaf, Keep: keeps[1+r.IntN(len(keeps)-1)],
				Reserve: 10000 + r.IntN(20000), Compact: true, Instructions: []string{"", "keep the API names"}[i%2]})
		}
		all := s.Entries()
		for i := range 16 {
			c := piBranchCase{File: f, OldLeaf: all[r.IntN(len(all))].ID, Target: all[r.IntN(len(all))].ID,
				Window: []int{20000, 40000, 128000}[i%3], Instructions: []string{"", "what broke"}[i%2]}
			req.Branch = append(req.Branch, c)
		}
	}
	req.Overflow = overflowCases(t)

	start := time.Now()
	ans := runPi(t, dir, req)
	t.Logf("pi took %v", time.Since(start))
	require.Len(t, ans.Prepare, len(req.Prepare))
	require.Len(t, ans.Branch, len(req.Branch))
	require.Len(t, ans.Overflow, len(req.Overflow))

	var stats struct{ agreed, split, undefined, nothing, compacted, keptPrevious, branches, emptyBranches int }
	for i, c := range req.Prepare {
		want := ans.Prepare[i]
		name := fmt.Sprintf("%s leaf %s keep %d", files[c.File], c.Leaf, c.Keep)
		checkPrepare(t, req.Full, loaded[c.File], c, &want, name, &stats.nothing, &stats.keptPrevious)
		switch {
		case want.Undefined:
			stats.undefined++
		default:
			stats.agreed++
			if want.IsSplitTurn {
				stats.split++
			}
			if want.Compact != nil {
				stats.compacted++
			}
		}
	}
	for i, c := range req.Branch {
		want := ans.Branch[i]
		name := fmt.Sprintf("%s branch %s→%s window %d", files[c.File], c.OldLeaf, c.Target, c.Window)
		checkBranch(t, req.Full, loaded[c.File], c, &want, name)
		stats.branches++
		if want.Messages == 0 {
			stats.emptyBranches++
		}
	}
	for i, c := range req.Overflow {
		var m session.Message
		require.NoError(t, json.Unmarshal(c.Message, &m))
		assert.Equal(t, ans.Overflow[i], IsContextOverflow(&m, c.Window), "overflow case %d: %s", i, c.Message)
	}
	t.Logf("%d cases: pi and lunar agree on %d preparations (%d split turns, %d compacted; lunar refuses %d with nothing to summarise and keeps the previous summary in %d), both refuse %d; %d branch summaries (%d empty); %d overflow checks",
		len(req.Prepare), stats.agreed, stats.split, stats.compacted, stats.nothing, stats.keptPrevious, stats.undefined, stats.branches, stats.emptyBranches, len(req.Overflow))
}

func checkPrepare(t *testing.T, full bool, s *session.Session, c piPrepareCase, want *piPrepared, name string, nothing, keptPrevious *int) {
	t.Helper()
	text := func(s string) string {
		if full {
			return s
		}
		return sha(s)
	}
	path := s.Path(c.Leaf)
	if want.Start != nil {
		require.NotNil(t, want.Cut, name)
		got := FindCutPoint(path, *want.Start, len(path), c.Keep)
		assert.Equal(t, *want.Cut, piCut{got.FirstKeptIndex, got.TurnStartIndex, got.IsSplitTurn}, "%s: cut point", name)
	}
	settings := Settings{Enabled: true, ReserveTokens: c.Reserve, KeepRecentTokens: c.Keep}
	p, err := prepare(path, settings)
	if want.Undefined {
		if len(path) > 0 && path[len(path)-1].Type == session.TypeCompaction {
			assert.ErrorIs(t, err, ErrAlreadyCompacted, name)
		} else {
			assert.ErrorIs(t, err, ErrNothingToCompact, name)
		}
		return
	}
	if errors.Is(err, ErrNothingToCompact) {
		// pi goes on and summarises nothing; the rest must agree.
		require.NotNil(t, p, name)
		assert.Zero(t, want.Summarize+want.Prefix, "%s: lunar found nothing to compact", name)
		*nothing++
	} else {
		require.NoError(t, err, name)
	}
	assert.Equal(t, want.FirstKeptEntryID, p.FirstKeptEntryID, "%s: firstKeptEntryId", name)
	assert.Equal(t, want.IsSplitTurn, p.IsSplitTurn, "%s: isSplitTurn", name)
	assert.Equal(t, want.TokensBefore, p.TokensBefore, "%s: tokensBefore", name)
	assert.Equal(t, want.PreviousSummary, p.PreviousSummary, "%s: previousSummary", name)
	assert.Equal(t, want.Summarize, len(p.MessagesToSummarize), "%s: messagesToSummarize", name)
	assert.Equal(t, want.Prefix, len(p.TurnPrefixMessages), "%s: turnPrefixMessages", name)
	sameText(t, want.SummarizeRoles, text(roles(p.MessagesToSummarize)), "%s: messagesToSummarize roles", name)
	sameText(t, want.PrefixRoles, text(roles(p.TurnPrefixMessages)), "%s: turnPrefixMessages roles", name)
	sameText(t, want.SummarizeText, text(SerializeConversation(session.ConvertToLLM(p.MessagesToSummarize))), "%s: serialised history", name)
	sameText(t, want.PrefixText, text(SerializeConversation(session.ConvertToLLM(p.TurnPrefixMessages))), "%s: serialised prefix", name)
	assert.Equal(t, want.FileOps, piFileOps{sortedKeys(p.FileOps.Read), sortedKeys(p.FileOps.Written), sortedKeys(p.FileOps.Edited)}, "%s: fileOps", name)
	if want.Compact == nil || err != nil {
		return
	}

	rec := &recorder{full: full}
	res, err := Compact(context.Background(), p, c.Instructions, rec.complete)
	require.NoError(t, err, name)
	assert.Equal(t, want.Compact.FirstKeptEntryID, res.FirstKeptEntryID, name)
	assert.Equal(t, want.Compact.TokensBefore, res.TokensBefore, name)
	assert.JSONEq(t, string(want.Compact.Details), string(res.Details), "%s: details", name)
	if p.IsSplitTurn && len(p.MessagesToSummarize) == 0 && p.PreviousSummary != "" {
		// lunar keeps the previous summary where pi writes "No prior history.".
		split := "\n\n---\n\n**Turn Context (split turn):**\n\n" + fmt.Sprintf("summary(%d)", c.Reserve/2) + FormatFileOps(p.FileOps.Lists())
		sameText(t, want.Compact.Summary, text(NoPriorHistory+split), "%s: pi's summary", name)
		assert.Equal(t, stripFileLists(p.PreviousSummary)+split, res.Summary, name)
		*keptPrevious++
		return
	}
	assert.Equal(t, want.Compact.Calls, rec.calls, "%s: summary calls", name)
	sameText(t, want.Compact.Summary, text(res.Summary), "%s: summary", name)
}

func checkBranch(t *testing.T, full bool, s *session.Session, c piBranchCase, want *piBranched, name string) {
	t.Helper()
	text := func(s string) string {
		if full {
			return s
		}
		return sha(s)
	}
	entries := BranchEntries(s, c.OldLeaf, c.Target)
	ids := []string{}
	for _, e := range entries {
		ids = append(ids, e.ID)
	}
	assert.Equal(t, want.Entries, ids, "%s: entries", name)
	msgs, ops := PrepareBranch(entries, c.Window-BranchSummaryReserveTokens)
	assert.Equal(t, want.Messages, len(msgs), "%s: messages", name)
	sameText(t, want.Roles, text(roles(msgs)), "%s: roles", name)
	sameText(t, want.Text, text(SerializeConversation(session.ConvertToLLM(msgs))), "%s: serialised", name)
	assert.Equal(t, want.FileOps, piFileOps{sortedKeys(ops.Read), sortedKeys(ops.Written), sortedKeys(ops.Edited)}, "%s: fileOps", name)

	rec := &recorder{full: full}
	summary, details, err := BranchSummary(context.Background(), entries, c.Window, c.Instructions, rec.complete)
	require.NoError(t, err, name)
	if want.Messages == 0 {
		assert.Empty(t, summary, "%s: pi said \"No content to summarize\"", name)
		assert.Empty(t, rec.calls, name)
		return
	}
	sameText(t, want.Summary, text(summary), "%s: summary", name)
	assert.Equal(t, want.Calls, rec.calls, "%s: calls", name)
	var d struct{ ReadFiles, ModifiedFiles []string }
	require.NoError(t, json.Unmarshal(details, &d))
	assert.Equal(t, want.ReadFiles, d.ReadFiles, name)
	assert.Equal(t, want.ModifiedFiles, d.ModifiedFiles, name)
}

// overflowCases are assistant messages for pi's isContextOverflow and
// IsContextOverflow, in pi's message JSON.
func overflowCases(t *testing.T) []piOverflowCase {
	t.Helper()
	errMsg := func(text string) *session.Message {
		return &session.Message{Role: session.RoleAssistant, StopReason: session.StopError,
			Usage: &session.Usage{},
			Extra: &session.MessageExtra{ErrorMessage: text}}
	}
	usage := func(stop string, input, cacheRead, output int) *session.Message {
		return &session.Message{Role: session.RoleAssistant, StopReason: stop,
			Usage: &session.Usage{Input: input, CacheRead: cacheRead, Output: output}}
	}
	msgs := []struct {
		m      *session.Message
		window int
	}{
		{errMsg("prompt is too long: 213462 tokens > 200000 maximum"), 0},
		{errMsg(`413 {"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}`), 0},
		{errMsg("Your input exceeds the context window of this model"), 0},
		{errMsg("The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)"), 0},
		{errMsg("This model's maximum prompt length is 131072 but the request contains 537812 tokens"), 0},
		{errMsg("Please reduce the length of the messages or completion"), 0},
		{errMsg("This endpoint's maximum context length is 8192 tokens. However, you requested about 9000 tokens"), 0},
		{errMsg("the request exceeds the available context size, try increasing it"), 0},
		{errMsg("tokens to keep from the initial prompt is greater than the context length"), 0},
		{errMsg("prompt token count of 140000 exceeds the limit of 128000"), 0},
		{errMsg("invalid params, context window exceeds limit"), 0},
		{errMsg("Your request exceeded model token limit: 262144 (requested: 300000)"), 0},
		{errMsg("Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length"), 0},
		{errMsg("model_context_window_exceeded"), 0},
		{errMsg("prompt too long; exceeded max context length by 1200 tokens"), 0},
		{errMsg("context_length_exceeded"), 0},
		{errMsg("Input is too long for requested model."), 0},
		{errMsg("400 status code (no body)"), 0},
		{errMsg("413 (no body)"), 0},
		{errMsg("ThrottlingException: Too many tokens, please wait before trying again."), 0},
		{errMsg("Rate limit reached: too many tokens per minute"), 0},
		{errMsg("Throttling error: too many tokens"), 0},
		{errMsg("Too many requests: token limit exceeded"), 0},
		{errMsg("overloaded"), 0},
		{errMsg(""), 0},
		{usage(session.StopStop, 120000, 9000, 10), 128000},
		{usage(session.StopStop, 120000, 8000, 10), 128000},
		{usage(session.StopStop, 120000, 9000, 10), 0},
		{usage(session.StopLength, 126720, 0, 0), 128000},
		{usage(session.StopLength, 126719, 0, 0), 128000},
		{usage(session.StopLength, 127000, 0, 1), 128000},
		{usage(session.StopToolUse, 200000, 0, 0), 128000},
		{usage(session.StopError, 200000, 0, 0), 128000},
	}
	var out []piOverflowCase
	for _, c := range msgs {
		c.m.Content = []session.ContentBlock{}
		data, err := json.Marshal(c.m)
		require.NoError(t, err)
		out = append(out, piOverflowCase{Message: data, Window: c.window})
	}
	return out
}
