package pluginsync

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
)

// The tests in this file cover what makes an unchanged sync fast: reading
// packed objects without go-git (the pack reader itself is tested in
// internal/gitdb) and reading plugin folders ahead (the stat cache's folder
// listings and the layout reader's shortcuts are tested in
// internal/folderscan).

// TestSyncCanceledStopsReaders: a sync canceled while plugin folders are
// read ahead returns the context's error and leaves the store as it was.
func TestSyncCanceledStopsReaders(t *testing.T) {
	root := t.TempDir()
	s := storetest.NewStore(t)
	for p := range 12 {
		dir := filepath.Join(root, fmt.Sprintf("plugin%02d", p))
		for k := range 3 {
			name := fmt.Sprintf("c%02d-s%d", p, k)
			storetest.WriteFile(t, filepath.Join(dir, "skills", name, "SKILL.md"), storetest.SkillMD(name, "v1"))
		}
		src, err := plugins.ParseSource(dir, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Add(context.Background(), s, src, AddOptions{}); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("c%02d-s0", p)
		storetest.WriteFile(t, filepath.Join(dir, "skills", name, "SKILL.md"), storetest.SkillMD(name, "v2"))
	}
	before := storetest.Git(t, s.Dir(), "for-each-ref")
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err := Run(ctx, s, Options{Progress: func(string, int, int) {
		if n++; n == 3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("sync: %v, want context.Canceled", err)
	}
	if after := storetest.Git(t, s.Dir(), "for-each-ref"); after != before {
		t.Fatalf("a canceled sync changed refs:\n%s\nwas\n%s", after, before)
	}
	rep, err := Run(context.Background(), s, Options{})
	if err != nil || rep.Failed() {
		t.Fatalf("sync after: %v %+v", err, rep)
	}
	changed := 0
	for _, p := range rep.Plugins {
		for _, sk := range p.Skills {
			if sk.Classification == ClassFastForward {
				changed++
			}
		}
	}
	if changed != 12 {
		t.Fatalf("%d fast-forwards, want 12", changed)
	}
}

// TestSyncReadsFoldersOnOneCore: with one core there is no reader
// goroutine and the sync reads every folder itself, in order.
func TestSyncReadsFoldersOnOneCore(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	root := t.TempDir()
	s := storetest.NewStore(t)
	for p := range 3 {
		dir := filepath.Join(root, fmt.Sprintf("one%d", p))
		name := fmt.Sprintf("one%d-s", p)
		storetest.WriteFile(t, filepath.Join(dir, "skills", name, "SKILL.md"), storetest.SkillMD(name, "v1"))
		src, err := plugins.ParseSource(dir, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Add(context.Background(), s, src, AddOptions{}); err != nil {
			t.Fatal(err)
		}
		storetest.WriteFile(t, filepath.Join(dir, "skills", name, "SKILL.md"), storetest.SkillMD(name, "v2"))
	}
	got := syncOnce(t, s, Options{})
	for p := range 3 {
		if sk := got[fmt.Sprintf("one%d-s", p)]; sk.Classification != ClassFastForward || sk.NewVersion != 2 {
			t.Errorf("one%d-s: %+v, want a fast-forward to v2", p, sk)
		}
	}
}
