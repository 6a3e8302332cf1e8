package tools

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// FormatSize answers as pi's formatSize for sizes around every rounding
// edge (skipped without pi and node).
func TestFormatSizeMatchesPi(t *testing.T) {
	dir := llmtest.PiDir(t)
	var sizes []int
	for _, base := range []int{0, 1024, 1024 * 1024} {
		for _, k := range []int{0, 1, 2, 5, 10, 99, 1023} {
			for _, d := range []int{-52, -51, -1, 0, 1, 51, 52, 102, 103} {
				if n := base*k + d + base/20; n >= 0 {
					sizes = append(sizes, n, base*k+d)
				}
			}
		}
	}
	sizes = append(sizes, 1280, 1331, 51200, 1048575, 1572864, 2147483647)
	var list []string
	for _, n := range sizes {
		if n >= 0 {
			list = append(list, strconv.Itoa(n))
		}
	}
	script := `import(process.argv[1]).then(m => console.log(JSON.stringify(JSON.parse(process.argv[2]).map(m.formatSize))))`
	out, err := exec.Command("node", "-e", script, "file://"+filepath.Join(dir, "dist", "core", "tools", "truncate.js"), "["+strings.Join(list, ",")+"]").Output()
	require.NoError(t, err)
	var want []string
	require.NoError(t, json.Unmarshal(out, &want))
	require.Len(t, want, len(list))
	for i, s := range list {
		n, _ := strconv.Atoi(s)
		assert.Equal(t, want[i], FormatSize(n), "%d bytes", n)
	}
}
