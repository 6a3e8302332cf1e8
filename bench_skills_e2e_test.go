//go:build unix

// Start-up cost of the bundled skills hook: a one-shot answer with no
// skills folder and with 50 skills in the config folder (each run reads
// and checks every SKILL.md and builds the system-prompt block). The
// paired view: testdata/bench/paired with the same two homes.
//
//	go test -run '^$' -bench Skills -benchtime 20x .
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

func BenchmarkStartupSkills(b *testing.B) {
	for _, n := range []int{0, 50} {
		b.Run(fmt.Sprintf("skills-%d", n), func(b *testing.B) {
			be := newBenchEnv(b)
			be.srv.SetDefault(llmtest.Text("Hello there, this is a short answer."))
			for i := range n {
				dir := filepath.Join(be.home, "config", "skills", fmt.Sprintf("skill-%02d", i))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					b.Fatal(err)
				}
				body := fmt.Sprintf("---\nname: skill-%02d\ndescription: Skill %02d does one specific task; read it when the user asks for that task.\n---\n\n# Skill\n\nSteps.\n", i, i)
				if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(body), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			var peak int64
			b.ResetTimer()
			for b.Loop() {
				cmd := be.command(be.srv.URL(), "--no-session", "-p", "say hello")
				cmd.Env = append(cmd.Env, "HOME="+be.home)
				peak = max(peak, runProcess(b, cmd))
			}
			reportRSS(b, peak)
		})
	}
}
