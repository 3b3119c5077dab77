package pluginsync

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/safety"
)

// The unit of refusal is the smallest part, never the source. What plugin
// add and sync take from upstream is refused at the smallest part that is
// bad, and the rest goes in:
//
//   - a file a store never holds (a symlink that leaves its folder, is
//     absolute or loops; a device, FIFO or submodule; a file over the size
//     cap) is left out of its skill's (or the plugin parts') tree, which
//     goes in without it. The upstream snapshot records the files it left
//     out (Left-Out trailers), so the sync that first meets them reports
//     them and the next ones stay quiet until upstream changes; a fix
//     upstream changes the tree, and the next sync takes the file in;
//   - a skill whose SKILL.md fails validation, whose tree the safety check
//     refuses whole (too many files, two names that are one on macOS), or
//     whose risk is above what is allowed, is left out (a new skill) or
//     held at its published version (an update): no write for it, every
//     sync retries it, and --allow-risk or 'plugin trust PLUGIN:SKILL'
//     takes a risky one in.
//
// Each is a [LeftOut] in the skill's [SkillReport], never an error string:
// the CLI names it with its reason and what takes it in, and exits 1.
// --strict (AddPluginOptions.Strict, SyncOptions.Strict) turns any of them
// into the plugin's failure, with nothing written for it: all or nothing.

// LeftOutKind says why a part was left out, and so what takes it in.
type LeftOutKind string

// The kinds of left-out parts.
const (
	// LeftOutFile is a file a store never holds; a fix upstream takes it in.
	LeftOutFile LeftOutKind = "file"
	// LeftOutInvalid is a skill whose SKILL.md fails validation; a fix
	// upstream takes it in.
	LeftOutInvalid LeftOutKind = "invalid"
	// LeftOutRefused is a skill the safety check refuses whole; a fix
	// upstream takes it in.
	LeftOutRefused LeftOutKind = "refused"
	// LeftOutRisk is a skill whose findings are above the allowed risk;
	// --allow-risk RISK or 'plugin trust PLUGIN:SKILL' takes it in.
	LeftOutRisk LeftOutKind = "risk"
	// LeftOutCap is the files of a plugin's parts past the cap of files
	// a unit holds (plugins.CapCut): the parts go in without them. Files
	// counts them and Paths names the first; an upstream holding fewer
	// takes them in.
	LeftOutCap LeftOutKind = "cap"
)

// LeftOut is one part of an upstream that plugin add or sync left out.
type LeftOut struct {
	Kind LeftOutKind `json:"kind"`
	// Path is the file left out (LeftOutFile), relative to the skill's
	// folder (the plugin's, for its parts); empty for a whole skill.
	Path string `json:"path,omitempty"`
	// Reason says why, for people.
	Reason string `json:"reason"`
	// Risk is the tree's risk level (LeftOutRisk): what --allow-risk
	// must allow.
	Risk string `json:"risk,omitempty"`
	// Findings are the findings above the allowed level (LeftOutRisk),
	// one line each in reports.
	Findings []safety.Finding `json:"findings,omitempty"`
	// Files and Paths are, for LeftOutCap, how many files the cap left
	// out and the first of them (at most plugins.MaxCutPaths).
	Files int      `json:"files,omitempty"`
	Paths []string `json:"paths,omitempty"`
	// Again marks a skill the previous sync left out already, for the
	// same upstream tree: listed, but not counted (see heldName).
	Again bool `json:"again,omitempty"`
}

// capLeftOut is the report of what the cap left out of a plugin's parts.
func capLeftOut(c *plugins.CapCut) []LeftOut {
	if c == nil {
		return nil
	}
	first := make([]string, len(c.First))
	for i, p := range c.First {
		first[i] = skillfs.QuotePath(p)
	}
	named := strings.Join(first, ", ")
	if more := c.Files - len(c.First); more > 0 {
		named += fmt.Sprintf(" and %d more", more)
	}
	return []LeftOut{{
		Kind:   LeftOutCap,
		Reason: fmt.Sprintf("%d of its %d files are over the cap of %d files a plugin's parts hold: %s", c.Files, c.Total, c.Cap, named),
		Files:  c.Files,
		Paths:  slices.Clone(c.First),
	}}
}

// skillIn is one upstream skill being taken in: what its source holds
// (plugins.UpstreamSkill), narrowed by the intake to what a store keeps.
type skillIn struct {
	*plugins.UpstreamSkill
	// intaken is set once intake left out what the store never holds;
	// leftOut lists those files.
	intaken bool
	leftOut []LeftOut
}

// trailer is the Left-Out trailer of a file (or, for the cap, of the
// files) left out of a snapshot.
func (l LeftOut) trailer() store.Trailer {
	if l.Path == "" {
		return store.Trailer{Key: store.TrailerLeftOut, Value: l.Reason}
	}
	return store.Trailer{Key: store.TrailerLeftOut, Value: skillfs.QuotePath(l.Path) + ": " + l.Reason}
}

// storable splits files (symlinks with their targets in Data, other files
// with Data or, over the size cap, Size only) into those a store keeps and
// those it leaves out, sorted by path.
func storable(files []store.File, limits skillfs.Limits) (kept []store.File, left []LeftOut) {
	drop := map[string]string{}
	for _, f := range files {
		switch {
		case f.Mode == skillfs.Gitlink:
			drop[f.Path] = "a submodule (a link to another repository's commit); only files are stored"
		case !f.Mode.IsFile():
			drop[f.Path] = "a device, socket or FIFO; only files are stored"
		case f.Mode != skillfs.Symlink && max(f.Size, int64(len(f.Data))) > limits.MaxFileSize:
			drop[f.Path] = fmt.Sprintf("%d bytes is over the size cap of %d bytes", max(f.Size, int64(len(f.Data))), limits.MaxFileSize)
		}
	}
	for _, e := range skillfs.CheckLinks(files) {
		drop[e.Path] = fmt.Sprintf("symlink to %q %s", e.Target, e.Reason)
	}
	if len(drop) == 0 {
		return files, nil
	}
	for _, f := range files {
		if reason, ok := drop[f.Path]; ok {
			left = append(left, LeftOut{Kind: LeftOutFile, Path: f.Path, Reason: reason})
			continue
		}
		kept = append(kept, f)
	}
	return kept, left
}

// intake leaves out of an upstream skill the files a store never holds
// (see storable): its files and tree become what is kept, and sk.leftOut
// lists the rest (after what the parts' cap left out, if anything). It reads the skill's files, as the safety check that
// follows does anyway; a tree with nothing to leave out is not rewritten.
func intake(tx *store.Tx, sk *skillIn) error {
	if sk.intaken {
		return nil
	}
	if sk.Refused != nil {
		return sk.Refused // past a bound of a tree's shape: read no further
	}
	files, err := plugins.LoadUpstreamFiles(tx, sk.UpstreamSkill)
	if err != nil {
		return err
	}
	sk.intaken = true
	kept, left := storable(files, skillfs.DefaultLimits)
	if len(left) == 0 {
		return nil
	}
	tree, err := tx.WriteTree(kept)
	if err != nil {
		return fmt.Errorf("skill %s: %w", sk.Name, err)
	}
	sk.Files, sk.Tree, sk.leftOut, sk.Dir = kept, tree, append(sk.leftOut, left...), ""
	return nil
}

// leftOutOf reads the files a stored snapshot commit left out (its
// Left-Out trailers), to tell whether a sync meets them for the first time.
func leftOutOf(c *store.Commit) []string {
	var out []string
	for _, t := range c.Trailers() {
		if t.Key == store.TrailerLeftOut {
			out = append(out, t.Value)
		}
	}
	return out
}

// sameLeftOut reports whether left are the files the snapshot c left out.
func sameLeftOut(c *store.Commit, left []LeftOut) bool {
	if len(left) == 0 && !strings.Contains(c.Message, store.TrailerLeftOut+": ") {
		return true // the common case, without parsing the trailers
	}
	var now []string
	for _, l := range left {
		now = append(now, l.trailer().Value)
	}
	return slices.Equal(leftOutOf(c), now)
}

// leftOutTrailers are the Left-Out trailers of an upstream skill's snapshot.
func leftOutTrailers(sk *skillIn) []store.Trailer {
	out := make([]store.Trailer, len(sk.leftOut))
	for i, l := range sk.leftOut {
		out[i] = l.trailer()
	}
	return out
}

// leaveOut turns err, from taking one skill's upstream tree in, into the
// skill being left out (or held at its published version) when err is
// about the skill's content, which a fix upstream, --allow-risk or a
// trust can change: sr then says so and no error is reported. Errors of
// the store itself stay errors.
func leaveOut(err error, sr *SkillReport) bool {
	var (
		invalid *store.InvalidSkillError
		refused *safety.RejectedError
		risk    *safety.RiskRefusedError
		bound   *skillfs.BoundError
	)
	l := LeftOut{Reason: skillError(err)}
	switch {
	case errors.As(err, &risk):
		l.Kind, l.Risk, l.Reason = LeftOutRisk, risk.Risk.String(), risk.Summary()
		for _, f := range risk.Findings {
			if f.Level > risk.Allowed && !f.Known {
				l.Findings = append(l.Findings, f)
			}
		}
	case errors.As(err, &invalid):
		l.Kind = LeftOutInvalid
	case errors.As(err, &refused), errors.As(err, &bound):
		l.Kind = LeftOutRefused
	default:
		return false
	}
	sr.Classification, sr.LeftOut = ClassLeftOut, []LeftOut{l}
	sr.NewVersion, sr.Candidate, sr.Conflicts = 0, "", nil
	return true
}

// layoutLeftOut is the report of a skill folder the layout could not take
// (pluginfmt.PluginLayout.LeftOut): a name a store cannot hold, or a
// symlinked folder leading out of the plugin. Its reason stands for its
// content in the held memo.
func layoutLeftOut(d pluginfmt.SkillDir, p *plugins.Plugin, opts Options) SkillReport {
	sr := SkillReport{Skill: d.Name, Classification: ClassLeftOut, LeftOut: []LeftOut{{Kind: LeftOutRefused, Reason: d.LeftOut}}}
	opts.markHeld(&sr, store.QualifiedName(p.ID, d.Name), skillfs.BlobID([]byte(d.Path+"\x00"+d.LeftOut)))
	return sr
}

// LeftOutParts counts the parts of the report that were left out, whole
// skills and files, except those a previous sync left out already (Again).
func (r *Report) LeftOutParts() int {
	n := 0
	for _, p := range r.Plugins {
		for _, s := range append(slices.Clone(p.Skills), partsOrNone(&p)...) {
			for _, l := range s.LeftOut {
				if !l.Again {
					n++
				}
			}
		}
	}
	return n
}

// heldName is the local file naming the skills (by store name) that the
// last sync or plugin add left out whole, each with the upstream tree it
// refused. A sync that holds the same tree back again lists it with Again
// set and does not count it: cron hears of a held skill once per upstream
// change, not on every run (files left out are told apart by their
// snapshot's Left-Out trailers instead). Local, like the stat cache: only
// what this machine's runs reported.
const heldName = "held-skills.json"

// readHeld reads the held memo; a missing or unreadable one is empty (it
// only decides what is reported again).
func readHeld(r *store.Reader) map[string]string {
	m := map[string]string{}
	if data, err := safefile.ReadFile(r.Store().LocalPath(heldName), safefile.RecordLimit); err == nil {
		_ = json.Unmarshal(data, &m)
	}
	return m
}

// markHeld notes on sr, the report of skill (store name) left out whole
// with upstream tree, whether the last run left the same tree out.
func (o Options) markHeld(sr *SkillReport, skill string, tree store.Hash) {
	sr.held = [2]string{skill, tree.String()}
	if o.held[skill] == tree.String() {
		for i := range sr.LeftOut {
			sr.LeftOut[i].Again = true
		}
	}
}

// saveHeld records the skills rep left out whole in the held memo,
// replacing the entries of the plugins rep covers; a dry run saves
// nothing.
func saveHeld(tx *store.Tx, rep *Report) error {
	if tx.Store().IsDryRun() {
		return nil
	}
	m := readHeld(tx.Reader)
	for _, p := range rep.Plugins {
		if p.Skipped != "" || p.Error != "" && len(p.Skills) == 0 && p.Parts == nil {
			continue // not read this time: what it held stays as it was
		}
		maps.DeleteFunc(m, func(k, _ string) bool { return strings.HasPrefix(k, p.Plugin+":") })
	}
	for _, p := range rep.Plugins {
		for _, s := range append(slices.Clone(p.Skills), partsOrNone(&p)...) {
			if s.held[0] != "" {
				m[s.held[0]] = s.held[1]
			}
		}
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(tx.Store().LocalPath(heldName), append(data, '\n'), 0o644)
}

// leftOutSummary names what a plugin's report left out, for the error of
// a --strict run that refuses the plugin whole.
func leftOutSummary(pr *PluginReport) string {
	var names []string
	for _, s := range append(slices.Clone(pr.Skills), partsOrNone(pr)...) {
		for _, l := range s.LeftOut {
			if l.Path != "" {
				names = append(names, s.Skill+"/"+l.Path)
			} else {
				names = append(names, s.Skill)
			}
		}
	}
	return strings.Join(names, ", ")
}

func partsOrNone(pr *PluginReport) []SkillReport {
	if pr.Parts == nil {
		return nil
	}
	return []SkillReport{*pr.Parts}
}

// ErrStrict is wrapped by the error of a plugin that --strict refused
// whole because a part of it would have been left out (or failed).
var ErrStrict = errors.New("--strict: all or nothing")

// pluginLeftOut reports whether pr left anything out.
func pluginLeftOut(pr *PluginReport) bool {
	return leftOutSummary(pr) != ""
}

// strictFailure is the error of a plugin --strict refuses whole: the
// caller drops every write of the plugin. The report keeps only what was
// left out or failed, since nothing else was written.
func strictFailure(pr *PluginReport, failed []string, partsErr error) error {
	what := leftOutSummary(pr)
	if len(failed) > 0 {
		what = strings.TrimPrefix(what+", "+strings.Join(failed, ", ")+" (failed)", ", ")
	}
	if partsErr != nil {
		what = strings.TrimPrefix(what+", "+partsErr.Error(), ", ")
	}
	pr.Skills = slices.DeleteFunc(pr.Skills, func(s SkillReport) bool { return len(s.LeftOut) == 0 && s.Error == "" })
	if pr.Parts != nil && len(pr.Parts.LeftOut) == 0 && pr.Parts.Error == "" {
		pr.Parts = nil
	}
	return fmt.Errorf("%w: nothing of plugin %s is written, since a part of it would be left out: %s", ErrStrict, pr.Plugin, what)
}
