package reload

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/safedir"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// writeRecordT replaces target's record with rec.
func writeRecordT(t *testing.T, target string, rec *record) {
	t.Helper()
	b, err := openBook(target, "", true)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	if err := b.writeRecord(rec); err != nil {
		t.Fatal(err)
	}
}

// snapshot lists every entry below dir with its mode and content (a link's
// target), so a test can check a folder is byte for byte as it was.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		v := info.Mode().String()
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			link, _ := os.Readlink(p)
			v += " -> " + link
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(data)
		}
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// victimDir makes a folder outside any target, holding files whose names
// the bookkeeping would act on (a retired folder's, a staged folder's, a
// lock's), and returns it and a check that it did not change.
func victimDir(t *testing.T) (string, func()) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "victim")
	writeTree(t, dir, map[string]string{
		"precious.txt":             "the user's file\n",
		"1-deploy/SKILL.md":        "not a staged folder\n",
		"100-0000-deploy/SKILL.md": "not a retired folder\n",
		"lock":                     "not a lock\n",
		"lock.gate":                "not a gate\n",
	})
	before := snapshot(t, dir)
	return dir, func() {
		t.Helper()
		after := snapshot(t, dir)
		for p, v := range before {
			if after[p] != v {
				t.Errorf("victim %s changed: %q, was %q", p, after[p], v)
			}
		}
		for p := range after {
			if _, ok := before[p]; !ok {
				t.Errorf("victim gained %s", p)
			}
		}
	}
}

// TestBookkeepingLinksAreRefused plants, in a target export wrote to, a
// link in place of the bookkeeping folder or of one of its entries,
// pointing at a folder (or file) outside the target. Export, status,
// adopt and plan refuse the target with an error naming the entry, and
// the victim is byte for byte as it was.
func TestBookkeepingLinksAreRefused(t *testing.T) {
	for _, entry := range []string{"", "tmp", "retired", "rescued", "lock", "lock.gate", "exported.json"} {
		t.Run("link "+filepath.Join(".skillstore", entry), func(t *testing.T) {
			ctx := context.Background()
			target := filepath.Join(t.TempDir(), "skills")
			v1 := Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")}
			v2 := Skill{Name: "deploy", Files: skillFiles("v2\n", "v1")}
			export(t, target, v1)
			vdir, unchanged := victimDir(t)
			planted := filepath.Join(target, skillfs.BookkeepingDir, entry)
			to := vdir
			if strings.HasPrefix(entry, "lock") || entry == "exported.json" {
				to = filepath.Join(vdir, filepath.Base(entry))
				if entry == "exported.json" {
					to = filepath.Join(vdir, "precious.txt")
				}
			}
			if err := os.RemoveAll(planted); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(to, planted); err != nil {
				t.Fatal(err)
			}
			refused := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, safedir.ErrNotPlain) || !strings.Contains(err.Error(), planted) {
					t.Errorf("%s: err = %v, want a refusal naming %s", what, err, planted)
				}
			}
			_, err := Export(ctx, target, []Skill{v2}, ExportOptions{Grace: -1, LockTimeout: time.Second})
			refused("export", err)
			_, err = Status(ctx, target, time.Second)
			refused("status", err)
			inFolders := entry == "tmp" || entry == "retired" || entry == "rescued"
			if entry != "retired" && entry != "rescued" {
				// Adopt empties tmp/; it never enters retired/ or rescued/.
				_, err = AdoptSkills(ctx, target, map[string][]skillfs.File{"deploy": v1.Files}, time.Second)
				refused("adopt", err)
			}
			if !inFolders {
				// Plan reads the record under the lock; it never enters
				// tmp/, retired/ or rescued/.
				_, err = Plan(ctx, target, []Skill{v2}, ExportOptions{LockTimeout: time.Second})
				refused("plan", err)
			}
			unchanged()
			if got := readFileT(t, filepath.Join(target, "deploy", "SKILL.md")); !strings.Contains(got, "v1") {
				t.Errorf("the skill folder changed although its target was refused: %q", got)
			}
		})
	}
}

// TestRecordEntryOutsideTargetIsIgnored: an exported.json entry named
// ../../victim, whose tree is the victim folder's, would have export
// remove "its" folder (move it to retired/, then delete it). It is ignored
// with a warning naming the file, and the victim stays.
func TestRecordEntryOutsideTargetIsIgnored(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	target := filepath.Join(root, "project", "skills")
	victim := filepath.Join(root, "victim")
	writeTree(t, victim, map[string]string{"SKILL.md": "---\nname: victim\ndescription: x\n---\nmine\n"})
	before := snapshot(t, victim)
	export(t, target, Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")})
	disk, err := ReadTree(victim)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := readRecord(target)
	if err != nil {
		t.Fatal(err)
	}
	rec.Skills["../../victim"] = newRecordEntry(disk, time.Now())
	rec.Skills[".hidden"] = newRecordEntry(disk, time.Now())
	writeRecordT(t, target, rec)
	// A null entry would make a nil record entry.
	p := filepath.Join(target, skillfs.BookkeepingDir, recordFile)
	data := strings.Replace(readFileT(t, p), `"skills": {`, `"skills": {"nil": null,`, 1)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}

	sts, err := Status(ctx, target, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ignored := 0
	for _, st := range sts {
		if st.State == StateIgnored {
			ignored++
			if !strings.Contains(st.Error, p) {
				t.Errorf("status of %q does not name the record: %s", st.Skill, st.Error)
			}
		}
	}
	if ignored != 3 {
		t.Errorf("status: %d ignored entries, want 3: %+v", ignored, sts)
	}
	rep, err := Export(ctx, target, nil, ExportOptions{Grace: -1})
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(rep); got != "deploy=removed" {
		t.Errorf("export: %s, want only deploy removed", got)
	}
	if len(rep.Warnings) != 3 || !strings.Contains(strings.Join(rep.Warnings, "\n"), `"../../victim" is not one folder name in the target`) {
		t.Errorf("warnings: %q", rep.Warnings)
	}
	after := snapshot(t, victim)
	if len(after) != len(before) || after["SKILL.md"] != before["SKILL.md"] {
		t.Errorf("victim changed: %v, was %v", after, before)
	}
}

// TestBookkeepingEntriesMustBePlain: a file where tmp/ belongs, or a FIFO
// where the record belongs, is refused by name without blocking.
func TestBookkeepingEntriesMustBePlain(t *testing.T) {
	ctx := context.Background()
	target := filepath.Join(t.TempDir(), "skills")
	export(t, target, Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")})
	tmp := filepath.Join(target, skillfs.BookkeepingDir, tmpDir)
	if err := os.RemoveAll(tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tmp, []byte("a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Export(ctx, target, nil, ExportOptions{})
	if !errors.Is(err, safedir.ErrNotPlain) || !strings.Contains(err.Error(), tmp+" is a file, not a plain folder") {
		t.Errorf("export: %v", err)
	}
	if got := readFileT(t, tmp); got != "a file" {
		t.Errorf("the file in tmp/'s place changed: %q", got)
	}
}

// TestStatusReportsUnreadableFolders: a FIFO in a skill folder, or a skill
// folder replaced by a file, is that folder's state (naming the entry),
// and the target's other folders are still compared.
func TestStatusReportsUnreadableFolders(t *testing.T) {
	ctx := context.Background()
	target := filepath.Join(t.TempDir(), "skills")
	lint := Skill{Name: "lint", Files: []skillfs.File{{Path: "SKILL.md", Data: []byte("lint\n")}}}
	review := Skill{Name: "review", Files: []skillfs.File{{Path: "SKILL.md", Data: []byte("review\n")}}}
	export(t, target, Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")}, lint, review)
	fifo := filepath.Join(target, "deploy", "pipe")
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(target, "lint")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "lint"), []byte("a file now"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeTree(t, target, map[string]string{"review/extra.md": "edited\n"})

	sts, err := Status(ctx, target, time.Second)
	if err != nil {
		t.Fatalf("status stopped at one odd entry: %v", err)
	}
	got := map[string]SkillStatus{}
	for _, st := range sts {
		got[st.Skill] = st
	}
	if st := got["deploy"]; st.State != StateUnreadable || !strings.Contains(st.Error, fifo) || !strings.Contains(st.Error, "unsupported file type") {
		t.Errorf("deploy: %+v, want unreadable naming %s", st, fifo)
	}
	if st := got["lint"]; st.State != StateUnreadable || !strings.Contains(st.Error, filepath.Join(target, "lint")) {
		t.Errorf("lint: %+v, want unreadable naming the file", st)
	}
	if st := got["review"]; st.State != StateModified {
		t.Errorf("review: %+v, want modified", st)
	}
	// Export of new versions leaves both alone, naming them, and goes
	// on with the rest.
	lint.Files = []skillfs.File{{Path: "SKILL.md", Data: []byte("lint v2\n")}}
	review.Files = []skillfs.File{{Path: "SKILL.md", Data: []byte("review v2\n")}}
	rep, err := Export(ctx, target, []Skill{{Name: "deploy", Files: skillFiles("v2\n", "v1")}, lint, review}, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if actions(rep) != "deploy=failed lint=failed review=locally-modified" {
		t.Errorf("export: %s", actions(rep))
	}
	if e := rep.Results[0].Error; !strings.Contains(e, fifo) {
		t.Errorf("deploy failed with %q, want the FIFO named", e)
	}
	if e := rep.Results[1].Error; !strings.Contains(e, filepath.Join(target, "lint")+": not a skill folder but a file") {
		t.Errorf("lint failed with %q", e)
	}
	if data, _ := json.Marshal(got["lint"]); !strings.Contains(string(data), `"state":"unreadable"`) {
		t.Errorf("json: %s", data)
	}
}

// TestExportWithRootFollowsNoLink: a project's target is exported with
// ExportOptions.Root, the project's root. A link on the way from the root
// (the project's .claude, pointing at a folder outside, or its skills
// folder) refuses the export and the plan by name, before and after the
// target was first written; nothing is made or changed past the link.
// Without Root the same target follows the link (the user's own choice).
func TestExportWithRootFollowsNoLink(t *testing.T) {
	ctx := context.Background()
	v1 := Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")}
	for _, link := range []string{".claude", ".claude/skills"} {
		t.Run(link, func(t *testing.T) {
			project := t.TempDir()
			target := filepath.Join(project, ".claude", "skills")
			opts := ExportOptions{Grace: -1, LockTimeout: time.Second, Root: project}
			if _, err := Export(ctx, target, []Skill{v1}, opts); err != nil {
				t.Fatalf("export inside the project: %v", err)
			}
			vdir, unchanged := victimDir(t)
			planted := filepath.Join(project, filepath.FromSlash(link))
			if err := os.RemoveAll(planted); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(planted), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(vdir, planted); err != nil {
				t.Fatal(err)
			}
			for what, run := range map[string]func() error{
				"export": func() error { _, err := Export(ctx, target, []Skill{v1}, opts); return err },
				"plan":   func() error { _, err := Plan(ctx, target, []Skill{v1}, opts); return err },
			} {
				err := run()
				if !errors.Is(err, safedir.ErrNotPlain) || !strings.Contains(err.Error(), planted) {
					t.Errorf("%s: err = %v, want a refusal naming %s", what, err, planted)
				}
			}
			unchanged()
			// Without Root the folder the user named is followed.
			if _, err := Export(ctx, target, []Skill{v1}, ExportOptions{Grace: -1, LockTimeout: time.Second}); err != nil {
				t.Fatalf("export by path: %v", err)
			}
			followed := filepath.Join(vdir, "deploy")
			if link == ".claude" {
				followed = filepath.Join(vdir, "skills", "deploy")
			}
			if _, err := os.Stat(followed); err != nil {
				t.Errorf("export by path did not follow the link: %v", err)
			}
		})
	}
}
