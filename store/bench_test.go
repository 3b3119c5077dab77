package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/folderscan"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store/safety"
)

// The benchmarks compare skillstore with C git doing the same work in the
// same run, reporting skillstore's time as ns/op and git's as ref-ns/op
// (or sizes as bytes and ref-bytes) with their ratio. Git runs as a
// process; skillstore runs in-process (no exec), which favours it by a few
// milliseconds of process start-up per operation.

func requireGitBench(b *testing.B) {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
}

func benchRunGit(b *testing.B, dir string, stdin []byte, args ...string) {
	b.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com", "GIT_COMMITTER_NAME=Bench", "GIT_COMMITTER_EMAIL=bench@example.com")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// benchSkillFiles returns the three files (~8 KB) of bench skill i.
func benchSkillFiles(i int) map[string][]byte {
	name := fmt.Sprintf("skill-%04d", i)
	var md, ref, script strings.Builder
	fmt.Fprintf(&md, "---\nname: %s\ndescription: Benchmark skill number %d, which does one small thing well.\n---\n\n# %s\n\n", name, i, name)
	for l := 0; md.Len() < 2000; l++ {
		fmt.Fprintf(&md, "Step %d of skill %d: read the input, check it, and write the result.\n", l, i)
	}
	for l := 0; ref.Len() < 4000; l++ {
		fmt.Fprintf(&ref, "Reference line %d for %s: details that the agent reads when it needs them.\n", l, name)
	}
	script.WriteString("#!/bin/sh\nset -eu\n")
	for l := 0; script.Len() < 2000; l++ {
		fmt.Fprintf(&script, "echo \"%s step %d\"\n", name, l)
	}
	return map[string][]byte{"SKILL.md": []byte(md.String()), "reference.md": []byte(ref.String()), "scripts/run.sh": []byte(script.String())}
}

func writeBenchRoot(b *testing.B, root string, n int) {
	b.Helper()
	for i := 0; i < n; i++ {
		for p, data := range benchSkillFiles(i) {
			full := filepath.Join(root, fmt.Sprintf("skill-%04d", i), p)
			os.MkdirAll(filepath.Dir(full), 0o755)
			mode := os.FileMode(0o644)
			if strings.HasSuffix(p, ".sh") {
				mode = 0o755
			}
			if err := os.WriteFile(full, data, mode); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// fastImportStream is the same skills as a git fast-import stream: one ref
// and one commit per skill.
func fastImportStream(n int) []byte {
	var s bytes.Buffer
	mark := 1
	for i := 0; i < n; i++ {
		files := benchSkillFiles(i)
		paths := []string{"SKILL.md", "reference.md", "scripts/run.sh"}
		marks := map[string]int{}
		for _, p := range paths {
			fmt.Fprintf(&s, "blob\nmark :%d\ndata %d\n%s\n", mark, len(files[p]), files[p])
			marks[p] = mark
			mark++
		}
		msg := fmt.Sprintf("skill-%04d v1\n\nSkill-Version: 1\n", i)
		fmt.Fprintf(&s, "commit refs/heads/skills/skill-%04d\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata %d\n%s", i, len(msg), msg)
		for _, p := range paths {
			mode := "100644"
			if p == "scripts/run.sh" {
				mode = "100755"
			}
			fmt.Fprintf(&s, "M %s :%d %s\n", mode, marks[p], p)
		}
		s.WriteString("\n")
	}
	return s.Bytes()
}

func benchReport(b *testing.B, ours, ref time.Duration) {
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "ns/op")
	b.ReportMetric(float64(ref.Nanoseconds())/float64(b.N), "ref-ns/op")
	b.ReportMetric(float64(ours)/float64(ref), "ratio")
}

// BenchmarkImport1000 imports 1,000 skills (3 files, ~8 KB each) into an
// empty store; the reference is git fast-import of the same skills as
// 1,000 refs into an empty bare repository.
func BenchmarkImport1000(b *testing.B) {
	requireGitBench(b)
	const n = 1000
	root := filepath.Join(b.TempDir(), "root")
	writeBenchRoot(b, root, n)
	stream := fastImportStream(n)
	ctx := context.Background()
	var ours, ref time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := b.TempDir()
		s, err := Init(ctx, filepath.Join(dir, "store"), Options{})
		if err != nil {
			b.Fatal(err)
		}
		benchRunGit(b, dir, nil, "init", "--quiet", "--bare", "ref.git")
		b.StartTimer()

		start := time.Now()
		res, err := s.Import(ctx, root, AddOptions{AllowRisk: safety.RiskCritical})
		ours += time.Since(start)
		if err != nil || len(res) != n || res[0].Err != nil {
			b.Fatalf("import: %v (%d results)", err, len(res))
		}
		start = time.Now()
		benchRunGit(b, filepath.Join(dir, "ref.git"), stream, "fast-import", "--quiet")
		ref += time.Since(start)
	}
	b.StopTimer()
	benchReport(b, ours, ref)
}

// BenchmarkReimportUnchanged re-imports the same 1,000 skills (nothing
// changed); the reference is `git add -A && git write-tree` with a warm
// index on the same files.
func BenchmarkReimportUnchanged(b *testing.B) {
	requireGitBench(b)
	const n = 1000
	dir := b.TempDir()
	root := filepath.Join(dir, "root")
	writeBenchRoot(b, root, n)
	ctx := context.Background()
	s, err := Init(ctx, filepath.Join(dir, "store"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	time.Sleep(folderscan.RacyWindow) // files older than the racy window get cached
	if _, err := s.Import(ctx, root, AddOptions{AllowRisk: safety.RiskCritical}); err != nil {
		b.Fatal(err)
	}
	benchRunGit(b, root, nil, "init", "--quiet")
	benchRunGit(b, root, nil, "add", "-A")
	benchRunGit(b, root, nil, "write-tree")
	var ours, ref time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := s.Import(ctx, root, AddOptions{AllowRisk: safety.RiskCritical})
		ours += time.Since(start)
		if err != nil || !res[0].Unchanged || !res[n-1].Unchanged {
			b.Fatalf("re-import changed something: %v", err)
		}
		start = time.Now()
		benchRunGit(b, root, nil, "add", "-A")
		benchRunGit(b, root, nil, "write-tree")
		ref += time.Since(start)
	}
	b.StopTimer()
	benchReport(b, ours, ref)
}

// BenchmarkList10000 lists a store of 10,000 skills; the reference is
// `git for-each-ref --format='%(refname) %(contents:subject)'` on it.
func BenchmarkList10000(b *testing.B) {
	requireGitBench(b)
	const n = 10000
	ctx := context.Background()
	s, err := Init(ctx, filepath.Join(b.TempDir(), "store"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	err = s.Update(ctx, func(tx *Tx) error {
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("skill-%05d", i)
			md := fmt.Sprintf("---\nname: %s\ndescription: Skill %d does one thing.\n---\nBody %d.\n", name, i, i)
			tree, err := tx.WriteTree([]File{{Path: "SKILL.md", Mode: skillfs.Regular, Data: []byte(md)}})
			if err != nil {
				return err
			}
			if _, err := tx.CommitVersion(name, tree, VersionInfo{}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if list, err := s.List(ctx, false); err != nil || len(list) != n {
		b.Fatalf("list: %d, %v", len(list), err) // also warms the summary cache
	}
	var ours, ref time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		list, err := s.List(ctx, false)
		ours += time.Since(start)
		if err != nil || len(list) != n {
			b.Fatal(err)
		}
		start = time.Now()
		benchRunGit(b, s.Dir(), nil, "for-each-ref", "--format=%(refname) %(contents:subject)")
		ref += time.Since(start)
	}
	b.StopTimer()
	benchReport(b, ours, ref)
}

// BenchmarkGCSize records 1,000 versions of a 10-file skill, each changing
// one line, runs skillstore gc, and compares the pack with what
// `git gc --aggressive` makes of a copy of the same repository.
func BenchmarkGCSize(b *testing.B) {
	requireGitBench(b)
	ctx := context.Background()
	var ours, ref, oursT, refT time.Duration
	var oursBytes, refBytes int64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := b.TempDir()
		s, err := Init(ctx, filepath.Join(dir, "store"), Options{})
		if err != nil {
			b.Fatal(err)
		}
		files := make([][]string, 10)
		for f := range files {
			for l := 0; l < 40; l++ {
				files[f] = append(files[f], fmt.Sprintf("file %d line %d: some text that stays the same across versions.", f, l))
			}
		}
		files[0][0] = "---\nname: big\ndescription: Grows one line at a time.\n---"
		err = s.Update(ctx, func(tx *Tx) error {
			for v := 0; v < 1000; v++ {
				f, l := v%10, 1+(v/10)%39
				files[f][l] = fmt.Sprintf("file %d line %d: changed in version %d.", f, l, v)
				var tree []File
				for k := range files {
					name := fmt.Sprintf("f%d.md", k)
					if k == 0 {
						name = "SKILL.md"
					}
					tree = append(tree, File{Path: name, Mode: skillfs.Regular, Data: []byte(strings.Join(files[k], "\n") + "\n")})
				}
				h, err := tx.WriteTree(tree)
				if err != nil {
					return err
				}
				if _, err := tx.CommitVersion("big", h, VersionInfo{Reason: fmt.Sprintf("edit %d", v)}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		benchRunGit(b, dir, nil, "clone", "--quiet", "--mirror", s.Dir(), "ref.git")
		b.StartTimer()

		start := time.Now()
		if _, err := s.GC(ctx, 0); err != nil {
			b.Fatal(err)
		}
		oursT += time.Since(start)
		start = time.Now()
		benchRunGit(b, filepath.Join(dir, "ref.git"), nil, "gc", "--quiet", "--aggressive", "--prune=now")
		refT += time.Since(start)
		oursBytes += benchPackBytes(b, s.Dir())
		refBytes += benchPackBytes(b, filepath.Join(dir, "ref.git"))
	}
	b.StopTimer()
	_ = ours
	_ = ref
	b.ReportMetric(float64(oursBytes)/float64(b.N), "bytes")
	b.ReportMetric(float64(refBytes)/float64(b.N), "ref-bytes")
	b.ReportMetric(float64(oursBytes)/float64(refBytes), "ratio")
	b.ReportMetric(float64(oursT.Nanoseconds())/float64(b.N), "gc-ns/op")
	b.ReportMetric(float64(refT.Nanoseconds())/float64(b.N), "ref-gc-ns/op")
}

// packBytes is the size of the packs (.pack files) of a repository.
func benchPackBytes(b *testing.B, gitDir string) int64 {
	packs, _ := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "*.pack"))
	var n int64
	for _, p := range packs {
		info, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		n += info.Size()
	}
	return n
}
