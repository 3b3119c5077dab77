package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// The export works write the store's skills into a target folder, beside
// the copy tools doing the same file work: cp -a of the skill folders into
// an empty folder (first export), rsync -a of a copy where 1% of the
// skills changed (re-export). export also syncs the filesystem once before
// it switches any folder; neither cp nor rsync does.

const exportTarget = "bench"

// exportDirs are the folders one size's export works use under tmp.
type exportDirs struct {
	target, cp, rsyncSrc, rsyncDst string
}

func exportPaths(f *fixture, tmp string) exportDirs {
	base := filepath.Join(tmp, fmt.Sprintf("export-%d", f.n))
	return exportDirs{
		target:   filepath.Join(base, "target"),
		cp:       filepath.Join(base, "cp"),
		rsyncSrc: filepath.Join(base, "rsync-src"),
		rsyncDst: filepath.Join(base, "rsync-dst"),
	}
}

var targetsAdded = map[string]bool{}

// ensureTarget records the target named exportTarget for this size (the
// bench's config folders are its own, so each size re-points it).
func ensureTarget(b *bench, f *fixture, dir string) error {
	if targetsAdded[f.store] {
		return nil
	}
	b.run(b.bin, f.store, "target", "rm", exportTarget) // absent the first time
	if _, err := b.run(b.bin, f.store, "target", "add", exportTarget, dir); err != nil {
		return err
	}
	targetsAdded[f.store] = true
	return nil
}

// emptyTargets removes what the previous first export and cp wrote.
func emptyTargets(b *bench, f *fixture, k int, tmp string) error {
	d := exportPaths(f, tmp)
	if err := os.RemoveAll(d.target); err != nil {
		return err
	}
	if err := os.RemoveAll(d.cp); err != nil {
		return err
	}
	return ensureTarget(b, f, d.target)
}

var exportRound int

// changeOnePercent makes 1% of the skills change (a new version in the
// store, imported untimed; the same edit in rsync's source), after a
// first export and a first rsync if none happened yet.
func changeOnePercent(b *bench, f *fixture, k int, tmp string) error {
	d := exportPaths(f, tmp)
	if err := ensureTarget(b, f, d.target); err != nil {
		return err
	}
	if _, err := os.Stat(d.rsyncDst); err != nil {
		if _, err := b.run(b.bin, f.store, "export", exportTarget); err != nil {
			return err
		}
		if _, err := b.run("cp", "", "-a", f.skills, d.rsyncSrc); err != nil {
			return err
		}
		if _, err := b.run("rsync", "", "-a", d.rsyncSrc+"/", d.rsyncDst+"/"); err != nil {
			return err
		}
	}
	exportRound++
	edits := filepath.Join(tmp, "reexport-edits")
	os.RemoveAll(edits)
	extra := fmt.Sprintf("\nRe-export round %d.\n", exportRound)
	// Skills 7, 107, 207, ...: none of the skills other works use.
	for i := 7; i < f.n; i += 100 {
		if err := writeSkill(filepath.Join(edits, skillName(i)), i, extra); err != nil {
			return err
		}
		if err := writeSkill(filepath.Join(d.rsyncSrc, skillName(i)), i, extra); err != nil {
			return err
		}
	}
	_, err := b.run(b.bin, f.store, "import", edits)
	return err
}

func exportWorks() []work {
	return []work{
		{name: "export (first)", before: emptyTargets, slow: true,
			args: fixed("export", exportTarget),
			ref: func(f *fixture, k int, tmp string) []string {
				return []string{"cp", "-a", f.skills, exportPaths(f, tmp).cp}
			}},
		{name: "export (1% changed)", before: changeOnePercent,
			args: fixed("export", exportTarget),
			ref: func(f *fixture, k int, tmp string) []string {
				d := exportPaths(f, tmp)
				return []string{"rsync", "-a", d.rsyncSrc + "/", d.rsyncDst + "/"}
			}},
	}
}

// statusWorks measure status of an exported target where nothing changed
// (the store's own stat cache warm after the first run), beside git status
// --porcelain of a work tree holding the same files (its index warm).
func statusWorks() []work {
	return []work{
		{name: "status", before: ensureExported,
			args: fixed("status"),
			ref: func(f *fixture, k int, tmp string) []string {
				wt := statusWorkTree(f, tmp)
				return []string{"git", "--git-dir", filepath.Join(wt, ".git"), "--work-tree=" + wt, "status", "--porcelain"}
			}},
	}
}

func statusWorkTree(f *fixture, tmp string) string {
	return filepath.Join(tmp, fmt.Sprintf("status-%d", f.n))
}

// ensureExported exports the store into the bench target and makes the
// git work tree of the same files, once per size, and warms both.
func ensureExported(b *bench, f *fixture, k int, tmp string) error {
	d := exportPaths(f, tmp)
	if err := ensureTarget(b, f, d.target); err != nil {
		return err
	}
	wt := statusWorkTree(f, tmp)
	if _, err := os.Stat(wt); err == nil {
		return nil
	}
	if _, err := b.run(b.bin, f.store, "export", exportTarget); err != nil {
		return err
	}
	if _, err := b.run("cp", "", "-a", f.skills, wt); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "skills"}, {"status", "--porcelain"}} {
		if _, err := b.run("git", "", append([]string{"-C", wt}, args...)...); err != nil {
			return err
		}
	}
	_, err := b.run(b.bin, f.store, "status")
	return err
}
