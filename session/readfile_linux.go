package session

import "syscall"

// adviseHugePages asks Linux to back b with huge pages where it can. A
// large session file is read into one buffer: with 2 MB pages, faulting
// it in costs a few dozen page faults instead of tens of thousands (and
// about a third of resuming a 128 MiB session's time). The buffer is used
// whole, so it takes no more memory; the advice stays on the address
// range after the buffer is freed, which only makes later faults there
// cheaper too.
func adviseHugePages(b []byte) {
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // a hint: errors change nothing
}
