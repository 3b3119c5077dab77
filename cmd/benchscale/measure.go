package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"
)

// sample is one process run: its wall time, CPU time (user + system) and
// peak resident memory (the child's rusage, read by usage for each
// platform; 0 where the platform does not say).
type sample struct {
	wall time.Duration
	cpu  time.Duration
	rss  int64 // bytes
	exit int
}

// figure is a work repeated several times: the shortest wall time (on a
// loaded machine the least disturbed run), the median CPU time and the
// highest peak memory.
type figure struct {
	wall time.Duration
	cpu  time.Duration
	rss  int64
	ok   bool
}

func summarize(s []sample) figure {
	if len(s) == 0 {
		return figure{}
	}
	cpus := make([]time.Duration, len(s))
	wall := s[0].wall
	var rss int64
	for i, x := range s {
		cpus[i] = x.cpu
		wall = min(wall, x.wall)
		rss = max(rss, x.rss)
	}
	sort.Slice(cpus, func(i, j int) bool { return cpus[i] < cpus[j] })
	return figure{wall: wall, cpu: cpus[len(cpus)/2], rss: rss, ok: true}
}

func (f figure) String() string {
	if !f.ok {
		return "-"
	}
	return fmt.Sprintf("%s / %s cpu / %s", fmtDur(f.wall), fmtDur(f.cpu), fmtMB(f.rss))
}

func fmtDur(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d)/1e6)
	case d < time.Second:
		return fmt.Sprintf("%.0fms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
}

// fmtMB prints a peak memory; 0 is one the platform did not report.
func fmtMB(b int64) string {
	if b == 0 {
		return "?MB"
	}
	return fmt.Sprintf("%.0fMB", float64(b)/(1<<20))
}

// bench runs the binaries being compared and git.
type bench struct {
	bin    string // skillstore under test
	oldBin string // optional: an older skillstore to compare with
	env    []string
}

// run runs name with args (a skillstore binary gets --store store first;
// store "" for git), stdout discarded, and measures it.
func (b *bench) run(name, store string, args ...string) (sample, error) {
	return b.runIn("", name, store, nil, args...)
}

func (b *bench) runIn(dir, name, store string, stdin io.Reader, args ...string) (sample, error) {
	if store != "" {
		args = append([]string{"--store", store}, args...)
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = b.env
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	s := sample{wall: wall}
	if cmd.ProcessState != nil {
		s.exit = cmd.ProcessState.ExitCode()
		s.cpu, s.rss = usage(cmd.ProcessState)
	}
	if err != nil {
		return s, fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return s, nil
}

func (b *bench) mustRun(name, store string, args ...string) (sample, error) {
	return b.run(name, store, args...)
}

// benchEnv is a hermetic environment: no user or system git config, a
// fixed identity, HOME and XDG folders under tmp.
func benchEnv(tmp string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + tmp,
		"XDG_CONFIG_HOME=" + tmp + "/config",
		"XDG_DATA_HOME=" + tmp + "/data",
		"XDG_CACHE_HOME=" + tmp + "/cache",
		"XDG_STATE_HOME=" + tmp + "/state",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=Bench", "GIT_COMMITTER_EMAIL=bench@example.com",
		"GIT_PAGER=cat", "PAGER=cat",
	}
	if v := os.Getenv("GODEBUG"); v != "" {
		env = append(env, "GODEBUG="+v)
	}
	return env
}
