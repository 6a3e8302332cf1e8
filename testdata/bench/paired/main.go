// Command paired times whole processes in paired rounds: each round runs
// every command once, in a rotating order, so that a busy machine slows
// all of them alike. It prints, per command, the median wall time, the
// median CPU time (user + system), the largest peak RSS, and the median of
// the per-round ratios of wall and CPU time to the first command (the
// floor it is compared with).
//
//	paired [-n ROUNDS] [-w WARMUP] 'label=[VAR=value ...] command args' ...
//
// A command is split on spaces; leading VAR=value words set its
// environment (on top of paired's own). stdout and stderr are discarded
// unless the command fails, which stops the run.
//
// With -pty MARKER each command runs in a pseudo-terminal (TERM=xterm-256color,
// NO_COLOR=1): its wall time is the time from start until MARKER appears
// in its output (e.g. the REPL's first prompt, "\n> "); it is then sent
// Ctrl+D and waited for, and its CPU time and peak RSS are the whole
// process's.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// marker, when set (-pty), is what ends a command's wall time: see the
// package comment.
var marker string

type command struct {
	label string
	env   []string
	argv  []string

	wall, cpu []time.Duration
	rss       int64 // KiB
}

func main() {
	rounds := flag.Int("n", 21, "rounds (each runs every command once)")
	warmup := flag.Int("w", 2, "warm-up rounds, not counted")
	flag.StringVar(&marker, "pty", "", "run in a pseudo-terminal; wall time ends when this text appears (\\n: newline)")
	flag.Parse()
	marker = strings.ReplaceAll(marker, `\n`, "\n")
	var cmds []*command
	for _, spec := range flag.Args() {
		label, line, ok := strings.Cut(spec, "=")
		if !ok {
			fmt.Fprintf(os.Stderr, "paired: %q: want label=command\n", spec)
			os.Exit(2)
		}
		c := &command{label: label}
		for _, w := range strings.Fields(line) {
			if len(c.argv) == 0 && strings.Contains(w, "=") {
				c.env = append(c.env, w)
				continue
			}
			c.argv = append(c.argv, w)
		}
		cmds = append(cmds, c)
	}
	if len(cmds) == 0 {
		fmt.Fprintln(os.Stderr, "paired: no commands")
		os.Exit(2)
	}
	for r := range *warmup + *rounds {
		for i := range cmds {
			c := cmds[(i+r)%len(cmds)]
			wall, cpu, rss, err := c.run()
			if err != nil {
				fmt.Fprintf(os.Stderr, "paired: %s: %v\n", c.label, err)
				os.Exit(1)
			}
			if r >= *warmup {
				c.wall = append(c.wall, wall)
				c.cpu = append(c.cpu, cpu)
				c.rss = max(c.rss, rss)
			}
		}
	}
	base := cmds[0]
	fmt.Printf("%-22s %10s %10s %9s %10s %10s\n", "command", "wall", "cpu", "peak-RSS", "wall/"+base.label, "cpu/"+base.label)
	for _, c := range cmds {
		fmt.Printf("%-22s %8.1fms %8.1fms %7.1fMB %9.2fx %9.2fx\n", c.label,
			ms(median(c.wall)), ms(median(c.cpu)), float64(c.rss)/1024,
			medianRatio(c.wall, base.wall), medianRatio(c.cpu, base.cpu))
	}
}

func (c *command) run() (wall, cpu time.Duration, rssKiB int64, err error) {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Env = append(os.Environ(), c.env...)
	if marker != "" {
		return c.runPTY(cmd)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("%v\n%s", err, out.Bytes())
	}
	cpu, rssKiB = usage(cmd.ProcessState)
	return wall, cpu, rssKiB, nil
}

// runPTY runs cmd in a pseudo-terminal until marker appears, then sends
// Ctrl+D and waits for it to exit.
func (c *command) runPTY(cmd *exec.Cmd) (wall, cpu time.Duration, rssKiB int64, err error) {
	cmd.Env = append(cmd.Env, "TERM=xterm-256color", "NO_COLOR=1")
	start := time.Now()
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		return 0, 0, 0, err
	}
	defer tty.Close()
	var out bytes.Buffer
	buf := make([]byte, 4096)
	_ = tty.SetReadDeadline(time.Now().Add(15 * time.Second))
	for !bytes.Contains(out.Bytes(), []byte(marker)) {
		n, rerr := tty.Read(buf)
		out.Write(buf[:n])
		if rerr != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return 0, 0, 0, fmt.Errorf("waiting for %q: %v\n%s", marker, rerr, out.Bytes())
		}
	}
	wall = time.Since(start)
	tty.Write([]byte{4}) // Ctrl+D
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	go func() { // drain, so that the process never blocks writing
		for {
			if _, err := tty.Read(buf); err != nil {
				return
			}
		}
	}()
	select {
	case err = <-done:
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		err = errors.Join(errors.New("did not exit after Ctrl+D"), <-done)
	}
	if err != nil {
		return 0, 0, 0, fmt.Errorf("%v\n%s", err, out.Bytes())
	}
	cpu, rssKiB = usage(cmd.ProcessState)
	return wall, cpu, rssKiB, nil
}

// usage is an exited process's CPU time (user + system) and peak RSS.
func usage(ps *os.ProcessState) (cpu time.Duration, rssKiB int64) {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		rssKiB = ru.Maxrss
	}
	return ps.UserTime() + ps.SystemTime(), rssKiB
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// medianRatio is the median of the per-round ratios a[i]/b[i].
func medianRatio(a, b []time.Duration) float64 {
	r := make([]float64, len(a))
	for i := range a {
		r[i] = float64(a[i]) / float64(max(b[i], 1))
	}
	slices.Sort(r)
	return r[len(r)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
