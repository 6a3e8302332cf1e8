package lua_test

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

const canLimitAddressSpace = true

// limitAddressSpace caps the process's address space at what it maps now
// plus extra bytes: past it allocations fail and Go aborts with "out of
// memory" instead of taking the machine's memory.
func limitAddressSpace(t *testing.T, extra uint64) {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	var vm uint64
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmSize:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			require.NoError(t, err)
			vm = kb << 10
		}
	}
	require.NotZero(t, vm)
	lim := &syscall.Rlimit{Cur: vm + extra, Max: vm + extra}
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_AS, lim))
}

// mkfifo creates a named pipe.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, syscall.Mkfifo(path, 0o644))
}
