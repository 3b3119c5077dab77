package gitdb

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runGC runs both steps of a gc with no writer in between.
func runGC(t *testing.T, dir string, grace time.Duration) GCResult {
	t.Helper()
	refs, err := ReadRefs(dir)
	if err != nil {
		t.Fatal(err)
	}
	g, err := PrepareGC(context.Background(), dir, refs, grace)
	if g != nil { // it holds what to clean up even when it fails
		defer g.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Finish(refs)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func packFiles(t *testing.T, dir string) []string {
	t.Helper()
	packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "pack-*.pack"))
	return packs
}

// checkLikeGit checks the repository with git fsck --strict and git
// verify-pack, and that git reads the objects it read before.
func checkLikeGit(t *testing.T, dir string, want map[ID]Object) {
	t.Helper()
	gitRun(t, dir, "fsck", "--strict", "--no-dangling")
	for _, p := range packFiles(t, dir) {
		gitRun(t, dir, "verify-pack", strings.TrimSuffix(p, ".pack")+".idx")
	}
	got := catFileAll(t, dir)
	for h, o := range want {
		g, ok := got[h]
		if !ok || g.Type != o.Type || !bytes.Equal(g.Data, o.Data) {
			t.Fatalf("object %s: not what git read before gc", h)
		}
	}
}

// TestGCDeltifiesLooseObjectsThenReusesItsPack packs a history of loose
// objects (the delta search finds deltas), then gcs again: the second
// gc copies every delta and writes a pack identical to the first.
func TestGCDeltifiesLooseObjectsThenReusesItsPack(t *testing.T) {
	dir := repoWithHistory(t)
	explode(t, dir)
	want := catFileAll(t, dir)
	first := runGC(t, dir, time.Hour)
	if first.Objects != len(want) || first.Deltas == 0 || first.ReusedDeltas != 0 {
		t.Fatalf("first gc of loose objects = %+v; want all %d objects, new deltas only", first, len(want))
	}
	checkLikeGit(t, dir, want)
	packs := packFiles(t, dir)
	if len(packs) != 1 {
		t.Fatalf("%d packs after gc", len(packs))
	}
	before, _ := os.ReadFile(packs[0])

	second := runGC(t, dir, time.Hour)
	if second.Deltas != first.Deltas || second.ReusedDeltas != first.Deltas || second.PacksRemoved != 0 {
		t.Fatalf("second gc = %+v; want every delta of the first (%d) reused", second, first.Deltas)
	}
	after := packFiles(t, dir)
	if len(after) != 1 || after[0] != packs[0] {
		t.Fatalf("second gc wrote %v, want the same pack %s", after, packs[0])
	}
	if data, _ := os.ReadFile(after[0]); !bytes.Equal(data, before) {
		t.Fatal("second gc changed the pack's bytes")
	}
	checkLikeGit(t, dir, want)
}

// TestGCReusesGitDeltas gcs a repository git repacked (deltas against
// offsets, then against object ids) and one of two packs with loose
// objects beside: deltas git made are copied, and git reads the result.
func TestGCReusesGitDeltas(t *testing.T) {
	for _, args := range [][]string{
		{"repack", "-adf", "-q"},
		{"-c", "repack.useDeltaBaseOffset=false", "repack", "-adf", "-q"},
	} {
		t.Run(args[0], func(t *testing.T) {
			dir := repoWithHistory(t)
			gitRun(t, dir, args...)
			// Later history, loose, on top of the pack.
			work := t.TempDir()
			gitRun(t, work, "clone", "-q", dir, "w")
			w := filepath.Join(work, "w")
			for i := range 3 {
				writeFile(t, filepath.Join(w, "SKILL.md"), strings.Repeat("a line that stays the same\n", 30)+strings.Repeat("later\n", i+1))
				gitRun(t, w, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "later")
			}
			gitRun(t, w, "push", "-q", dir, "HEAD:refs/heads/main")
			want := catFileAll(t, dir)
			res := runGC(t, dir, time.Hour)
			if res.ReusedDeltas == 0 || res.Objects != len(want) {
				t.Fatalf("gc = %+v; want git's deltas reused and all %d objects", res, len(want))
			}
			checkLikeGit(t, dir, want)
		})
	}
}

// TestGCFinishKeepsWhatRefsReachMeanwhile prepares a gc from a snapshot
// that lacks a ref (as when a writer adds it while the pack is being
// written, reusing objects an old pack holds unreachable): Finish finds
// the ref's objects only in the old pack and writes them loose before
// it deletes that pack.
func TestGCFinishKeepsWhatRefsReachMeanwhile(t *testing.T) {
	dir := repoWithHistory(t)
	work := t.TempDir()
	gitRun(t, work, "clone", "-q", dir, "w")
	w := filepath.Join(work, "w")
	writeFile(t, filepath.Join(w, "only-here.txt"), "a file no other commit has\n")
	gitRun(t, w, "add", "only-here.txt")
	gitRun(t, w, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "side")
	gitRun(t, w, "push", "-q", dir, "HEAD:refs/heads/side")
	gitRun(t, dir, "repack", "-adq")
	want := catFileAll(t, dir)

	current, err := ReadRefs(dir)
	if err != nil {
		t.Fatal(err)
	}
	snapshot := Refs{}
	for name, h := range current {
		if name != "refs/heads/side" {
			snapshot[name] = h
		}
	}
	g, err := PrepareGC(context.Background(), dir, snapshot, 0)
	if g != nil { // it holds what to clean up even when it fails
		defer g.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Finish(current)
	if err != nil {
		t.Fatal(err)
	}
	// The side commit, its tree and the new blob.
	if res.Rescued != 3 || res.PacksRemoved != 1 {
		t.Fatalf("gc = %+v; want the side commit, its tree and blob rescued, the old pack removed", res)
	}
	checkLikeGit(t, dir, want)
	if got := gitRun(t, dir, "show", "refs/heads/side:only-here.txt"); got != "a file no other commit has\n" {
		t.Fatalf("side's file after gc: %q", got)
	}
}

// TestGCPrepareLeavesTheRepositoryAlone checks that a prepared gc that
// is never finished (its process killed before its switch) leaves only
// temporary files, which the next gc removes once past grace.
func TestGCPrepareLeavesTheRepositoryAlone(t *testing.T) {
	dir := repoWithHistory(t)
	explode(t, dir)
	want := catFileAll(t, dir)
	refs, _ := ReadRefs(dir)
	g, err := PrepareGC(context.Background(), dir, refs, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(packFiles(t, dir)) != 0 {
		t.Fatal("a prepared gc put a pack in place before its switch")
	}
	// A kill leaves the temporary pack and index behind (Close would
	// remove them): the next gc with no grace removes them.
	g.db.Close()
	checkLikeGit(t, dir, want)
	runGC(t, dir, 0)
	temps, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "tmp_*"))
	if len(temps) != 0 {
		t.Fatalf("temporary files left: %v", temps)
	}
	checkLikeGit(t, dir, want)
}

// TestGCSearchesPacksItDidNotWrite gcs a pack of whole objects such as
// import writes (never delta-searched): gc finds deltas in it, and the
// next gc, on the pack gc wrote, copies them without searching again.
func TestGCSearchesPacksItDidNotWrite(t *testing.T) {
	dir := repoWithHistory(t)
	explode(t, dir)
	want := catFileAll(t, dir)
	var objs []PackObject
	for h, o := range want {
		objs = append(objs, PackObject{ID: h, Type: o.Type, Data: o.Data})
	}
	if _, err := WritePack(dir, objs, 1); err != nil {
		t.Fatal(err)
	}
	for h := range want { // only the pack holds them now
		if err := os.Remove(LoosePath(dir, h)); err != nil {
			t.Fatal(err)
		}
	}
	res := runGC(t, dir, time.Hour)
	if res.Deltas == 0 || res.ReusedDeltas != 0 {
		t.Fatalf("gc of an import pack = %+v; want new deltas", res)
	}
	checkLikeGit(t, dir, want)
	again := runGC(t, dir, time.Hour)
	if again.ReusedDeltas != res.Deltas {
		t.Fatalf("gc of gc's pack = %+v; want its %d deltas reused", again, res.Deltas)
	}
}

// TestGCPassesAnIndexWithoutItsPack: a writer renames a pack's index into
// place before the pack, so a kill between the two leaves an index with
// no pack. gc (and every reader) takes it for what it is, a pack not there
// yet, and goes on: it used to refuse ("a pack whose index gc cannot
// read"), so one such kill stopped every later gc.
func TestGCPassesAnIndexWithoutItsPack(t *testing.T) {
	dir := repoWithHistory(t)
	want := catFileAll(t, dir)
	runGC(t, dir, 0)
	packs := packFiles(t, dir)
	if len(packs) == 0 {
		t.Fatal("gc wrote no pack")
	}
	// An index whose pack never arrived, as a kill leaves it.
	idx := strings.TrimSuffix(packs[0], ".pack") + ".idx"
	data, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(dir, "objects", "pack", "pack-"+strings.Repeat("ab", 20)+".idx")
	if err := os.WriteFile(orphan, data, 0o444); err != nil {
		t.Fatal(err)
	}
	runGC(t, dir, 0)
	checkLikeGit(t, dir, want)
}
