package pluginsync

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

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
)

// benchPlugins writes n plugin folders of k skills each under root, every
// skill a SKILL.md of ten lines plus a script and a reference file, and
// returns their paths.
func benchPlugins(b *testing.B, root string, n, k int) []string {
	b.Helper()
	var dirs []string
	for p := range n {
		dir := filepath.Join(root, fmt.Sprintf("plugin%03d", p))
		for s := range k {
			name := fmt.Sprintf("p%03d-s%02d", p, s)
			storetest.WriteFile(b, filepath.Join(dir, "skills", name, "SKILL.md"), benchSkill(name, ""))
			storetest.WriteFile(b, filepath.Join(dir, "skills", name, "scripts", "run.py"), "print('"+name+"')\n")
			storetest.WriteFile(b, filepath.Join(dir, "skills", name, "references", "guide.md"), strings.Repeat("guide of "+name+"\n", 20))
		}
		dirs = append(dirs, dir)
	}
	return dirs
}

// benchSkill is a SKILL.md whose first or last line can be changed.
func benchSkill(name, change string) string {
	lines := []string{"first line", "2", "3", "4", "5", "6", "7", "8", "9", "last line"}
	switch change {
	case "first":
		lines[0] = "first line, edited locally"
	case "last":
		lines[9] = "last line, changed upstream"
	}
	return storetest.SkillMD(name, lines...)
}

func benchStore(b *testing.B, dirs []string) *store.Store {
	b.Helper()
	s := storetest.NewStore(b)
	for _, d := range dirs {
		src, err := plugins.ParseSource(d, "")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Add(context.Background(), s, src, AddOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkSyncUnchanged: 100 plugins of 10 skills, nothing changed
// upstream, against `git add -A && git write-tree` with a warm index over
// the same 1,000 skill folders.
func BenchmarkSyncUnchanged(b *testing.B) {
	storetest.NeedGit(b)
	root := b.TempDir()
	dirs := benchPlugins(b, root, 100, 10)
	s := benchStore(b, dirs)
	// The steady state of a store that cron syncs: packed, as gc leaves it,
	// with a warm stat cache.
	storetest.RunGit(b, s.Dir(), nil, "repack", "-a", "-d", "-q")
	storetest.RunGit(b, s.Dir(), nil, "pack-refs", "--all")
	if _, err := Run(context.Background(), s, Options{}); err != nil {
		b.Fatal(err)
	}
	storetest.RunGit(b, root, nil, "init", "-q")
	storetest.RunGit(b, root, nil, "add", "-A") // warm the index
	storetest.RunGit(b, root, nil, "write-tree")

	var ours, ref time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		rep, err := Run(context.Background(), s, Options{})
		ours += time.Since(start)
		if err != nil || rep.Failed() {
			b.Fatal(err, rep)
		}
		start = time.Now()
		storetest.RunGit(b, root, nil, "add", "-A")
		storetest.RunGit(b, root, nil, "write-tree")
		ref += time.Since(start)
	}
	storetest.BenchReport(b, ours, ref)
}

// BenchmarkSyncFastForward: every one of the 1,000 skills changed
// upstream (a fast-forward each), against `git fast-import` of the same
// 1,000 new snapshots as commits on 1,000 refs.
func BenchmarkSyncFastForward(b *testing.B) {
	storetest.NeedGit(b)
	root := b.TempDir()
	dirs := benchPlugins(b, root, 100, 10)
	template := benchStore(b, dirs).Dir()
	storetest.RunGit(b, template, nil, "repack", "-a", "-d", "-q")
	storetest.RunGit(b, template, nil, "pack-refs", "--all")
	var stream bytes.Buffer
	for p, dir := range dirs {
		for k := range 10 {
			name := fmt.Sprintf("p%03d-s%02d", p, k)
			skillDir := filepath.Join(dir, "skills", name)
			storetest.WriteFile(b, filepath.Join(skillDir, "SKILL.md"), benchSkill(name, "last"))
			fmt.Fprintf(&stream, "commit refs/upstream/%s\ncommitter bench <b@example.com> 1700000000 +0000\ndata 8\nsnapshot\n", name)
			for _, f := range []string{"SKILL.md", "scripts/run.py", "references/guide.md"} {
				data, err := os.ReadFile(filepath.Join(skillDir, f))
				if err != nil {
					b.Fatal(err)
				}
				fmt.Fprintf(&stream, "M 100644 inline %s\ndata %d\n%s\n", f, len(data), data)
			}
		}
	}

	var ours, ref time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "store")
		if out, err := exec.Command("cp", "-a", template, dir).CombinedOutput(); err != nil {
			b.Fatalf("cp: %v\n%s", err, out)
		}
		s, err := store.Open(context.Background(), dir, store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		refRepo := filepath.Join(b.TempDir(), fmt.Sprintf("ref%d", i))
		storetest.RunGit(b, "", nil, "init", "-q", "--bare", refRepo)
		b.StartTimer()

		start := time.Now()
		rep, err := Run(context.Background(), s, Options{})
		ours += time.Since(start)
		if err != nil || rep.Failed() {
			b.Fatal(err, rep)
		}
		start = time.Now()
		storetest.RunGit(b, refRepo, stream.Bytes(), "fast-import", "--quiet")
		ref += time.Since(start)

		b.StopTimer()
		for _, p := range rep.Plugins {
			for _, sk := range p.Skills {
				if sk.Classification != ClassFastForward || sk.NewVersion != 2 {
					b.Fatalf("%s: %+v, want a fast-forward to v2", sk.Skill, sk)
				}
			}
		}
		b.StartTimer()
	}
	storetest.BenchReport(b, ours, ref)
}

// BenchmarkSyncThreeWay: 1,000 skills each edited locally (first line) and
// upstream (last line): 1,000 three-way merges. Reports the time per sync
// and the share of clean merges.
func BenchmarkSyncThreeWay(b *testing.B) {
	root := b.TempDir()
	dirs := benchPlugins(b, root, 100, 10)
	s := benchStore(b, dirs)
	err := s.Update(context.Background(), func(tx *store.Tx) error {
		for p := range dirs {
			for k := range 10 {
				skill := fmt.Sprintf("p%03d-s%02d", p, k)
				name := store.QualifiedName(fmt.Sprintf("plugin%03d", p), skill)
				head, err := tx.Head(name)
				if err != nil {
					return err
				}
				files, err := tx.LoadFiles(head.Tree)
				if err != nil {
					return err
				}
				for i := range files {
					if files[i].Path == "SKILL.md" {
						files[i].Data, files[i].ID = []byte(benchSkill(skill, "first")), store.ZeroHash
					}
				}
				tree, err := tx.WriteTree(files)
				if err != nil {
					return err
				}
				if _, err := tx.CommitVersion(name, tree, store.VersionInfo{Reason: "local edit"}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for p, dir := range dirs {
		for k := range 10 {
			name := fmt.Sprintf("p%03d-s%02d", p, k)
			storetest.WriteFile(b, filepath.Join(dir, "skills", name, "SKILL.md"), benchSkill(name, "last"))
		}
	}
	storetest.RunGit(b, s.Dir(), nil, "repack", "-a", "-d", "-q")
	storetest.RunGit(b, s.Dir(), nil, "pack-refs", "--all")
	template := s.Dir()

	var total time.Duration
	merges, clean := 0, 0
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "store")
		if out, err := exec.Command("cp", "-a", template, dir).CombinedOutput(); err != nil {
			b.Fatalf("cp: %v\n%s", err, out)
		}
		s, err := store.Open(context.Background(), dir, store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		rep, err := Run(context.Background(), s, Options{})
		total += time.Since(start)
		if err != nil || rep.Failed() {
			b.Fatal(err, rep)
		}
		for _, p := range rep.Plugins {
			for _, sk := range p.Skills {
				if sk.Classification == ClassThreeWay {
					merges++
					if len(sk.Conflicts) == 0 {
						clean++
					}
				}
			}
		}
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/op")
	b.ReportMetric(float64(merges)/float64(b.N), "merges/op")
	b.ReportMetric(100*float64(clean)/float64(max(merges, 1)), "clean-%")
}
