// Package initialisation of the binary, as GODEBUG=inittrace=1 reports
// it: what every lunar process pays before main, --version included.

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// initBudget bounds the allocations of all package initialisation: 7,925
// today, of which goldmark/extension's linkify and table regexps, compiled
// at its init, are 2,050 (4,880 while lunar carried a copy of it that
// compiled them on first use; 8,149 when lunar's own packages compiled
// regexps and a CRC table at init too), and the official MCP SDK's
// packages about 890 (its mcp package, the encoding/gob it imports,
// google/jsonschema-go: ~0.5 ms; Go cannot defer the init of a linked
// package, and lunar without MCP servers was 7,033). The ~7% headroom is
// for a dependency upgrade; more is a question for an issue, not a fork.
const initBudget = 8500

// ownInitBudget bounds the allocations of the init of each of lunar's own
// packages: tables of functions, no regexps or computed data (the lua
// package, the largest, makes 143 today; 1,133 with its regexps).
const ownInitBudget = 250

type pkgInit struct {
	pkg    string
	allocs int
}

// packageInits runs lunar --version with inittrace and returns the inits
// in the order they ran.
func packageInits(t *testing.T) []pkgInit {
	t.Helper()
	cmd := exec.Command(lunarBin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	var inits []pkgInit
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != "init" || f[len(f)-1] != "allocs" {
			continue
		}
		n, err := strconv.Atoi(f[len(f)-2])
		require.NoError(t, err, sc.Text())
		inits = append(inits, pkgInit{pkg: f[1], allocs: n})
	}
	require.NotEmpty(t, inits, "no inittrace lines in:\n%s", stderr.String())
	return inits
}

func TestPackageInit(t *testing.T) {
	inits := packageInits(t)
	index := func(pkg string) int {
		return slices.IndexFunc(inits, func(i pkgInit) bool { return i.pkg == pkg })
	}

	// The main goroutine's stack is grown before the inits that recurse
	// deeply (agent/internal/startstack).
	grow := index("github.com/lunar-cli/lunar/agent/internal/startstack")
	require.GreaterOrEqual(t, grow, 0)
	for _, deep := range []string{"github.com/yuin/goldmark/util", "github.com/yuin/goldmark/parser", "github.com/yuin/goldmark/extension", "go.yaml.in/yaml/v4"} {
		if i := index(deep); i >= 0 {
			assert.Less(t, grow, i, "startstack initialised after %s", deep)
		}
	}

	total := 0
	for _, i := range inits {
		total += i.allocs
		if i.pkg == "main" || strings.HasPrefix(i.pkg, "github.com/lunar-cli/lunar/") {
			assert.Less(t, i.allocs, ownInitBudget, "allocations of the init of %s", i.pkg)
		}
	}
	if !assert.Less(t, total, initBudget, "allocations of package initialisation") {
		sorted := slices.Clone(inits)
		sort.Slice(sorted, func(a, b int) bool { return sorted[a].allocs > sorted[b].allocs })
		var top strings.Builder
		for _, i := range sorted[:min(15, len(sorted))] {
			fmt.Fprintf(&top, "%6d %s\n", i.allocs, i.pkg)
		}
		t.Logf("largest:\n%s", top.String())
	}
}
