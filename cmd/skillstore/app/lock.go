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
	Export   []target.Exported `json:"export"`
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
		if jerr := cliout.JSON(opts.Stdout, lockView{File: path, Changed: changed, Lock: built.Lock, Warnings: nonNil(built.Warnings), Export: exported}); jerr != nil {
			return jerr
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
}

// Install restores the project's lock file into its targets and prints
// what it did.
func Install(ctx context.Context, opts InstallOptions) error {
	project, err := projectDir(ctx, opts.Project)
	if err != nil {
		return err
	}
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	rep, err := projectlock.Install(ctx, s, projectlock.InstallOptions{Project: project, Frozen: opts.Frozen,
		AllowLocal: opts.AllowLocal, Target: opts.TargetOptions(false)})
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
		printInstall(opts.Stdout, opts.Stderr, rep, opts.Verbose)
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
// their exports, and the folders that differ from the lock.
func printInstall(w, errw io.Writer, rep *projectlock.Report, verbose bool) {
	for _, p := range rep.Problems {
		if !rep.Frozen { // a frozen install lists them in its error
			cliout.Printf(errw, "skillstore: error: %s\n", p.Error())
		}
	}
	if r := rep.Remote; r != nil && r.Error == "" {
		added := ""
		if r.Added {
			added = " (recorded as this store's remote " + r.Name + ")"
		}
		cliout.Printf(w, "team remote %s %s: pulled, %s brought or moved%s\n", r.Name, r.URL, Plural(r.Skills, "skill"), added)
	}
	for _, p := range rep.Plugins {
		if p.Added {
			cliout.Printf(w, "plugin %s: added at the lock's commit %s\n", p.ID, p.Commit[:min(12, len(p.Commit))])
		}
		if p.Moved != "" {
			cliout.Reportf(w, "    ", "plugin %s: %s\n", p.ID, p.Moved)
		}
		if p.Note != "" {
			cliout.Printf(errw, "skillstore: note: plugin %s: %s\n", p.ID, p.Note)
		}
		if p.Error != "" && !rep.Frozen {
			cliout.Printf(errw, "skillstore: error: %s\n", p.Error)
		}
	}
	for _, s := range rep.Skills {
		if s.Error != "" && !rep.Frozen {
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
	}
	PrintExports(w, rep.Export, verbose)
	if !rep.Frozen {
		for _, d := range rep.Differences {
			cliout.Printf(errw, "skillstore: warning: %s/%s: %s: not as the lock says\n", d.Target, d.Skill, d.Problem)
		}
	}
	if !rep.Failed() {
		cliout.Printf(w, "installed %s into %s as %s locks them\n", Plural(installed(rep), "skill"), Plural(len(rep.Targets), "target"), filepath.Base(rep.Lock))
	}
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
