//go:build !linux

package lua_test

import "testing"

const canLimitAddressSpace = false

func limitAddressSpace(*testing.T, uint64) {}

// mkfifo: no FIFO case outside Linux.
func mkfifo(t *testing.T, path string) { t.Logf("no FIFO for %s on this system", path) }
