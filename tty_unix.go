//go:build unix

package main

import (
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// readCtrlCAsKey turns the terminal's signal keys off (ISIG) so Ctrl+C
// arrives as a key the input filter routes, instead of a SIGINT.
func readCtrlCAsKey(fd int) {
	if tio, err := unix.IoctlGetTermios(fd, ioctlGetTermios); err == nil {
		tio.Lflag &^= unix.ISIG
		unix.IoctlSetTermios(fd, ioctlSetTermios, tio)
	}
}

// pausableInput reads the keyboard for the input filter and can stop
// doing so while another program (an editor) reads it: a read waits in
// poll on the terminal and on a wake-up pipe, so pause can take the
// reader off the terminal before the program starts.
type pausableInput struct {
	f            *os.File
	wakeR, wakeW *os.File

	mu      sync.Mutex
	paused  bool
	parked  chan struct{} // the reader stopped (paused)
	resumed chan struct{} // closed by resume
}

func newPausableInput(f *os.File) io.Reader {
	r, w, err := os.Pipe()
	if err != nil {
		return f
	}
	return &pausableInput{f: f, wakeR: r, wakeW: w}
}

// Read waits until the terminal has input (and the input is not paused),
// then reads it.
func (p *pausableInput) Read(b []byte) (int, error) {
	for {
		p.mu.Lock()
		if p.paused {
			parked, resumed := p.parked, p.resumed
			p.mu.Unlock()
			close(parked)
			<-resumed
			continue
		}
		p.mu.Unlock()
		fds := []unix.PollFd{{Fd: int32(p.f.Fd()), Events: unix.POLLIN}, {Fd: int32(p.wakeR.Fd()), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return p.f.Read(b)
		}
		if fds[1].Revents != 0 {
			var drain [16]byte
			p.wakeR.Read(drain[:])
			continue
		}
		return p.f.Read(b)
	}
}

// pause takes the reader off the terminal and returns once it is off
// (or at once when no read is under way: the next one waits).
func (p *pausableInput) pause() {
	p.mu.Lock()
	p.paused = true
	p.parked = make(chan struct{})
	p.resumed = make(chan struct{})
	parked := p.parked
	p.mu.Unlock()
	p.wakeW.Write([]byte{0})
	<-parked
}

// resume lets the reader read the terminal again.
func (p *pausableInput) resume() {
	p.mu.Lock()
	p.paused = false
	close(p.resumed)
	p.mu.Unlock()
}

// pendingInput is the number of bytes waiting to be read from the
// terminal fd.
func pendingInput(fd int) int {
	n, err := unix.IoctlGetInt(fd, ioctlPendingInput)
	if err != nil {
		return 0
	}
	return n
}
