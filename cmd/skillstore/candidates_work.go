package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
)

// The commands that make a candidate a place to work: checkout writes its
// files anywhere; edit and mergetool work in a folder of the store's own
// (machine-local, never pushed) and record the resolution when no
// conflict markers are left.

func candidateCheckoutCommand() *cli.Command {
	return &cli.Command{
		Name:      "checkout",
		Usage:     "write a candidate's files, conflict markers included, into a folder",
		ArgsUsage: "SKILL DIR",
		Description: "Writes the files accept would publish (the candidate's head) into DIR, atomically,\n" +
			"as 'skillstore checkout' does (--force replaces only one skill's folder, never a\n" +
			"target's). Edit them, then record them with\n" +
			"'skillstore candidates resolve SKILL --from DIR'.\n\n" +
			"Exit codes: 0 written, 1 no candidate, DIR not empty (without --force) or error,\n" +
			"2 usage error, 3 store lock busy.",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "force", Usage: "replace the content of a non-empty DIR"}},
		Action: func(c *cli.Context) error {
			s, args, err := openStoreArgs(c, 2, 2)
			if err != nil {
				return err
			}
			skill, dir := args[0], args[1]
			if skill, err = resolveCandidateArg(c, s, skill); err != nil {
				return err
			}
			if abs, err := filepath.Abs(dir); err == nil && (abs == s.Dir() || strings.HasPrefix(abs, s.Dir()+string(filepath.Separator))) {
				return withHint(fmt.Errorf("%s is inside the store", dir), "check out into a folder outside the store")
			}
			if err := refuseTargetFolder(c, s, dir); err != nil {
				return err
			}
			cf, err := readCandidateFiles(c, s, skill)
			if err != nil {
				return err
			}
			err = store.WriteTreeDir(dir, cf.Head, c.Bool("force"))
			if errors.Is(err, store.ErrNotEmpty) {
				return withHint(err, "nothing was written; pick an empty folder, or use --force to replace its content")
			}
			if err != nil {
				return err
			}
			out := getEnv(c).stdout
			cliout.Printf(out, "checked out candidate %s (%s) into %s\n", skill, shortHash(cf.Candidate.Head), dir)
			if len(cf.Candidate.Markers) > 0 {
				cliout.Printf(out, "conflict markers in %s: edit them, then run 'skillstore candidates resolve %s --from %s'\n",
					strings.Join(cf.Candidate.Markers, ", "), skill, dir)
			}
			return nil
		},
	}
}

func candidateEditCommand() *cli.Command {
	return &cli.Command{
		Name:      "edit",
		Usage:     "resolve a candidate in $VISUAL/$EDITOR and record the resolution",
		ArgsUsage: "SKILL [FILE...]",
		Description: "Writes the candidate into a work folder (STORE/skillstore/work/SKILL), opens the\n" +
			"files that still hold conflict markers (or the FILEs named, or SKILL.md) in\n" +
			"$VISUAL, else $EDITOR, else git's editor ('git var GIT_EDITOR'), and when the\n" +
			"editor exits with no conflict markers left, records the folder as the\n" +
			"candidate's resolution (as 'candidates resolve' does) and removes it. If markers\n" +
			"remain, nothing is recorded and the folder is kept: run edit again to go on\n" +
			"where you left off, or --restart to begin again from the candidate.\n\n" +
			"Exit codes: 0 recorded (or nothing changed), 1 markers remain, the editor failed,\n" +
			"no candidate or error, 2 usage error, 3 store lock busy.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "restart", Usage: "discard an unfinished edit and start again from the candidate"},
			&cli.StringFlag{Name: "reason", Usage: "why (recorded on the resolution)"},
		},
		Action: runCandidateEdit,
	}
}

func candidateMergetoolCommand() *cli.Command {
	return &cli.Command{
		Name:      "mergetool",
		Usage:     "resolve a candidate's conflicts with your git mergetool",
		ArgsUsage: "SKILL",
		Description: "Runs the merge tool git is configured with (merge.tool, or --tool) on each\n" +
			"conflicted file that still holds markers: its mergetool.TOOL.cmd runs through sh\n" +
			"with $BASE (the last accepted upstream), $LOCAL (the published version),\n" +
			"$REMOTE (the upstream, or the remote's version) and $MERGED (the file with\n" +
			"markers, in the work folder STORE/skillstore/work/SKILL) set, as git mergetool\n" +
			"does. With mergetool.TOOL.trustExitCode a non-zero exit leaves the file\n" +
			"unresolved; otherwise the markers decide. A tool with no cmd is one of git's\n" +
			"built-in tools (vimdiff, meld, kdiff3, ...): 'git mergetool --tool TOOL' runs it,\n" +
			"on a scratch repository whose index holds the file's three stages. When no\n" +
			"markers are left the folder is recorded as the resolution (as 'candidates\n" +
			"resolve' does).\n\n" +
			"Exit codes: 0 recorded, 1 markers remain, no tool configured, no candidate or\n" +
			"error, 2 usage error, 3 store lock busy.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "tool", Usage: "the merge tool to run (default: git config merge.tool)"},
			&cli.BoolFlag{Name: "restart", Usage: "discard an unfinished resolution and start again from the candidate"},
			&cli.StringFlag{Name: "reason", Usage: "why (recorded on the resolution)"},
		},
		Action: runCandidateMergetool,
	}
}

func readCandidateFiles(c *cli.Context, s *store.Store, skill string) (store.CandidateFiles, error) {
	var cf store.CandidateFiles
	err := s.View(c.Context, func(r *store.Reader) error {
		var err error
		cf, err = r.CandidateFiles(skill)
		return err
	})
	return cf, candidateErr(skill, err)
}

// workFolder is where edit and mergetool resolve a candidate: in the
// store's machine-local folder, so it is never pushed, one per skill.
type workFolder struct {
	dir   string
	files store.CandidateFiles
}

// workHeadFile records, inside the work folder, the candidate head the
// folder was written from. Names starting with ".skillstore" are never
// part of a skill, so resolve does not record it.
const workHeadFile = ".skillstore-candidate"

// openWorkFolder writes the candidate into its work folder, or reuses an
// unfinished one made from the same candidate head (saying so on stderr).
func openWorkFolder(c *cli.Context, s *store.Store, skill string) (*workFolder, error) {
	cf, err := readCandidateFiles(c, s, skill)
	if err != nil {
		return nil, err
	}
	w := &workFolder{dir: s.LocalPath(filepath.Join("work", skill)), files: cf}
	head := cf.Candidate.Head.String()
	if recorded, err := os.ReadFile(filepath.Join(w.dir, workHeadFile)); err == nil && !c.Bool("restart") {
		if strings.TrimSpace(string(recorded)) == head {
			cliout.Printf(getEnv(c).stderr, "skillstore: going on with the unfinished resolution in %s\n", w.dir)
			return w, nil
		}
		return nil, withHint(fmt.Errorf("candidate %s changed since the unfinished resolution in %s began", skill, w.dir),
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
		if err == nil && store.HasConflictMarkers(data) {
			out = append(out, p)
		}
	}
	return out
}

// record makes the work folder the candidate's resolution and removes it;
// a folder identical to the candidate records nothing.
func (w *workFolder) record(c *cli.Context, s *store.Store, reason string) error {
	skill := w.files.Candidate.Skill
	out := getEnv(c).stdout
	cand, err := s.ResolveCandidate(c.Context, skill, w.dir, reason)
	switch {
	case errors.Is(err, store.ErrNoChange):
		cliout.Printf(out, "candidate %s: nothing changed; accept it with 'skillstore candidates accept %s'\n", skill, skill)
	case err != nil:
		return candidateErr(skill, err)
	default:
		cliout.Printf(out, "candidate %s resolved at %s; accept it with 'skillstore candidates accept %s'\n", skill, shortHash(cand.Head), skill)
	}
	return os.RemoveAll(w.dir)
}

// unresolved is the error for a work folder left with markers: nothing
// recorded, the folder kept for the next run.
func (w *workFolder) unresolved(command string, markers []string) error {
	skill := w.files.Candidate.Skill
	return withHint(fmt.Errorf("conflict markers remain in %s; nothing was recorded", strings.Join(markers, ", ")),
		fmt.Sprintf("run 'skillstore candidates %s %s' again to go on (the work is kept in %s)", command, skill, w.dir))
}

func runCandidateEdit(c *cli.Context) error {
	s, args, err := openStoreArgs(c, 1, -1)
	if err != nil {
		return err
	}
	editor, err := pickEditor(c)
	if err != nil {
		return err
	}
	if args[0], err = resolveCandidateArg(c, s, args[0]); err != nil {
		return err
	}
	w, err := openWorkFolder(c, s, args[0])
	if err != nil {
		return err
	}
	files := args[1:]
	for _, f := range files {
		if !filepath.IsLocal(f) {
			return usageErrorf("%s is not a path inside the skill", f)
		}
	}
	if len(files) == 0 {
		files = w.withMarkers()
	}
	if len(files) == 0 {
		files = []string{store.SkillFile}
	}
	cmd := shellCommand(c, editor+` "$@"`, files...)
	cmd.Dir = w.dir
	if err := cmd.Run(); err != nil {
		return withHint(fmt.Errorf("editor %q failed: %w; nothing was recorded", editor, err),
			fmt.Sprintf("the work is kept in %s; run 'skillstore candidates edit %s' again", w.dir, args[0]))
	}
	if left := w.withMarkers(); len(left) > 0 {
		// A graphical editor that returns at once leaves the markers too.
		return withHint(w.unresolved("edit", left), "an editor that opens a window must wait until it is closed: EDITOR='code --wait', 'subl -w', 'gvim -f'")
	}
	return w.record(c, s, c.String("reason"))
}

// pickEditor is $VISUAL, else $EDITOR, else the editor git would use.
func pickEditor(c *cli.Context) (string, error) {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if ed := strings.TrimSpace(os.Getenv(v)); ed != "" {
			return ed, nil
		}
	}
	out, err := gitOutput(c, "var", "GIT_EDITOR")
	if err != nil || out == "" {
		return "", withHint(errors.New("no editor: VISUAL and EDITOR are unset and git names none"),
			"set EDITOR (export EDITOR=vim), or use 'candidates checkout' and 'candidates resolve'")
	}
	return out, nil
}

func runCandidateMergetool(c *cli.Context) error {
	s, args, err := openStoreArgs(c, 1, 1)
	if err != nil {
		return err
	}
	tool, err := configuredMergetool(c)
	if err != nil {
		return err
	}
	if args[0], err = resolveCandidateArg(c, s, args[0]); err != nil {
		return err
	}
	w, err := openWorkFolder(c, s, args[0])
	if err != nil {
		return err
	}
	conflicted := w.withMarkers()
	if len(conflicted) == 0 {
		cliout.Printf(getEnv(c).stdout, "candidate %s has no conflict markers left\n", args[0])
		return w.record(c, s, c.String("reason"))
	}
	sides := w.dir + ".sides"
	defer os.RemoveAll(sides)
	for _, p := range conflicted {
		if err := tool.run(c, w, sides, p); err != nil {
			return err
		}
	}
	if left := w.withMarkers(); len(left) > 0 {
		return w.unresolved("mergetool", left)
	}
	return w.record(c, s, c.String("reason"))
}

// fileData returns the content of path among files, and whether it is there.
func fileData(files []store.File, path string) []byte {
	i := slices.IndexFunc(files, func(f store.File) bool { return f.Path == path })
	if i < 0 {
		return nil
	}
	return files[i].Data
}
