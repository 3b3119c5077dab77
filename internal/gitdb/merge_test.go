package gitdb

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// repoOfPacks makes a bare repository whose history of 5*n commits is
// in n packs, one per git fast-import run (each with deltas between the
// versions it wrote, as a fetched plugin's pack has), plus the loose
// objects named by loose (blobs written by git hash-object -w).
func repoOfPacks(t *testing.T, n int, loose ...string) string {
	t.Helper()
	dir := t.TempDir()
	gitRun(t, dir, "init", "-q", "--bare")
	for k := range n {
		var in strings.Builder
		for v := 5 * k; v < 5*k+5; v++ {
			msg := fmt.Sprintf("edit %d\n", v)
			fmt.Fprintf(&in, "commit refs/heads/main\ncommitter t <t@example.com> %d +0000\ndata %d\n%s", 1700000000+v, len(msg), msg)
			if v == 5*k && k > 0 {
				in.WriteString("from refs/heads/main^0\n")
			}
			for _, f := range []struct{ path, content string }{
				{"SKILL.md", "---\nname: packs\n---\n" + strings.Repeat("a line that stays the same\n", 40) + fmt.Sprintf("version %d\n", v)},
				{fmt.Sprintf("part-%d/notes.md", k), strings.Repeat(fmt.Sprintf("notes of part %d\n", k), 30+v)},
			} {
				fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", f.path, len(f.content), f.content)
			}
			in.WriteString("\n")
		}
		// Below fastimport.unpackLimit (100) fast-import writes loose objects.
		cmd := exec.Command("git", "-c", "fastimport.unpackLimit=1", "fast-import", "--quiet")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		cmd.Stdin = strings.NewReader(in.String())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git fast-import: %v\n%s", err, out)
		}
	}
	for _, content := range loose {
		cmd := exec.Command("git", "hash-object", "-w", "--stdin")
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(content)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git hash-object: %v\n%s", err, out)
		}
	}
	if got := len(packFiles(t, dir)); got != n {
		t.Fatalf("%d packs made, want %d", got, n)
	}
	return dir
}

// checkReads checks that db reads every object of want as git did.
func checkReads(t *testing.T, db *DB, want map[ID]Object) {
	t.Helper()
	for h, o := range want {
		got, err := db.Read(h)
		if err != nil {
			t.Fatalf("read %s: %v", h, err)
		}
		if got.Type != o.Type || !bytes.Equal(got.Data, o.Data) {
			t.Fatalf("object %s: not what git read", h)
		}
	}
}

// TestMergePacksKeepsEveryObject merges six packs and the loose objects
// into one: every object is there (git fsck --full and verify-pack agree,
// and git reads what it read before), the deltas of the packs are copied,
// nothing it replaced is left, and a reader that had the old packs open
// goes on reading.
func TestMergePacksKeepsEveryObject(t *testing.T) {
	dir := repoOfPacks(t, 6, "loose one\n", "loose two\n", "loose three\n")
	want := catFileAll(t, dir)
	reader := Open(dir)
	defer reader.Close()
	var anyID ID
	for h := range want {
		anyID = h
		break
	}
	if _, err := reader.Read(anyID); err != nil { // opens the old packs
		t.Fatal(err)
	}

	res, err := MergePacks(context.Background(), dir, PackIDs(dir), true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Objects != len(want) || res.Packs != 6 || res.Loose != 3 || res.Deltas == 0 {
		t.Fatalf("merge = %+v; want all %d objects, 6 packs and 3 loose objects replaced, deltas copied", res, len(want))
	}
	if packs := PackIDs(dir); len(packs) != 1 || packs[0] != res.Pack {
		t.Fatalf("packs after the merge: %v, want only %s", packs, res.Pack)
	}
	if loose, _ := ListLoose(dir); len(loose) != 0 {
		t.Fatalf("%d loose objects left", len(loose))
	}
	checkLikeGit(t, dir, want)
	gitRun(t, dir, "fsck", "--full", "--strict")
	checkReads(t, reader, want)
	fresh := Open(dir)
	defer fresh.Close()
	checkReads(t, fresh, want)
}

// TestMergePacksOfOnePackIsNothing: one pack and no loose object is left
// as it is.
func TestMergePacksOfOnePackIsNothing(t *testing.T) {
	dir := repoOfPacks(t, 2)
	one := PackIDs(dir)[:1]
	res, err := MergePacks(context.Background(), dir, one, false)
	if err != nil || res != (MergeResult{}) {
		t.Fatalf("merge of one pack = %+v, %v; want nothing done", res, err)
	}
	if len(PackIDs(dir)) != 2 {
		t.Fatal("a merge of one pack changed the packs")
	}
}

// looseIn17 returns n blob contents whose ids start with 0x17, the
// fan-out folder git (and TooManyLoose) counts to estimate the loose
// objects.
func looseIn17(n int) []string {
	var out []string
	for i := 0; len(out) < n; i++ {
		c := fmt.Sprintf("blob %d\n", i)
		if HashObject(BlobObject, []byte(c))[0] == 0x17 {
			out = append(out, c)
		}
	}
	return out
}

// TestAutoPackPastTheLimits: below both limits AutoPack does nothing;
// past gc.autoPackLimit it merges packs of one size into one; past
// gc.auto (estimated from objects/17) it packs the loose objects; with
// gc.auto 0 it never runs.
func TestAutoPackPastTheLimits(t *testing.T) {
	ctx := context.Background()
	dir := repoOfPacks(t, 4, looseIn17(2)...)
	want := catFileAll(t, dir)
	if _, ran, err := AutoPack(ctx, dir, AutoLimits{Loose: 6700, Packs: 4}); ran || err != nil {
		t.Fatalf("AutoPack at 4 packs with a limit of 4 ran (%v)", err)
	}
	if _, ran, err := AutoPack(ctx, dir, AutoLimits{Loose: 0, Packs: 1}); ran || err != nil {
		t.Fatalf("AutoPack with gc.auto 0 ran (%v)", err)
	}
	res, ran, err := AutoPack(ctx, dir, AutoLimits{Loose: 6700, Packs: 3})
	if !ran || err != nil || res.Packs != 4 || res.Loose != 0 {
		t.Fatalf("AutoPack past the pack limit = %+v, %v, %v; want the 4 packs merged, loose objects left", res, ran, err)
	}
	if n := len(PackIDs(dir)); n != 1 {
		t.Fatalf("%d packs after AutoPack", n)
	}
	if !TooManyLoose(dir, 1) || TooManyLoose(dir, 6700) {
		t.Fatal("two loose objects in objects/17 should pass gc.auto 1, not 6700")
	}
	res, ran, err = AutoPack(ctx, dir, AutoLimits{Loose: 1, Packs: 50})
	if !ran || err != nil || res.Loose != 2 {
		t.Fatalf("AutoPack past gc.auto = %+v, %v, %v; want the 2 loose objects packed", res, ran, err)
	}
	checkLikeGit(t, dir, want)
	gitRun(t, dir, "fsck", "--full", "--strict")
}

// TestGeometricRollUp checks which packs a roll-up merges.
func TestGeometricRollUp(t *testing.T) {
	id := func(i int) ID { return ID{byte(i)} }
	sizes := func(ns ...int) []packSize {
		var out []packSize
		for i, n := range ns {
			out = append(out, packSize{id(i), n})
		}
		return out
	}
	for _, c := range []struct {
		name  string
		packs []packSize
		extra int
		want  int // packs merged
	}{
		{"one size, as import writes", sizes(100, 100, 100, 100, 100), 0, 5},
		{"a gc pack and small ones", sizes(10000, 10, 12, 9, 11), 0, 4},
		{"already geometric", sizes(1, 2, 4, 8, 16), 0, 0},
		{"geometric but loose objects to pack", sizes(1, 2, 4, 800), 10, 3},
		{"no packs", nil, 5, 0},
	} {
		got := geometricRollUp(c.packs, c.extra, 2)
		if len(got) != c.want {
			t.Errorf("%s: %d packs merged, want %d", c.name, len(got), c.want)
		}
		if c.name == "a gc pack and small ones" && slices.Contains(got, id(0)) {
			t.Errorf("%s: the large pack is merged", c.name)
		}
	}
}

// TestReadAutoLimits reads git's settings from the repository's config.
func TestReadAutoLimits(t *testing.T) {
	dir := t.TempDir()
	gitRun(t, dir, "init", "-q", "--bare")
	if l := ReadAutoLimits(dir); l != DefaultAutoLimits {
		t.Fatalf("limits of a new repository = %+v, want git's defaults", l)
	}
	gitRun(t, dir, "config", "gc.autoPackLimit", "3")
	if l := ReadAutoLimits(dir); l.Packs != 3 || l.Loose != 6700 {
		t.Fatalf("limits with gc.autoPackLimit 3 = %+v", l)
	}
	gitRun(t, dir, "config", "gc.auto", "0")
	if l := ReadAutoLimits(dir); !l.Off() {
		t.Fatalf("limits with gc.auto 0 = %+v, want off", l)
	}
	gitRun(t, dir, "config", "gc.auto", "1k")
	if l := ReadAutoLimits(dir); l.Loose != 1024 {
		t.Fatalf("limits with gc.auto 1k = %+v", l)
	}
}

// mergeHelperEnv makes the test binary a process that merges the packs
// and loose objects of the repository it names, killing itself at the
// step mergeKillEnv names (if any).
const (
	mergeHelperEnv = "GITDB_TEST_MERGE_DIR"
	mergeKillEnv   = "GITDB_TEST_MERGE_KILL_AT"
)

func TestMergeHelperProcess(t *testing.T) {
	dir := os.Getenv(mergeHelperEnv)
	if dir == "" {
		t.Skip("run by TestMergeKilled")
	}
	at := os.Getenv(mergeKillEnv)
	mergeStep = func(step string) {
		if step == at {
			self, _ := os.FindProcess(os.Getpid())
			self.Kill() // as a kill -9 would: no deferred cleanup
			time.Sleep(time.Minute)
		}
	}
	if _, err := MergePacks(context.Background(), dir, PackIDs(dir), true); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestMergeKilled kills a real merging process after each step that
// changes the disk, and at random moments (the seed is logged): every
// object stays readable, git fsck --full accepts the repository, and a
// merge run afterwards leaves one pack.
func TestMergeKilled(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 43))
	steps := []string{"written", "index", "pack", "packs removed", "random", "random", "random"}
	for _, step := range steps {
		dir := repoOfPacks(t, 8, "loose a\n", "loose b\n")
		want := catFileAll(t, dir)
		cmd := exec.Command(os.Args[0], "-test.run=^TestMergeHelperProcess$")
		cmd.Env = append(os.Environ(), mergeHelperEnv+"="+dir, mergeKillEnv+"="+step)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if step == "random" {
			time.Sleep(time.Duration(rng.Int64N(int64(40 * time.Millisecond))))
			cmd.Process.Kill()
		}
		err := cmd.Wait()
		if step != "random" && err == nil {
			t.Fatalf("the merge was not killed at %q:\n%s", step, out.String())
		}
		checkLikeGit(t, dir, want)
		gitRun(t, dir, "fsck", "--full", "--strict")
		db := Open(dir)
		checkReads(t, db, want)
		db.Close()
		if _, err := MergePacks(context.Background(), dir, PackIDs(dir), true); err != nil {
			t.Fatalf("merge after a kill at %q: %v", step, err)
		}
		if n := len(PackIDs(dir)); n != 1 {
			t.Fatalf("merge after a kill at %q: %d packs", step, n)
		}
		temps, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "tmp_*"))
		if (step == "pack" || step == "packs removed") && len(temps) != 0 {
			t.Fatalf("kill at %q, once the pack was in place, left temporary files %v", step, temps)
		}
		// What a kill before left, gc removes past its grace.
		RemoveStaleTemps(dir, time.Now().Add(time.Hour), time.Minute)
		if temps, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "tmp_*")); len(temps) != 0 {
			t.Fatalf("temporary files after the kill at %q outlive gc's clean-up: %v", step, temps)
		}
		checkLikeGit(t, dir, want)
	}
}
