package llmtest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// PiVersion is the pi release lunar's differential tests compare with.
const PiVersion = "0.73.1"

// PiDir returns the folder of the installed pi package (npm's global
// root, or $LUNAR_PI_DIR) for tests that call pi's own functions through
// node, or skips the test when node or pi PiVersion is not there.
func PiDir(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	dir := os.Getenv("LUNAR_PI_DIR")
	if dir == "" {
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Skip("npm is not installed and LUNAR_PI_DIR is not set")
		}
		out, err := exec.Command(npm, "root", "-g").Output()
		if err != nil {
			t.Skipf("npm root -g: %v (set LUNAR_PI_DIR)", err)
		}
		dir = filepath.Join(strings.TrimSpace(string(out)), "@mariozechner", "pi-coding-agent")
	}
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Skipf("pi is not installed (%v); npm i -g @mariozechner/pi-coding-agent@%s", err, PiVersion)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatalf("%s: %v", filepath.Join(dir, "package.json"), err)
	}
	if pkg.Version != PiVersion {
		t.Skipf("pi %s installed; the baseline is %s", pkg.Version, PiVersion)
	}
	return dir
}
