package candidates

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/app"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
	storecandidates "github.com/skillstore/skillstore/store/candidates"
)

// The commands that make a candidate a place to work: checkout writes its
// files anywhere; edit and mergetool work in a folder of the store's own
// (machine-local, never pushed) and record the resolution when no
// conflict markers are left.

// Checkout writes a candidate's files, conflict markers included,
// into opts.Dir.
func Checkout(ctx context.Context, opts Options) error {
	s, skill, err := opts.openCandidate(ctx)
	if err != nil {
		return err
	}
	dir := opts.Dir
	if abs, err := filepath.Abs(dir); err == nil && (abs == s.Dir() || strings.HasPrefix(abs, s.Dir()+string(filepath.Separator))) {
		return app.WithHint(fmt.Errorf("%s is inside the store", dir), "check out into a folder outside the store")
	}
	if err := app.RefuseTargetFolder(ctx, s, dir); err != nil {
		return err
	}
	cf, err := readCandidateFiles(ctx, s, skill)
	if err != nil {
		return err
	}
	err = store.WriteTreeDir(dir, cf.Head, opts.Force)
	if errors.Is(err, store.ErrNotEmpty) {
		return app.WithHint(err, "nothing was written; pick an empty folder, or use --force to replace its content")
	}
	if err != nil {
		return err
	}
	cliout.Printf(opts.Stdout, "checked out candidate %s (%s) into %s\n", skill, app.ShortHash(cf.Candidate.Head), dir)
	if len(cf.Candidate.Markers) > 0 {
		cliout.Printf(opts.Stdout, "conflict markers in %s: edit them, then run 'skillstore candidates resolve %s --from %s'\n",
			strings.Join(cf.Candidate.Markers, ", "), skill, dir)
	}
	return nil
}

func readCandidateFiles(ctx context.Context, s *store.Store, skill string) (storecandidates.Files, error) {
	var cf storecandidates.Files
	err := s.View(ctx, func(r *store.Reader) error {
		var err error
		cf, err = storecandidates.LoadFiles(r, skill)
		return err
	})
	return cf, candidateErr(skill, err)
}

// workFolder is where edit and mergetool resolve a candidate: in the
// store's machine-local folder, so it is never pushed, one per skill.
type workFolder struct {
	dir   string
	files storecandidates.Files
}

// workHeadFile records, inside the work folder, the candidate head the
// folder was written from. Names starting with ".skillstore" are never
// part of a skill, so resolve does not record it.
const workHeadFile = ".skillstore-candidate"

// openWorkFolder writes the candidate into its work folder, or reuses an
// unfinished one made from the same candidate head (saying so on stderr).
func openWorkFolder(ctx context.Context, opts Options, s *store.Store, skill string) (*workFolder, error) {
	cf, err := readCandidateFiles(ctx, s, skill)
	if err != nil {
		return nil, err
	}
	w := &workFolder{dir: s.LocalPath(filepath.Join("work", skill)), files: cf}
	head := cf.Candidate.Head.String()
	if recorded, err := os.ReadFile(filepath.Join(w.dir, workHeadFile)); err == nil && !opts.Restart {
		if strings.TrimSpace(string(recorded)) == head {
			cliout.Printf(opts.Stderr, "skillstore: going on with the unfinished resolution in %s\n", w.dir)
			return w, nil
		}
		return nil, app.WithHint(fmt.Errorf("candidate %s changed since the unfinished resolution in %s began", skill, w.dir),
			"rerun with --restart to begin again from the new candidate (the unfinished one is discarded)")
	}
	if err := os.MkdirAll(filepath.Dir(w.dir), 0o755); err != nil {
		return nil, err
	}
	if err := store.ReplaceTreeDir(w.dir, cf.Head); err != nil {
		return nil, fmt.Errorf("candidate %s: write the work folder: %w", skill, err)
	}
	if err := os.WriteFile(filepath.Join(w.dir, workHeadFile), []byte(head+"\n"), 0o644); err != nil {
		return nil, err
	}
	return w, nil
}

// withMarkers lists the candidate's conflicted files that still hold
// conflict markers in the work folder.
func (w *workFolder) withMarkers() []string {
	var out []string
	for _, p := range w.files.Candidate.ConflictPaths() {
		data, err := os.ReadFile(filepath.Join(w.dir, filepath.FromSlash(p)))
		if err == nil && storecandidates.HasConflictMarkers(data) {
			out = append(out, p)
		}
	}
	return out
}

// record makes the work folder the candidate's resolution and removes it;
// a folder identical to the candidate records nothing.
func (w *workFolder) record(ctx context.Context, opts Options, s *store.Store) error {
	skill := w.files.Candidate.Skill
	out := opts.Stdout
	cand, err := storecandidates.Resolve(ctx, s, skill, w.dir, opts.Reason)
	switch {
	case errors.Is(err, store.ErrNoChange):
		cliout.Printf(out, "candidate %s: nothing changed; accept it with 'skillstore candidates accept %s'\n", skill, skill)
	case err != nil:
		return candidateErr(skill, err)
	default:
		cliout.Printf(out, "candidate %s resolved at %s; accept it with 'skillstore candidates accept %s'\n", skill, app.ShortHash(cand.Head), skill)
	}
	return os.RemoveAll(w.dir)
}

// unresolved is the error for a work folder left with markers: nothing
// recorded, the folder kept for the next run.
func (w *workFolder) unresolved(command string, markers []string) error {
	skill := w.files.Candidate.Skill
	return app.WithHint(fmt.Errorf("conflict markers remain in %s; nothing was recorded", strings.Join(markers, ", ")),
		fmt.Sprintf("run 'skillstore candidates %s %s' again to go on (the work is kept in %s)", command, skill, w.dir))
}

// Edit opens the candidate's conflicted files (or opts.Files, or
// SKILL.md) in the editor, in its work folder, and records the folder as
// the resolution once no markers are left.
func Edit(ctx context.Context, opts Options) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	editor, err := pickEditor(ctx)
	if err != nil {
		return err
	}
	skill, err := s.ResolveCandidateName(ctx, opts.Skill)
	if err != nil {
		return err
	}
	w, err := openWorkFolder(ctx, opts, s, skill)
	if err != nil {
		return err
	}
	files := opts.Files
	for _, f := range files {
		if !filepath.IsLocal(f) {
			return app.UsageErrorf("%s is not a path inside the skill", f)
		}
	}
	if len(files) == 0 {
		files = w.withMarkers()
	}
	if len(files) == 0 {
		files = []string{store.SkillFile}
	}
	cmd := shellCommand(ctx, opts.Global, editor+` "$@"`, files...)
	cmd.Dir = w.dir
	if err := cmd.Run(); err != nil {
		return app.WithHint(fmt.Errorf("editor %q failed: %w; nothing was recorded", editor, err),
			fmt.Sprintf("the work is kept in %s; run 'skillstore candidates edit %s' again", w.dir, skill))
	}
	if left := w.withMarkers(); len(left) > 0 {
		// A graphical editor that returns at once leaves the markers too.
		return app.WithHint(w.unresolved("edit", left), "an editor that opens a window must wait until it is closed: EDITOR='code --wait', 'subl -w', 'gvim -f'")
	}
	return w.record(ctx, opts, s)
}

// pickEditor is $VISUAL, else $EDITOR, else the editor git would use.
func pickEditor(ctx context.Context) (string, error) {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if ed := strings.TrimSpace(os.Getenv(v)); ed != "" {
			return ed, nil
		}
	}
	out, err := app.GitOutput(ctx, "var", "GIT_EDITOR")
	if err != nil || out == "" {
		return "", app.WithHint(errors.New("no editor: VISUAL and EDITOR are unset and git names none"),
			"set EDITOR (export EDITOR=vim), or use 'candidates checkout' and 'candidates resolve'")
	}
	return out, nil
}

// Mergetool runs the configured merge tool on each conflicted
// file of the candidate that still holds markers, in its work folder, and
// records the folder as the resolution once none are left.
func Mergetool(ctx context.Context, opts Options) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	tool, err := configuredMergetool(ctx, opts.Tool)
	if err != nil {
		return err
	}
	skill, err := s.ResolveCandidateName(ctx, opts.Skill)
	if err != nil {
		return err
	}
	w, err := openWorkFolder(ctx, opts, s, skill)
	if err != nil {
		return err
	}
	conflicted := w.withMarkers()
	if len(conflicted) == 0 {
		cliout.Printf(opts.Stdout, "candidate %s has no conflict markers left\n", skill)
		return w.record(ctx, opts, s)
	}
	sides := w.dir + ".sides"
	defer os.RemoveAll(sides)
	for _, p := range conflicted {
		if err := tool.run(ctx, opts.Global, w, sides, p); err != nil {
			return err
		}
	}
	if left := w.withMarkers(); len(left) > 0 {
		return w.unresolved("mergetool", left)
	}
	return w.record(ctx, opts, s)
}

// fileData returns the content of path among files, nil when it is not
// there.
func fileData(files []store.File, path string) []byte {
	i := slices.IndexFunc(files, func(f store.File) bool { return f.Path == path })
	if i < 0 {
		return nil
	}
	return files[i].Data
}
