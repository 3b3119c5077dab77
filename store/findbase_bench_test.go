package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// findBaseHistory writes a fast-import stream of n commits on main, each
// changing one line of skills/one/SKILL.md (40 lines) and README.md, and
// returns the stream and the SKILL.md of the first commit.
func findBaseHistory(n int) ([]byte, string) {
	lines := make([]string, 40)
	for i := range lines {
		lines[i] = fmt.Sprintf("Line %d of the skill.", i)
	}
	var b strings.Builder
	var first string
	for c := range n {
		if c > 0 {
			lines[c%len(lines)] = fmt.Sprintf("Line %d, revised in commit %d.", c%len(lines), c)
		}
		md := skillMD("one", lines...)
		if c == 0 {
			first = md
		}
		readme := fmt.Sprintf("commit %d\n", c)
		fmt.Fprintf(&b, "commit refs/heads/main\ncommitter Bench <bench@example.com> %d +0000\ndata 2\nc\n", 1700000000+c)
		fmt.Fprintf(&b, "M 100644 inline skills/one/SKILL.md\ndata %d\n%s\n", len(md), md)
		fmt.Fprintf(&b, "M 100644 inline README.md\ndata %d\n%s\n", len(readme), readme)
	}
	return []byte(b.String()), first
}

// BenchmarkFindBase1000 searches a 1,000-commit upstream for its first
// commit's skill folder: exact (tree ids only) and closest (that folder
// edited, so every distinct folder is line-diffed). The reference is
// `git log --first-parent --format=%H -- skills/one` on the same history,
// the same walk with a tree comparison per commit.
func BenchmarkFindBase1000(b *testing.B) {
	requireGitBench(b)
	const n = 1000
	dir := b.TempDir()
	up := filepath.Join(dir, "up")
	benchRunGit(b, dir, nil, "init", "--quiet", "-b", "main", up)
	stream, first := findBaseHistory(n)
	benchRunGit(b, up, stream, "fast-import", "--quiet")
	benchRunGit(b, up, nil, "reset", "--quiet", "--hard", "main")
	ctx := context.Background()
	s, err := Init(ctx, filepath.Join(dir, "store"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	src, err := ParseSource(up, "")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := Add(ctx, s, src, AddPluginOptions{ID: "kit"}); err != nil {
		b.Fatal(err)
	}
	edited := strings.Replace(first, "Line 39 of the skill.", "Line 39, edited locally.", 1)
	for _, tc := range []struct {
		name  string
		body  string
		exact bool
	}{{"exact", first, true}, {"closest", edited, false}} {
		b.Run(tc.name, func(b *testing.B) {
			var ours, ref time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				err := s.View(ctx, func(r *Reader) error {
					tip, _ := r.Ref(SourceRef("kit"))
					base, err := FindBase(r, BaseQuery{Tip: tip, Path: "skills/one", Files: skillFiles(tc.body)})
					if err == nil && (base.Exact != tc.exact || base.Walked != n) {
						err = fmt.Errorf("got %+v", base)
					}
					return err
				})
				ours += time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				start = time.Now()
				benchRunGit(b, up, nil, "log", "--first-parent", "--format=%H", "--", "skills/one")
				ref += time.Since(start)
			}
			benchReport(b, ours, ref)
		})
	}
}
