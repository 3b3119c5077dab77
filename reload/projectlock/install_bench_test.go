package projectlock

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/store"
)

// BenchmarkInstallFrozen20Plugins restores a lock of 200 skills from 20
// git plugins (local repositories, 10 skills of ~8 KB each) into a fresh
// store and a fresh project with install --frozen, beside twenty
// `git clone --depth 1` of the same repositories: the work a new machine
// does to get a project's skills. It reports the packs the store holds
// after the install.
func BenchmarkInstallFrozen20Plugins(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
	ctx := context.Background()
	base := b.TempDir()
	l := &Lock{Version: FormatVersion}
	tgt := Target{Name: "app-claude", Dir: ".claude/skills"}
	var repos []string
	for p := 1; p <= 20; p++ {
		dir := filepath.Join(base, fmt.Sprintf("up%d", p))
		for k := 1; k <= 10; k++ {
			var body strings.Builder
			fmt.Fprintf(&body, "---\nname: s%d\ndescription: Skill %d of plugin %d.\n---\n", k, k, p)
			for n := range 200 {
				fmt.Fprintf(&body, "line %d of plugin %d skill %d: some words\n", n, p, k)
			}
			path := filepath.Join(dir, "skills", fmt.Sprintf("s%d", k), "SKILL.md")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(body.String()), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		benchGit(b, dir, "init", "-q", "-b", "main")
		benchGit(b, dir, "add", "-A")
		benchGit(b, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "one")
		id := fmt.Sprintf("p%d", p)
		l.Plugins = append(l.Plugins, Plugin{ID: id, Kind: "git", URL: dir, Commit: benchGit(b, dir, "rev-parse", "HEAD")})
		for k := 1; k <= 10; k++ {
			name := fmt.Sprintf("%s:s%d", id, k)
			l.Skills = append(l.Skills, Skill{Name: name, Tree: benchGit(b, dir, "rev-parse", fmt.Sprintf("HEAD:skills/s%d", k))})
			tgt.Skills = append(tgt.Skills, name)
		}
		repos = append(repos, dir)
	}
	l.Targets = []Target{tgt}
	var ours, ref time.Duration
	var packs []string
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		run := filepath.Join(b.TempDir(), fmt.Sprint(i))
		project := filepath.Join(run, "app")
		if err := os.MkdirAll(project, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := l.Write(Path(project)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		s, err := store.Init(ctx, filepath.Join(run, "store"), store.Options{Actor: store.Signature{Name: "b", Email: "b@example.com"}})
		if err != nil {
			b.Fatal(err)
		}
		rep, err := Install(ctx, s, InstallOptions{Project: project, Frozen: true, AllowLocal: []string{base}})
		if err != nil || rep.Failed() {
			b.Fatalf("install: %v %+v", err, rep)
		}
		ours += time.Since(start)
		packs, _ = filepath.Glob(filepath.Join(run, "store", "objects", "pack", "*.pack"))
		start = time.Now()
		for k, dir := range repos {
			benchGit(b, run, "clone", "-q", "--depth", "1", "file://"+dir, fmt.Sprintf("clone%d", k))
		}
		ref += time.Since(start)
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(ms(ours), "install-ms")
	b.ReportMetric(ms(ref), "git-clone-depth1-x20-ms")
	b.ReportMetric(float64(ours)/float64(ref), "ratio")
	b.ReportMetric(float64(len(packs)), "store-packs")
}

func benchGit(b *testing.B, dir string, args ...string) string {
	b.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}
