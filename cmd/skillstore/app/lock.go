package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/internal/problem"
	"github.com/skillstore/skillstore/reload/projectlock"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
)

// LockOptions are lock's: the project (its root; "" for the one holding
// the working directory) and the team remote to name.
type LockOptions struct {
	Global
	Output
	Project string
	Remote  string
}

// lockView is lock's --json report.
type lockView struct {
	File     string            `json:"file"`
	Changed  bool              `json:"changed"`
	Lock     *projectlock.Lock `json:"lock"`
	Warnings []string          `json:"warnings"`
	// Uninstallable: the versions a clone cannot install yet (exit 1).
	Uninstallable []string          `json:"uninstallable"`
	Export        []target.Exported `json:"export"`
}

// Lock writes the project's lock file from the store and pins the
// project's targets to it.
func Lock(ctx context.Context, opts LockOptions) error {
	project, err := projectDir(ctx, opts.Project)
	if err != nil {
		return err
	}
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	built, err := projectlock.Build(ctx, s, projectlock.BuildOptions{Project: project, Remote: opts.Remote})
	if errors.Is(err, projectlock.ErrNoTargets) {
		return WithHint(err, "add one with 'skillstore target add --project claude' (or another agent), export, then lock")
	}
	if err != nil {
		return err
	}
	path := projectlock.Path(project)
	data, err := built.Lock.Marshal()
	if err != nil {
		return err
	}
	old, _ := os.ReadFile(path)
	changed := !bytes.Equal(old, data)
	if changed {
		if err := built.Lock.Write(path); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := projectlock.Pin(ctx, s, built); err != nil {
		return fmt.Errorf("lock written, but the targets were not pinned to it: %w", err)
	}
	exported, err := exportLocked(ctx, opts.Global, s, built.Lock)
	if opts.JSON {
		if jerr := cliout.JSON(opts.Stdout, lockView{File: path, Changed: changed, Lock: built.Lock, Warnings: nonNil(built.Warnings), Uninstallable: nonNil(built.Uninstallable), Export: exported}); jerr != nil {
			return jerr
		}
		if err == nil && len(built.Uninstallable) > 0 {
			return ErrReported
		}
		return err
	}
	l := built.Lock
	state := "wrote"
	if !changed {
		state = "unchanged:"
	}
	cliout.Printf(opts.Stdout, "%s %s: %s in %s, %s%s\n", state, path, Plural(len(l.Skills), "skill"), Plural(len(l.Targets), "target"), Plural(len(l.Plugins), "plugin"), remoteNote(l.Remote))
	PrintExports(opts.Stdout, exported, opts.Verbose)
	for _, w := range built.Warnings {
		cliout.Printf(opts.Stderr, "skillstore: warning: %s\n", w)
	}
	if err == nil && len(built.Uninstallable) > 0 {
		// Written, but not yet what a teammate can install: cron and
		// scripts hear it in the exit code.
		cliout.Printf(opts.Stderr, "skillstore: error: %s written, but a clone cannot install %s yet (see above)\n", filepath.Base(path), NameSummary(built.Uninstallable, 5))
		return ErrReported
	}
	return err
}

// exportLocked exports the targets a lock holds, now pinned to it, so that
// their folders hold what the file says as soon as it is written.
func exportLocked(ctx context.Context, g Global, s *store.Store, l *projectlock.Lock) ([]target.Exported, error) {
	names := make([]string, len(l.Targets))
	for i, t := range l.Targets {
		names[i] = t.Name
	}
	targets, err := target.List(ctx, s, names)
	if err != nil {
		return nil, err
	}
	return target.Export(ctx, s, targets, g.TargetOptions(false))
}

func remoteNote(r *projectlock.Remote) string {
	if r == nil {
		return ""
	}
	return ", team remote " + r.Name
}

func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// projectDir is the project's root: the one given, else the one holding
// the working directory (ProjectRoot).
func projectDir(ctx context.Context, given string) (string, error) {
	if given == "" {
		return ProjectRoot(ctx)
	}
	abs, err := filepath.Abs(given)
	if err != nil {
		return "", err
	}
	if info, err := os.Stat(abs); err != nil || !info.IsDir() {
		return "", WithHint(fmt.Errorf("project %s is not a folder", abs), "give the project's root folder with --project")
	}
	return abs, nil
}

// InstallOptions are install's.
type InstallOptions struct {
	Global
	Output
	Project    string
	Frozen     bool
	AllowLocal []string
	// RememberRemote records the lock's team remote in the store.
	RememberRemote bool
}

// Install restores the project's lock file into its targets and prints
// what it did.
func Install(ctx context.Context, opts InstallOptions) error {
	project, err := projectDir(ctx, opts.Project)
	if err != nil {
		return err
	}
	s, created, err := opts.OpenOrInitStore(ctx)
	if err != nil {
		return err
	}
	if created {
		// On stderr, so --json stays one document; one line, so a CI log
		// says where the store went.
		cliout.Printf(opts.Stderr, "skillstore: note: no store at %s: created an empty one for this install\n", s.Dir())
	}
	rep, err := projectlock.Install(ctx, s, projectlock.InstallOptions{Project: project, Frozen: opts.Frozen,
		AllowLocal: opts.AllowLocal, RememberRemote: opts.RememberRemote, Target: opts.TargetOptions(false)})
	if errors.Is(err, projectlock.ErrNoLock) {
		return WithHint(err, "write one with 'skillstore lock' in the project, or give the project's root with --project")
	}
	if rep == nil {
		return err
	}
	if opts.JSON {
		if jerr := cliout.JSON(opts.Stdout, rep); jerr != nil {
			return jerr
		}
	} else {
		printInstall(opts.Stdout, opts.Stderr, rep, err == nil, opts.Verbose, opts.RememberRemote)
	}
	var frozen *projectlock.FrozenError
	switch {
	case errors.As(err, &frozen) && opts.JSON:
		return ErrReported
	case errors.As(err, &frozen):
		cliout.Printf(opts.Stderr, "skillstore: error: %s\n", cliout.Quoted(strings.Join(problem.ExpandLines(err, cliout.Quote), "\n")))
		return ErrReported
	case err != nil:
		return err
	case rep.Failed():
		return ErrReported
	}
	return nil
}

// printInstall prints an install's report: the lock's refused parts,
// the team remote, the plugins, the skills that failed, the targets and
// their exports, and the folders that differ from the lock; and, when the
// install ended without an error (ended is false for one stopped by a busy
// store or an interrupt), what it installed.
func printInstall(w, errw io.Writer, rep *projectlock.Report, ended, verbose, rememberAsked bool) {
	for _, p := range rep.Problems {
		if !rep.Frozen { // a frozen install lists them in its error
			cliout.Printf(errw, "skillstore: error: %s\n", p.Error())
		}
	}
	if r := rep.Remote; r != nil && r.Error != "" && !rep.Frozen {
		cliout.Printf(errw, "skillstore: error: team remote %s: %s\n", r.Name, r.Error)
	}
	if r := rep.Remote; r != nil && r.Error == "" {
		if len(r.Versions) > 0 {
			cliout.Printf(w, "team remote %s %s: took %s for this project's targets only: %s\n", r.Name, r.URL, Plural(len(r.Versions), "version"), strings.Join(r.Versions, ", "))
		}
		if r.Remembered {
			cliout.Printf(w, "team remote %s: recorded as this store's remote %s\n", r.Name, r.Name)
		} else if !rememberAsked && len(r.Versions) > 0 {
			cliout.Printf(w, "team remote %s: not recorded as a remote of this store (--remember-remote records it)\n", r.Name)
		}
	}
	for _, p := range rep.Plugins {
		switch {
		case p.Added:
			cliout.Printf(w, "plugin %s: added at the lock's commit %s, for this project's targets only ('skillstore plugin add' gives it to every target)\n", p.ID, p.Commit[:min(12, len(p.Commit))])
		case p.ProjectOnly:
			cliout.Printf(w, "plugin %s: added by another project's lock; this project's targets get it too\n", p.ID)
		}
		if p.Moved != "" {
			cliout.Reportf(w, "    ", "plugin %s: %s\n", p.ID, p.Moved)
		}
		if p.Note != "" {
			cliout.Printf(errw, "skillstore: note: plugin %s: %s\n", p.ID, p.Note)
		}
		if p.Error != "" && !rep.Frozen {
			cliout.Printf(errw, "skillstore: error: %s\n", projectlock.WithConsequences(p.Error, rep.Consequences(p.ID)))
		}
	}
	for _, s := range rep.Skills {
		if s.Error != "" && s.Because == "" && !rep.Frozen {
			cliout.Printf(errw, "skillstore: error: %s\n", s.Error)
		}
	}
	for _, t := range rep.Targets {
		switch {
		case t.Error != "" && !rep.Frozen:
			cliout.Printf(errw, "skillstore: error: target %s: %s\n", t.Name, t.Error)
		case t.Added:
			cliout.Printf(w, "added target %s: %s in the project\n", t.Name, t.Dir)
		}
		if t.Error == "" && len(t.Skills) > 0 {
			cliout.Printf(w, "target %s receives %s\n", t.Name, skillList(t.Skills))
		}
	}
	PrintExports(w, rep.Export, verbose)
	if !rep.Frozen {
		for _, d := range rep.Differences {
			cliout.Printf(errw, "skillstore: warning: %s/%s: %s: not as the lock says\n", d.Target, d.Skill, d.Problem)
		}
	}
	if ended && !rep.Failed() {
		cliout.Printf(w, "installed %s into %s as %s locks them\n", Plural(installed(rep), "skill"), Plural(len(rep.Targets), "target"), filepath.Base(rep.Lock))
	}
}

// skillList names skills for a line: "3 skills: a, b, c", the first ten
// of a longer list.
func skillList(names []string) string {
	shown := strings.Join(names[:min(10, len(names))], ", ")
	if len(names) > 10 {
		shown += fmt.Sprintf(" and %d more (--json lists them)", len(names)-10)
	}
	return Plural(len(names), "skill") + ": " + shown
}

// installed counts the locked skills the install restored.
func installed(rep *projectlock.Report) int {
	n := 0
	for _, s := range rep.Skills {
		if s.Error == "" {
			n++
		}
	}
	return n
}
