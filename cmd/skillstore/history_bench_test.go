//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkAddFullHistory adds a plugin from a repository with a long
// history (2,000 commits, each changing one file of the plugin's twelve
// skills: the shape of an official catalog's full clone), beside git
// clone --bare of the same repository: time, peak memory and the size on
// disk of each. The fetched pack is kept as it came and read in place
// (gitfetch's keepWhole), so skillstore's memory follows the largest
// objects, not the history.
func BenchmarkAddFullHistory(b *testing.B) {
	requireGit(b)
	dir := b.TempDir()
	repo := filepath.Join(dir, "catalog")
	writeHistory(b, repo, 12, 2000)
	var ours, ref runFigures
	b.Run("plugin-add", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			storeDir := filepath.Join(dir, fmt.Sprintf("store-%d", i))
			mustRunBin(b, skillstoreBin(b), "--store", storeDir, "init")
			ours = timedRun(b, skillstoreBin(b), "--store", storeDir, "plugin", "add", "--id", "catalog", "file://"+repo)
			ours.diskMB = dirMB(storeDir)
		}
		ours.report(b)
	})
	b.Run("ref-git-clone-bare", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			ref = timedRun(b, "git", "clone", "-q", "--bare", "file://"+repo, filepath.Join(dir, fmt.Sprintf("bare-%d.git", i)))
			ref.diskMB = dirMB(filepath.Join(dir, fmt.Sprintf("bare-%d.git", i)))
		}
		ref.report(b)
	})
	if ours.wall > 0 && ref.wall > 0 {
		b.Logf("plugin add %v / %.0f MB peak / %.1f MB on disk; git clone --bare %v / %.0f MB / %.1f MB: %.2fx time, %.2fx disk",
			ours.wall.Round(time.Millisecond), ours.peakMB, ours.diskMB, ref.wall.Round(time.Millisecond), ref.peakMB, ref.diskMB,
			ours.wall.Seconds()/ref.wall.Seconds(), ours.diskMB/ref.diskMB)
	}
}

// runFigures are one process's wall time, peak resident memory and the
// size of what it wrote.
type runFigures struct {
	wall           time.Duration
	peakMB, diskMB float64
}

func (f runFigures) report(b *testing.B) {
	b.ReportMetric(f.wall.Seconds(), "wall-s")
	b.ReportMetric(f.peakMB, "peak-MB")
	b.ReportMetric(f.diskMB, "disk-MB")
}

func timedRun(b *testing.B, name string, args ...string) runFigures {
	b.Helper()
	cmd := exec.Command(name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// The peak is read from /proc while it runs, the most any process of
	// its tree held (GNU time's %M): the child's rusage would carry the
	// test process's own high-water mark, which a child started from it
	// inherits.
	var peak int64
	var err error
	for running := true; running; {
		select {
		case err = <-done:
			running = false
		case <-time.After(5 * time.Millisecond):
			peak = max(peak, treePeakKB(cmd.Process.Pid))
		}
	}
	if err != nil {
		b.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return runFigures{wall: time.Since(start), peakMB: float64(peak) / 1024}
}

// treePeakKB is the largest VmHWM of pid and its descendants.
func treePeakKB(pid int) int64 {
	peak := procKB(pid, "VmHWM")
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	for _, f := range strings.Fields(string(data)) {
		var child int
		if _, err := fmt.Sscan(f, &child); err == nil {
			peak = max(peak, treePeakKB(child))
		}
	}
	return peak
}

func mustRunBin(b *testing.B, name string, args ...string) {
	b.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		b.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// dirMB is the size of the files under dir, in MB.
func dirMB(dir string) float64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return float64(n) / (1 << 20)
}

// writeHistory makes a git repository at dir holding a plugin of skills
// skills (a SKILL.md and a reference of about 20 KB each) and commits
// commits, each appending a line to one of their files, with git
// fast-import (one process; the history is what is measured, not how it
// was made).
func writeHistory(b *testing.B, dir string, skills, commits int) {
	b.Helper()
	mustRunBin(b, "git", "init", "-q", "--bare", dir)
	files := map[string]string{".claude-plugin/plugin.json": `{"name": "catalog", "version": "1.0.0"}` + "\n"}
	var paths []string
	for i := range skills {
		name := fmt.Sprintf("skill-%02d", i)
		md := fmt.Sprintf("skills/%s/SKILL.md", name)
		ref := fmt.Sprintf("skills/%s/references/guide.md", name)
		files[md] = fmt.Sprintf("---\nname: %s\ndescription: Does task %d when the user asks for it.\n---\n\n# %s\n", name, i, name)
		files[ref] = strings.Repeat(fmt.Sprintf("Guide line of %s, with the detail an agent reads when it needs it.\n", name), 300)
		paths = append(paths, md, ref)
	}
	var s bytes.Buffer
	blob := func(p string) {
		fmt.Fprintf(&s, "M 100644 inline %s\ndata %d\n%s\n", p, len(files[p]), files[p])
	}
	for c := range commits {
		msg := fmt.Sprintf("change %d", c)
		fmt.Fprintf(&s, "commit refs/heads/main\ncommitter T <t@example.com> %d +0000\ndata %d\n%s\n", 1700000000+c*60, len(msg), msg)
		if c == 0 {
			for p := range files {
				blob(p)
			}
			continue
		}
		p := paths[c%len(paths)]
		files[p] += fmt.Sprintf("Step %d, added in change %d.\n", c, c)
		blob(p)
	}
	cmd := exec.Command("git", "--git-dir", dir, "fast-import", "--quiet")
	cmd.Stdin = &s
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git fast-import: %v\n%s", err, out)
	}
	mustRunBin(b, "git", "--git-dir", dir, "symbolic-ref", "HEAD", "refs/heads/main")
	mustRunBin(b, "git", "--git-dir", dir, "gc", "-q")
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		b.Fatal(err)
	}
}
