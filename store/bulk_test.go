package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportSpillsIntoPacks: with a small spill size, an import writes its
// objects into several packs as it goes (seen with gc.auto 0, which keeps
// them), and by default merges them into one once its refs are written
// (autoPack). Either way the store it leaves is the one a single pack
// gives: every skill at v1 with its files, git fsck clean, verify clean,
// and the same trees as the folders.
func TestImportSpillsIntoPacks(t *testing.T) {
	defer func(old int) { bulkSpillBytes = old }(bulkSpillBytes)
	bulkSpillBytes = 16 << 10
	ctx := context.Background()
	root := t.TempDir()
	const n = 40
	for i := 0; i < n; i++ {
		body := strings.Repeat(fmt.Sprintf("line of skill %d\n", i), 100)
		writeSkill(t, root, fmt.Sprintf("bulk-%02d", i), "A bulk skill.", map[string]string{"notes.md": body})
	}
	for _, off := range []bool{true, false} {
		s := newTestStore(t)
		if off {
			gitCmd(t, s.Dir(), "config", "gc.auto", "0")
			var err error
			if s, err = Open(ctx, s.Dir(), Options{Actor: Signature{Name: "Tester", Email: "tester@example.com"}}); err != nil {
				t.Fatal(err)
			}
		}
		res, err := s.Import(ctx, root, defaultAdd())
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != n {
			t.Fatalf("%d results, want %d", len(res), n)
		}
		packs, _ := filepath.Glob(filepath.Join(s.Dir(), "objects", "pack", "*.pack"))
		if off && len(packs) < 3 {
			t.Errorf("gc.auto 0: %d packs, want the import spilled into several", len(packs))
		}
		if !off && len(packs) != 1 {
			t.Errorf("%d packs, want the import's spills merged into one", len(packs))
		}
		for _, r := range res {
			if r.Err != nil || r.Version.Number != 1 {
				t.Fatalf("%s: %v (v%d)", r.Dir, r.Err, r.Version.Number)
			}
			data, err := s.Cat(ctx, r.Name, "notes.md")
			want, _ := os.ReadFile(filepath.Join(r.Dir, "notes.md"))
			if err != nil || string(data) != string(want) {
				t.Errorf("%s: notes.md %d bytes, folder %d (%v)", r.Name, len(data), len(want), err)
			}
		}
		gitCmd(t, s.Dir(), "fsck", "--full", "--strict")
		rep, err := s.Verify(ctx)
		if err != nil || len(rep.Problems) > 0 {
			t.Errorf("verify: %v %v", rep.Problems, err)
		}
		list, err := s.List(ctx, false)
		if err != nil || len(list) != n || list[0].Description != "A bulk skill." {
			t.Errorf("list: %d skills, %v", len(list), err)
		}
	}
}

// TestImportSummariesAsRead: the summaries an import saves from what it
// parsed equal the ones read back from the store (commit, tree, SKILL.md).
func TestImportSummariesAsRead(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	root := t.TempDir()
	for i := 0; i < 5; i++ {
		writeSkill(t, root, fmt.Sprintf("sum-%d", i), fmt.Sprintf("Summary skill %d, 'quoted' and a #comment", i), nil)
	}
	res, err := s.Import(ctx, root, defaultAdd())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	saved := loadSummaries(s.summaryPath())
	if len(saved) != 5 {
		t.Fatalf("%d summaries saved, want 5", len(saved))
	}
	err = s.View(ctx, func(r *Reader) error {
		for name, got := range saved {
			want, err := r.summarize(name, got.Commit)
			if err != nil {
				return err
			}
			if !got.Time.Equal(want.Time) {
				t.Errorf("%s: time %v, read back %v", name, got.Time, want.Time)
			}
			got.Time = want.Time
			if got != want {
				t.Errorf("%s: saved %+v, read back %+v", name, got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
