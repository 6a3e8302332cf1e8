//go:build !unix

package tools

// openNoBlock: opening never waits for the other end here.
const openNoBlock = 0
