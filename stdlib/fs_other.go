//go:build !unix

package stdlib

// openNoBlock: no non-blocking open outside Unix (no FIFOs to wait on).
const openNoBlock = 0
