//go:build !linux

package session

// adviseHugePages does nothing outside Linux (see readfile_linux.go).
func adviseHugePages([]byte) {}
