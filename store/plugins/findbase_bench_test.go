package plugins_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/pluginsync"
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
		md := storetest.SkillMD("one", lines...)
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
	storetest.NeedGit(b)
	const n = 1000
	dir := b.TempDir()
	up := filepath.Join(dir, "up")
	storetest.BenchGit(b, dir, nil, "init", "--quiet", "-b", "main", up)
	stream, first := findBaseHistory(n)
	storetest.BenchGit(b, up, stream, "fast-import", "--quiet")
	storetest.BenchGit(b, up, nil, "reset", "--quiet", "--hard", "main")
	ctx := context.Background()
	s, err := store.Init(ctx, filepath.Join(dir, "store"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	src, err := plugins.ParseSource(up, "")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := pluginsync.Add(ctx, s, src, pluginsync.AddOptions{ID: "kit"}); err != nil {
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
				err := s.View(ctx, func(r *store.Reader) error {
					tip, _ := r.Ref(store.SourceRef("kit"))
					base, err := plugins.FindBase(r, plugins.BaseQuery{Tip: tip, Path: "skills/one", Files: skillFiles(tc.body)})
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
				storetest.BenchGit(b, up, nil, "log", "--first-parent", "--format=%H", "--", "skills/one")
				ref += time.Since(start)
			}
			storetest.BenchReport(b, ours, ref)
		})
	}
}
