package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/skillfs"
)

func TestGCPacksAndPrunesOnlyPastGrace(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	dir := writeSkill(t, t.TempDir(), "keep", "Kept.", nil)
	for i := 0; i < 5; i++ {
		os.WriteFile(filepath.Join(dir, "n.txt"), []byte(strings.Repeat("line\n", i+1)), 0o644)
		if _, err := s.Add(ctx, []string{dir}, defaultAdd()); err != nil {
			t.Fatal(err)
		}
	}
	// Two unreachable objects, as a crashed writer leaves them: one old, one new.
	var oldBlob, newBlob Hash
	err := s.Update(ctx, func(tx *Tx) error {
		oldBlob = tx.writeBlob([]byte("orphan from long ago\n"))
		newBlob = tx.writeBlob([]byte("orphan from a writer still running\n"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	longAgo := time.Now().Add(-48 * time.Hour)
	hex := oldBlob.String()
	if err := os.Chtimes(filepath.Join(s.Dir(), "objects", hex[:2], hex[2:]), longAgo, longAgo); err != nil {
		t.Fatal(err)
	}

	res, err := s.GC(ctx, DefaultGCGrace)
	if err != nil {
		t.Fatal(err)
	}
	if res.Pruned != 1 || res.Kept != 1 || res.Deltas == 0 {
		t.Errorf("gc = %+v, want 1 pruned, 1 kept, some deltas", res)
	}
	loose, _ := gitdb.ListLoose(s.Dir())
	if _, ok := loose[oldBlob]; ok {
		t.Error("old unreachable object survived gc")
	}
	if _, ok := loose[newBlob]; !ok {
		t.Error("recent unreachable object was deleted before its grace period")
	}
	packs, _ := filepath.Glob(filepath.Join(s.Dir(), "objects", "pack", "*.pack"))
	if len(packs) != 1 || len(loose) != 1 {
		t.Errorf("after gc: %d packs, %d loose objects; want 1 and 1", len(packs), len(loose))
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), "packed-refs")); err != nil {
		t.Errorf("refs not packed: %v", err)
	}
	gitCmd(t, s.Dir(), "fsck", "--strict")
	if rep, err := s.Verify(ctx); err != nil || !rep.OK() {
		t.Fatalf("verify after gc: %v %+v", err, rep)
	}
	log, err := s.Log(ctx, "keep")
	if err != nil || len(log) != 5 {
		t.Fatalf("log after gc: %d versions, %v", len(log), err)
	}

	// A second gc keeps the same pack and changes nothing reachable.
	if _, err := s.GC(ctx, DefaultGCGrace); err != nil {
		t.Fatal(err)
	}
	if rep, err := s.Verify(ctx); err != nil || !rep.OK() {
		t.Fatalf("verify after second gc: %v %+v", err, rep)
	}
	// With no grace, the recent orphan goes too.
	res, err = s.GC(ctx, 0)
	if err != nil || res.Pruned != 1 {
		t.Fatalf("gc --grace 0 = %+v, %v", res, err)
	}
}

func TestVerifyFindsBrokenHistory(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	// A history that skips from v1 to v3, and a tree without SKILL.md.
	err := s.Update(ctx, func(tx *Tx) error {
		tree, err := tx.WriteTree([]File{{Path: "SKILL.md", Mode: skillfs.Regular, Data: []byte("---\nname: gap\ndescription: x\n---\n")}})
		if err != nil {
			return err
		}
		v1, err := tx.CommitVersion("gap", tree, VersionInfo{})
		if err != nil {
			return err
		}
		sig := tx.Signature()
		c := versionCommit("gap", 3, []Hash{v1.Commit}, tree, VersionInfo{}, sig)
		tx.SetRef(SkillRef("gap"), tx.WriteCommit(c))
		bare, err := tx.WriteTree([]File{{Path: "README.md", Mode: skillfs.Regular, Data: []byte("no skill\n")}})
		if err != nil {
			return err
		}
		_, err = tx.CommitVersion("bare", bare, VersionInfo{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, p := range rep.Problems {
		msgs = append(msgs, p.String())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{
		"refs/heads/skills/gap: commit", "is v1 but its child is v3",
		"bare@v1: no SKILL.md at the top of the tree",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("verify problems lack %q:\n%s", want, all)
		}
	}
}

func TestCheckoutIsAllOrNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	os.MkdirAll(dir, 0o755)
	// An earlier checkout of the skill, with a file added since.
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("keep me"), 0o644)
	files := []File{{Path: "SKILL.md", Mode: skillfs.Regular, Data: []byte("x")}, {Path: "s/run.sh", Mode: skillfs.Executable, Data: []byte("#!/bin/sh\n")}}
	if err := WriteTreeDir(dir, files, false); err == nil {
		t.Fatal("non-empty folder accepted without force")
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "mine.txt")); string(data) != "keep me" {
		t.Fatal("refused checkout touched the folder")
	}
	// A bad path fails before the folder is touched.
	bad := append(files, File{Path: "../escape", Mode: skillfs.Regular, Data: []byte("x")})
	if err := WriteTreeDir(dir, bad, true); err == nil {
		t.Fatal("path with .. accepted")
	}
	if _, err := os.Stat(filepath.Join(dir, "mine.txt")); err != nil {
		t.Fatal("failed checkout touched the folder")
	}
	if err := WriteTreeDir(dir, files, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "mine.txt")); !os.IsNotExist(err) {
		t.Error("forced checkout kept old content")
	}
	if info, err := os.Stat(filepath.Join(dir, "s", "run.sh")); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("executable not written as such: %v %v", info, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("temporary folders left behind: %v", entries)
	}
}

func TestStateRecordsAreAnAuditLog(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	dir := writeSkill(t, t.TempDir(), "rec", "Records.", nil)
	if _, err := s.Add(ctx, []string{dir}, defaultAdd()); err != nil {
		t.Fatal(err)
	}
	for _, st := range []Status{StatusDisabled, StatusActive, StatusRemoved} {
		if err := s.SetStatus(ctx, "rec", st, "because "+string(st)); err != nil {
			t.Fatal(err)
		}
	}
	out := gitCmd(t, s.Dir(), "log", "--format=%s", StateRef)
	if out != "rec: removed\nrec: active\nrec: disabled\n" {
		t.Errorf("state log:\n%s", out)
	}
	list, _ := s.List(ctx, false)
	all, _ := s.List(ctx, true)
	if len(list) != 0 || len(all) != 1 || all[0].Status != StatusRemoved || all[0].Reason != "because removed" {
		t.Errorf("list = %+v, all = %+v", list, all)
	}
	err := s.View(ctx, func(r *Reader) error {
		keys, err := r.RecordKeys("skills")
		if err != nil || len(keys) != 1 || keys[0] != "rec" {
			t.Errorf("record keys = %v, %v", keys, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A new version of a removed skill brings it back.
	os.WriteFile(filepath.Join(dir, "more.md"), []byte("more\n"), 0o644)
	if _, err := s.Add(ctx, []string{dir}, defaultAdd()); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.List(ctx, false); len(list) != 1 || list[0].Status != StatusActive {
		t.Errorf("re-added skill = %+v", list)
	}
}

func TestGCKeepsWhatAnnotatedTagsName(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	dir := writeSkill(t, t.TempDir(), "tagged", "Tagged.", nil)
	if _, err := s.Add(ctx, []string{dir}, defaultAdd()); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, s.Dir(), "-c", "user.name=T", "-c", "user.email=t@example.com", "tag", "-a", "-m", "keep", "kept", "refs/heads/skills/tagged")
	if err := s.Purge(ctx, "tagged", "only the tag keeps it"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GC(ctx, 0); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, s.Dir(), "fsck", "--strict")
	if out := gitCmd(t, s.Dir(), "show", "kept:SKILL.md"); !strings.Contains(out, "name: tagged") {
		t.Errorf("tagged tree lost: %s", out)
	}
}

// TestCheckoutForceReplacesOnlyOneSkill: --force deletes what a folder
// held, so a folder holding other skills (an agent's skills folder, its
// parent), a target's bookkeeping, a repository, or no skill of its own (a
// home folder) is refused and left byte for byte as it was.
func TestCheckoutForceReplacesOnlyOneSkill(t *testing.T) {
	files := []File{{Path: "SKILL.md", Mode: skillfs.Regular, Data: []byte("new")}}
	for name, tree := range map[string]map[string]string{
		"skills folder":  {"deploy/SKILL.md": "a", "lint/SKILL.md": "b"},
		"its parent":     {"skills/deploy/SKILL.md": "a", "notes.txt": "n"},
		"home":           {".bashrc": "x", "Documents/letter.txt": "y"},
		"bookkeeping":    {"SKILL.md": "a", ".skillstore/exported.json": "{}"},
		"repository":     {"SKILL.md": "a", ".git/HEAD": "ref: refs/heads/main\n"},
		"skill in skill": {"SKILL.md": "a", "other/SKILL.md": "b"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "dir")
			for p, data := range tree {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
				if err := os.WriteFile(filepath.Join(dir, p), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := WriteTreeDir(dir, files, true)
			if !errors.Is(err, ErrNotOneSkill) || !strings.Contains(err.Error(), dir) {
				t.Fatalf("err = %v, want ErrNotOneSkill naming the folder", err)
			}
			for p, data := range tree {
				if got, err := os.ReadFile(filepath.Join(dir, p)); err != nil || string(got) != data {
					t.Errorf("%s changed: %q, %v", p, got, err)
				}
			}
		})
	}
	// A version that has a nested SKILL.md itself replaces its earlier
	// checkout.
	dir := filepath.Join(t.TempDir(), "dir")
	nested := append(files, File{Path: "examples/SKILL.md", Mode: skillfs.Regular, Data: []byte("e")})
	if err := WriteTreeDir(dir, nested, false); err != nil {
		t.Fatal(err)
	}
	if err := WriteTreeDir(dir, nested, true); err != nil {
		t.Errorf("replacing an earlier checkout of the same version: %v", err)
	}
}
