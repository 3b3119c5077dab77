package candidates

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	storecandidates "github.com/skillstore/skillstore/store/candidates"
	"io"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/merge"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/treediff"
)

// Options are the options of the candidates commands: the skill
// as typed (a candidate may wait for a skill not yet published; see
// store.Reader.ResolveCandidateName) and what each command takes.
type Options struct {
	app.Global
	app.Output
	Skill string
	// Reason is why (accept, reject, resolve, edit, mergetool), recorded
	// on the version or the resolution.
	Reason string
	// Export exports into every target after accept.
	Export bool
	// From is the resolved skill folder (resolve).
	From string
	// Dir is where checkout writes the candidate, Force replacing the
	// content of a non-empty Dir.
	Dir   string
	Force bool
	// Files are the files edit opens (default: those with conflict
	// markers, else SKILL.md).
	Files []string
	// Tool is the merge tool mergetool runs (default: git config
	// merge.tool).
	Tool string
	// Restart discards an unfinished resolution in the work folder and
	// starts again from the candidate (edit, mergetool).
	Restart bool
	// WithFiles adds to show's JSON every file of the merge's base, ours,
	// theirs and the head, with its content: the three versions a
	// reviewer reads side by side (skillstore ui shows them).
	WithFiles bool
}

// openCandidate opens the store and resolves the skill the command names;
// a name with no skill nor candidate is passed on as typed, and the store
// says there is no candidate.
func (o Options) openCandidate(ctx context.Context) (*store.Store, string, error) {
	s, err := o.OpenStore(ctx)
	if err != nil {
		return nil, "", err
	}
	skill, err := s.ResolveCandidateName(ctx, o.Skill)
	return s, skill, err
}

// candidateErr adds hints to candidate errors.
func candidateErr(skill string, err error) error {
	var me *storecandidates.ConflictMarkersError
	switch {
	case errors.Is(err, storecandidates.ErrNoCandidate):
		return app.WithHint(err, "run 'skillstore candidates list' to see the pending candidates")
	case errors.Is(err, storecandidates.ErrHeadMoved):
		return app.WithHint(err, "run 'skillstore sync' to merge the update into the new published version")
	case errors.As(err, &me):
		return app.WithHint(err,
			"resolve them with 'skillstore candidates edit "+skill+"' or 'skillstore candidates mergetool "+skill+"'",
			"or 'skillstore candidates checkout "+skill+" DIR', edit the files and run 'skillstore candidates resolve "+skill+" --from DIR'",
			// The branch as git names it: a plugin's skill PLUGIN:NAME is
			// on candidates/plugins/PLUGIN/NAME, not candidates/PLUGIN:NAME.
			"or commit a resolution on the branch "+app.ShortRef(store.CandidateRef(skill))+" in a clone of the store and push it back")
	}
	return err
}

// State is how a candidate stands for review: stale, conflicted,
// resolved or ready.
func State(c storecandidates.Candidate) string {
	switch {
	case c.Stale:
		return "stale"
	case len(c.Markers) > 0:
		return "conflicted"
	case c.Resolved:
		return "resolved"
	}
	return "ready"
}

// From names where a candidate's update came from: a plugin, the
// remote whose published history pull merged, or an edit in a target.
func From(c storecandidates.Candidate) string {
	if c.Mode == store.MergeModeRemote {
		return "remote:" + c.Remote
	}
	if c.Mode == store.MergeModeLocalEdit {
		return "target edit"
	}
	return "plugin:" + c.Plugin
}

func readCandidates(ctx context.Context, s *store.Store, skill string) ([]storecandidates.Candidate, error) {
	var out []storecandidates.Candidate
	err := s.View(ctx, func(r *store.Reader) error {
		var err error
		if skill == "" {
			out, err = storecandidates.List(r)
			return err
		}
		cand, err := storecandidates.Get(r, skill)
		if err != nil {
			return err
		}
		if rep, err := storecandidates.Findings(r, cand); err == nil {
			cand.Findings = rep.Findings
		}
		out = []storecandidates.Candidate{cand}
		return nil
	})
	return out, candidateErr(skill, err)
}

// List prints the pending candidates.
func List(ctx context.Context, opts Options) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	cands, err := readCandidates(ctx, s, "")
	if err != nil {
		return err
	}
	if opts.JSON {
		out := []json.RawMessage{}
		for _, c := range cands {
			out = append(out, candidateJSON(c, nil))
		}
		return cliout.JSON(opts.Stdout, out)
	}
	if len(cands) == 0 {
		cliout.Println(opts.Stdout, "no candidates wait for review")
		return nil
	}
	t := cliout.NewTable(5)
	t.Add("SKILL", "FROM", "MODE", "ON", "CONFLICTS", "STATE")
	for _, cand := range cands {
		t.Add(cand.Skill, From(cand), string(cand.Mode), fmt.Sprintf("v%d", cand.PublishedVersion), fmt.Sprint(len(cand.Conflicts)), State(cand))
	}
	return t.Write(opts.Stdout, cliout.NewPainter(opts.Stdout), 0)
}

// Show prints a candidate: classification, base, ours, theirs,
// conflicts.
func Show(ctx context.Context, opts Options) error {
	s, skill, err := opts.openCandidate(ctx)
	if err != nil {
		return err
	}
	cands, err := readCandidates(ctx, s, skill)
	if err != nil {
		return err
	}
	cand := cands[0]
	if opts.WithFiles && !opts.JSON {
		return app.UsageErrorf("candidates show --files needs --json")
	}
	if opts.WithFiles {
		cf, err := readCandidateFiles(ctx, s, skill)
		if err != nil {
			return err
		}
		files := newSidesJSON(cf)
		return cliout.JSON(opts.Stdout, candidateJSON(cf.Candidate, &files))
	}
	if opts.JSON {
		return cliout.JSON(opts.Stdout, candidateJSON(cand, nil))
	}
	writeCandidate(opts.Stdout, cand)
	files, err := markedFiles(ctx, s, cand)
	if err != nil {
		return err
	}
	return writeWordConflicts(opts.Stdout, files)
}

// markedFiles reads the files of cand that still hold conflict markers.
func markedFiles(ctx context.Context, s *store.Store, cand storecandidates.Candidate) ([]storecandidates.MarkedFile, error) {
	var files []storecandidates.MarkedFile
	err := s.View(ctx, func(r *store.Reader) error {
		var err error
		files, err = storecandidates.MarkedFiles(r, cand)
		return err
	})
	return files, err
}

func writeCandidate(w io.Writer, c storecandidates.Candidate) {
	cliout.Printf(w, "candidate %s  (%s)\n", c.Skill, State(c))
	cliout.Printf(w, "  classification: %s\n", c.Mode)
	base := "none"
	if !c.Base.IsZero() {
		base = c.Base.String()[:12]
	}
	if c.Mode == store.MergeModeRemote {
		cliout.Printf(w, "  remote:         %s\n", c.Remote)
		cliout.Printf(w, "  base:           %s (last version both sides published)\n", base)
		cliout.Printf(w, "  ours:           v%d (%s)\n", c.PublishedVersion, c.Published.String()[:12])
		cliout.Printf(w, "  theirs:         %s's v%s (%s)\n", c.Remote, c.RemoteVersion, c.Upstream.String()[:12])
	} else if c.Mode == store.MergeModeLocalEdit {
		cliout.Printf(w, "  base:           %s (the version export wrote into the target)\n", base)
		cliout.Printf(w, "  ours:           v%d (%s)\n", c.PublishedVersion, c.Published.String()[:12])
		cliout.Printf(w, "  theirs:         the edit in the target (%s, by %s)\n", c.Upstream.String()[:12], c.EditAuthor)
	} else {
		plugin := c.Plugin
		if c.PluginVersion != "" {
			plugin += " " + c.PluginVersion
		}
		cliout.Printf(w, "  plugin:         %s\n", plugin)
		cliout.Printf(w, "  base:           %s (last accepted upstream)\n", base)
		cliout.Printf(w, "  ours:           v%d (%s)\n", c.PublishedVersion, c.Published.String()[:12])
		cliout.Printf(w, "  theirs:         upstream %s\n", c.Upstream.String()[:12])
	}
	head := c.Head.String()[:12]
	if c.Resolved {
		head += " (resolution on top of merge " + c.Merge.String()[:12] + ")"
	}
	cliout.Printf(w, "  head:           %s\n", head)
	if len(c.MergeResolved) > 0 {
		cliout.Printf(w, "  rules resolved: %s (skill-aware merge: review them)\n", strings.Join(c.MergeResolved, ", "))
	}
	if len(c.Conflicts) == 0 {
		cliout.Printf(w, "  conflicts:      none\n")
	} else {
		cliout.Printf(w, "  conflicts:      %s\n", strings.Join(c.Conflicts, ", "))
		markers := "none left"
		if len(c.Markers) > 0 {
			markers = strings.Join(c.Markers, ", ")
		}
		cliout.Printf(w, "  markers:        %s\n", markers)
	}
	if c.Risk != "" {
		cliout.Printf(w, "  risk:           %s\n", c.Risk)
	}
	for _, f := range c.Findings {
		cliout.Printf(w, "    %s\n", f)
	}
	if c.Stale {
		cliout.Printf(w, "  the published version moved since: run 'skillstore sync' for a new candidate\n")
	}
}

// candidateDiff reads what accepting the candidate would change, and the
// files of it that still hold conflict markers.
func candidateDiff(ctx context.Context, s *store.Store, skill string) ([]treediff.FileChange, []storecandidates.MarkedFile, error) {
	var changes []treediff.FileChange
	var marked []storecandidates.MarkedFile
	err := s.View(ctx, func(r *store.Reader) error {
		cand, ch, err := storecandidates.Diff(r, skill)
		if err != nil {
			return err
		}
		changes = ch
		marked, err = storecandidates.MarkedFiles(r, cand)
		return err
	})
	return changes, marked, candidateErr(skill, err)
}

// Diff prints what accepting a candidate would change in the
// published version.
func Diff(ctx context.Context, opts Options) error {
	s, skill, err := opts.openCandidate(ctx)
	if err != nil {
		return err
	}
	changes, marked, err := candidateDiff(ctx, s, skill)
	if err != nil {
		return err
	}
	if opts.JSON {
		exports, err := nextExports(ctx, s, skill, changes)
		if err != nil {
			return err
		}
		if changes == nil {
			changes = []treediff.FileChange{}
		}
		return cliout.JSON(opts.Stdout, struct {
			Skill   string                `json:"skill"`
			Changes []treediff.FileChange `json:"changes"`
			Exports []NextExport          `json:"exports"`
		}{skill, changes, exports})
	}
	if err := treediff.Write(opts.Stdout, changes); err != nil {
		return err
	}
	return writeWordConflicts(opts.Stdout, marked)
}

// Accept publishes a candidate as the skill's next version, then
// says what the next export does with it, or with Export exports at once.
func Accept(ctx context.Context, opts Options) error {
	s, skill, err := opts.openCandidate(ctx)
	if err != nil {
		return err
	}
	changes, _, err := candidateDiff(ctx, s, skill)
	if err != nil {
		return err
	}
	v, err := storecandidates.Accept(ctx, s, skill, opts.Reason)
	if err != nil {
		return candidateErr(skill, err)
	}
	if opts.Export {
		return acceptAndExport(ctx, opts, s, v)
	}
	if opts.JSON {
		return cliout.JSON(opts.Stdout, app.ToVersionJSON(v))
	}
	cliout.Printf(opts.Stdout, "accepted candidate %s: published %s\n", skill, v.Name())
	return explainNextExport(ctx, opts.Stdout, s, v, changes)
}

// sideJSON is one file of one side of a candidate in show --files.
type sideJSON struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
	Size int64  `json:"size"`
	// Binary files carry no text.
	Binary bool   `json:"binary,omitempty"`
	Text   string `json:"text,omitempty"`
}

// sidesJSON is every side of a candidate's merge, each a list of files
// in path order; Base is empty when there is no accepted upstream.
type sidesJSON struct {
	Base   []sideJSON `json:"base"`
	Ours   []sideJSON `json:"ours"`
	Theirs []sideJSON `json:"theirs"`
	Head   []sideJSON `json:"head"`
}

// candidateJSON is a candidate as the candidates commands print it with
// --json: its own fields, then its state and where it came from (what
// list's table shows), then with files every side's files (show
// --files). Candidate marshals itself, so it cannot be embedded.
func candidateJSON(c storecandidates.Candidate, files *sidesJSON) json.RawMessage {
	cand, err := json.Marshal(c)
	if err != nil {
		panic(err) // plain strings, numbers and lists
	}
	extra, err := json.Marshal(struct {
		State string     `json:"state"`
		From  string     `json:"from"`
		Files *sidesJSON `json:"files,omitempty"`
	}{State(c), From(c), files})
	if err != nil {
		panic(err)
	}
	return append(append(cand[:len(cand)-1], ','), extra[1:]...)
}

func newSidesJSON(cf storecandidates.Files) sidesJSON {
	side := func(files []store.File) []sideJSON {
		out := []sideJSON{}
		for _, f := range files {
			j := sideJSON{Path: f.Path, Mode: f.ModeString(), Size: f.Size}
			if merge.IsBinary(f.Data) {
				j.Binary = true
			} else {
				j.Text = string(f.Data)
			}
			out = append(out, j)
		}
		return out
	}
	return sidesJSON{Base: side(cf.Base), Ours: side(cf.Ours), Theirs: side(cf.Theirs), Head: side(cf.Head)}
}

// Reject drops a candidate and keeps the published files.
func Reject(ctx context.Context, opts Options) error {
	s, skill, err := opts.openCandidate(ctx)
	if err != nil {
		return err
	}
	v, err := storecandidates.Reject(ctx, s, skill, opts.Reason)
	if err != nil {
		return candidateErr(skill, err)
	}
	if opts.JSON {
		return cliout.JSON(opts.Stdout, app.ToVersionJSON(v))
	}
	cliout.Printf(opts.Stdout, "rejected candidate %s: %s keeps the published files; this upstream will not be proposed again\n", skill, v.Name())
	return nil
}

// Resolve makes the folder From the candidate's new head.
func Resolve(ctx context.Context, opts Options) error {
	s, skill, err := opts.openCandidate(ctx)
	if err != nil {
		return err
	}
	cand, err := storecandidates.Resolve(ctx, s, skill, opts.From, opts.Reason)
	if err != nil {
		return candidateErr(skill, err)
	}
	markers := "no conflict markers left: accept it with 'skillstore candidates accept " + skill + "'"
	if len(cand.Markers) > 0 {
		markers = "conflict markers left in " + strings.Join(cand.Markers, ", ")
	}
	cliout.Printf(opts.Stdout, "candidate %s now at %s; %s\n", skill, cand.Head.String()[:12], markers)
	return nil
}

// explainNextExport tells, after accept, what the next export does with the
// new version: which targets get it, and whether agents re-read SKILL.md
// (hot) or need a restart (cold), judged from what the candidate changed.
func explainNextExport(ctx context.Context, out io.Writer, s *store.Store, v store.Version, changes []treediff.FileChange) error {
	exports, err := nextExports(ctx, s, v.Skill, changes)
	if err != nil {
		return err
	}
	if len(exports) == 0 {
		cliout.Printf(out, "no target exports %s; add one with 'skillstore target add'\n", v.Skill)
		return nil
	}
	var names []string
	for _, e := range exports {
		names = append(names, e.Target)
	}
	class := "cold: restart the agent"
	if exports[0].Class == "hot" {
		class = "hot: agents re-read SKILL.md"
	}
	cliout.Printf(out, "next: 'skillstore export' writes %s into %s (%s); or accept with --export\n", v.Name(), strings.Join(names, ", "), class)
	return nil
}

// NextExport is what the next export does with an accepted candidate in
// one target: writes it into Dir, hot (agents re-read SKILL.md) or cold
// (restart the agent).
type NextExport struct {
	Target string `json:"target"`
	Dir    string `json:"dir"`
	Class  string `json:"class"`
}

// nextExports lists the targets that export the skill and how, judged
// from what the candidate changes.
func nextExports(ctx context.Context, s *store.Store, skill string, changes []treediff.FileChange) ([]NextExport, error) {
	targets, err := target.List(ctx, s, nil)
	if err != nil {
		return nil, err
	}
	class := "cold"
	if onlySkillText(changes) {
		class = "hot"
	}
	out := []NextExport{}
	for _, t := range targets {
		if t.Wants(skill) {
			out = append(out, NextExport{Target: t.Name, Dir: t.Dir, Class: class})
		}
	}
	return out, nil
}

// onlySkillText reports a change of SKILL.md's text alone, what export
// classifies as hot (if the target holds the previous version).
func onlySkillText(changes []treediff.FileChange) bool {
	for _, ch := range changes {
		if ch.Kind != treediff.ChangeModified || ch.NewPath != store.SkillFile || ch.ModeChanged() {
			return false
		}
	}
	return len(changes) > 0
}

// acceptAndExport exports into every target after accept --export and
// prints the accept line and export's lines (or both as JSON).
func acceptAndExport(ctx context.Context, opts Options, s *store.Store, v store.Version) error {
	targets, err := target.List(ctx, s, nil)
	if err != nil {
		return err
	}
	exported, err := target.Export(ctx, s, targets, opts.TargetOptions(false))
	if opts.JSON {
		if jerr := cliout.JSON(opts.Stdout, map[string]any{"version": app.ToVersionJSON(v), "export": exported}); jerr != nil {
			return jerr
		}
		return err
	}
	cliout.Printf(opts.Stdout, "accepted candidate %s: published %s\n", v.Skill, v.Name())
	if len(targets) == 0 {
		cliout.Printf(opts.Stdout, "no targets to export to; add one with 'skillstore target add'\n")
	}
	app.PrintExports(opts.Stdout, exported, opts.Verbose)
	return err
}
