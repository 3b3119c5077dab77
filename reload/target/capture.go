package target

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
	"github.com/skillstore/skillstore/merge"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/candidates"
	"github.com/skillstore/skillstore/store/safety"
)

// Outcome is what capture did with one edited skill folder.
type Outcome string

const (
	// Captured: the folder was recorded as a new version.
	Captured Outcome = "captured"
	// Unchanged: the store already holds the folder's tree.
	Unchanged Outcome = "unchanged"
	// Integrated: the published version moved since export wrote the
	// folder and already holds the edit (its merge was accepted or
	// rejected, or the same change was published): the folder is export's
	// own again and the next export replaces it with the published version.
	Integrated Outcome = "integrated"
	// Candidate: the published version also changed since export wrote the
	// folder; the edit, the version it started from and the published
	// version were merged into a candidate for review (store.MergeModeLocalEdit).
	Candidate Outcome = "candidate"
	// CandidatePending: a candidate made from this very edit still waits
	// for review.
	CandidatePending Outcome = "candidate-pending"
	// NeedsMerge: both sides changed, but another candidate (an upstream
	// update) waits for the skill; once it is accepted or rejected, the next
	// capture or sync merges the edit.
	NeedsMerge Outcome = "needs-merge"
	// Refused: the folder does not validate, the safety check refused it,
	// or it could not be read (Error names the entry). With no Skill, the
	// whole target was refused: its folders could not be compared (a
	// bookkeeping folder that is a link, a busy lock); the others go on.
	Refused Outcome = "refused"
)

// captureActor is who made the edits capture records: the store's
// identity, as add records it (git's author, else the login and host
// names). Where the edit was made stays in the version's reason ("local
// edit in target claude").
func captureActor(tx *store.Tx) *store.Signature {
	id := tx.Identity()
	return &id.Signature
}

// MergeModeCapture marks a version recorded from a local edit in a target.
const MergeModeCapture store.MergeMode = "capture"

// CaptureOptions say what to capture.
type CaptureOptions struct {
	Options
	// Only limits capture to these skills (all edited skills when empty).
	Only []string
	// Reason is recorded on each version (default: "local edit in target
	// NAME").
	Reason string
	// Progress, when set, is called after each edited folder is handled.
	Progress func(done, total int)
}

// CaptureResult is what capture did with one edited skill folder.
type CaptureResult struct {
	Target  string   `json:"target"`
	Skill   string   `json:"skill"`
	Paths   []string `json:"paths"`
	Version string   `json:"version,omitempty"`
	Outcome Outcome  `json:"outcome"`
	// Candidate is the candidate commit (candidate, candidate-pending).
	Candidate string   `json:"candidate,omitempty"`
	Conflicts []string `json:"conflicts,omitempty"`
	// Raced is set for an edit that raced an export (kept under the
	// target's .skillstore folder until capture stored it).
	Raced bool   `json:"raced,omitempty"`
	Error string `json:"error,omitempty"`
}

// OK reports whether the edit is stored (captured now or before) and
// nothing waits for a person.
func (r CaptureResult) OK() bool {
	return r.Outcome == Captured || r.Outcome == Unchanged || r.Outcome == Integrated
}

// InReview reports whether the edit is stored in a candidate that waits
// for review.
func (r CaptureResult) InReview() bool {
	return r.Outcome == Candidate || r.Outcome == CandidatePending
}

// captureJob is one edited folder to capture.
type captureJob struct {
	st        SkillStatus
	targetDir string
	dir       string // the folder read: in the target, or a raced edit's
	files     []skillfs.File
	res       CaptureResult
	// stored is the store's tree that the folder's files are, with the
	// frontmatter name a renamed folder has (zero when no version is that).
	stored skillfs.ID
}

// Capture records every skill folder a person edited in targets, and every
// edit that raced an export, as a new version of the skill by git's author
// identity (or CaptureActor), in one store transaction, then marks each
// captured folder as export's own again, so export and sync keep the edit. An edit whose
// published version moved since export wrote the folder becomes a
// three-way candidate (see Candidate). The error is for what stops the
// whole capture; a skill that could not be captured is a result.
func Capture(ctx context.Context, s *store.Store, targets []Target, opts CaptureOptions) ([]CaptureResult, error) {
	sts, err := Status(ctx, s, targets, opts.Options)
	var failed *StatusError
	if err != nil && !errors.As(err, &failed) {
		return nil, err
	}
	jobs := captureJobs(sts, targets, opts.Only)
	var results []CaptureResult
	if failed != nil {
		// A target whose folders could not be compared is refused alone.
		for _, f := range failed.Failed {
			results = append(results, CaptureResult{Target: f.Target, Outcome: Refused, Error: f.Err.Error()})
		}
	}
	if len(jobs) == 0 {
		return results, nil
	}
	// An edit merged with a published version that moved is merged with
	// no lock held when it is large: the capture is planned, then made
	// (candidates.WriteAhead); each run starts from the jobs as read.
	read := make([]captureJob, len(jobs))
	for i, j := range jobs {
		read[i] = *j
	}
	err = candidates.WriteAhead(ctx, s, func(ahead *merge.Ahead) error {
		return s.Update(ctx, func(tx *store.Tx) error {
			for i, j := range jobs {
				if err := ctx.Err(); err != nil {
					return err
				}
				*j = read[i]
				if j.res.Outcome == "" {
					captureOne(tx, j, opts.Reason, ahead)
				}
				if opts.Progress != nil {
					opts.Progress(i+1, len(jobs))
				}
			}
			return ahead.Err()
		})
	})
	if err != nil {
		return nil, err
	}
	settle(ctx, jobs, opts, s.IsDryRun())
	if !s.IsDryRun() {
		repinCaptured(ctx, s, targets, jobs)
	}
	for _, j := range jobs {
		results = append(results, j.res)
	}
	return results, nil
}

// captureJobs lists the edited folders of sts to capture (those of only,
// when set) and reads each: a folder that cannot be read (a FIFO in it, a
// file in its place) is refused alone, naming the entry.
func captureJobs(sts []SkillStatus, targets []Target, only []string) []*captureJob {
	dirs := map[string]string{}
	for _, t := range targets {
		dirs[t.Name] = t.Dir
	}
	var jobs []*captureJob
	for _, st := range sts {
		if (st.State != reload.StateModified && st.State != reload.StateRaced && st.State != reload.StateUnreadable) ||
			(len(only) > 0 && !slices.Contains(only, st.Skill) && !slices.Contains(only, st.Folder)) {
			continue
		}
		j := &captureJob{st: st, targetDir: dirs[st.Target], dir: filepath.Join(dirs[st.Target], st.folder()),
			res: CaptureResult{Target: st.Target, Skill: st.Skill, Paths: st.Paths, Raced: st.State == reload.StateRaced}}
		if j.res.Raced {
			j.dir = st.Dir
		}
		var err error
		if st.State == reload.StateUnreadable {
			j.res.Outcome, j.res.Error = Refused, st.Error
		} else if j.files, err = reload.ReadDir(j.dir); err != nil {
			j.res.Outcome, j.res.Error = Refused, err.Error()
		} else {
			reload.ExportedModes(j.targetDir, st.folder(), j.files) // Windows keeps no execute bit
		}
		jobs = append(jobs, j)
	}
	return jobs
}

// settle runs once the versions are stored: captured folders become
// export's own again (one lock per target), and raced edits that are now
// in the store are deleted from the target's bookkeeping folder. A dry
// run writes nothing into the targets: it records the adoptions in
// opts.Pending for the export plan that follows.
func settle(ctx context.Context, jobs []*captureJob, opts CaptureOptions, dryRun bool) {
	adopt := map[string]map[string][]skillfs.File{}
	origins := map[string]map[string]reload.Origin{}
	for _, j := range jobs {
		switch {
		case j.res.Raced && (j.res.OK() || j.res.InReview()):
			if dryRun {
				continue
			}
			if err := reload.DropRaced(ctx, j.targetDir, j.dir, j.files, opts.LockTimeout); err != nil {
				opts.logger().Debug("raced edit changed again; status will show it", "dir", j.dir, "err", err)
			}
		case !j.res.Raced && j.res.OK():
			if adopt[j.targetDir] == nil {
				adopt[j.targetDir] = map[string][]skillfs.File{}
				origins[j.targetDir] = map[string]reload.Origin{}
			}
			folder := j.st.folder()
			adopt[j.targetDir][folder] = j.files
			if folder != j.st.Skill {
				o := reload.Origin{StoreName: j.st.Skill}
				if !j.st.StoreTree.IsZero() {
					o.StoreTree = j.stored
				}
				origins[j.targetDir][folder] = o
			}
		}
	}
	for dir, folders := range adopt {
		if dryRun {
			if opts.Pending != nil {
				opts.Pending.addAdoption(dir, folders, origins[dir])
			}
			continue
		}
		// Adopt exactly what was stored: a folder changed again since
		// stays modified.
		changed, err := reload.AdoptFolders(ctx, dir, folders, origins[dir], opts.LockTimeout)
		if err != nil || len(changed) > 0 {
			opts.logger().Debug("captured folders changed again; status will show them", "target", dir, "skills", changed, "err", err)
		}
	}
}

// captureOne records one edited folder as a new version, or, when the
// published version moved since export wrote the folder, merges it into a
// candidate. Problems of this folder alone are its result.
func captureOne(tx *store.Tx, j *captureJob, reason string, ahead *merge.Ahead) {
	res, st, files := &j.res, j.st, j.files
	if reason == "" {
		reason = "local edit in target " + st.Target
	}
	fail := func(err error) { res.Outcome, res.Error = Refused, err.Error() }
	head, err := tx.Head(st.Skill)
	if err != nil {
		fail(err)
		return
	}
	// A renamed plugin skill's folder differs from its version in the
	// store by the frontmatter name: put the stored one back.
	files, base, err := unrename(tx, st, files)
	if err != nil {
		fail(err)
		return
	}
	if tree, err := skillfs.TreeID(files); err == nil && tree == head.Tree {
		res.Outcome, res.Version, j.stored = Unchanged, head.Name(), head.Tree
		return
	}
	if head.Tree != base {
		lm, err := candidates.MergeLocalEdit(tx, candidates.LocalEdit{Skill: st.Skill, Where: "target " + st.Target, Base: base,
			Files: files, Actor: captureActor(tx), Reason: reason, Ahead: ahead})
		if err != nil {
			fail(err)
			return
		}
		res.Version, res.Conflicts = lm.Head.Name(), lm.Conflicts
		if !lm.Candidate.IsZero() {
			res.Candidate = lm.Candidate.String()
		}
		switch lm.Outcome {
		case candidates.LocalIntegrated:
			res.Outcome = Integrated
		case candidates.LocalCandidate:
			res.Outcome = Candidate
		case candidates.LocalPending:
			res.Outcome = CandidatePending
		default:
			res.Outcome = NeedsMerge
			res.Error = fmt.Sprintf("%s changed in the target and in the store (now %s), and a candidate from plugin %s waits: accept or reject it, then capture or sync merges the edit",
				st.Skill, head.Name(), lm.Blocking)
		}
		return
	}
	if err := validate(j.dir, shortName(st.Skill), files); err != nil {
		fail(err)
		return
	}
	previous, err := tx.Files(head.Tree)
	if err != nil {
		fail(err)
		return
	}
	checked, err := safety.Check(st.Skill, files, previous, skillfs.DefaultLimits)
	if err != nil {
		fail(err)
		return
	}
	checked = tx.ScanExternal(tx.Context(), st.Skill, checked, files, nil)
	if checked.Risk > safety.DefaultAllowedRisk {
		fail(&safety.RiskRefusedError{Skill: st.Skill, Risk: checked.Risk, Allowed: safety.DefaultAllowedRisk, Findings: checked.Findings})
		return
	}
	tree, err := tx.WriteTree(files)
	if err != nil {
		fail(err)
		return
	}
	v, err := tx.CommitVersion(st.Skill, tree, store.VersionInfo{
		Source: head.Source, Plugin: head.Plugin, PluginVersion: head.PluginVersion,
		MergeMode: MergeModeCapture, Reason: reason, Risk: checked.Risk, Findings: checked.Findings,
		Actor: captureActor(tx),
	})
	if err != nil {
		fail(err)
		return
	}
	res.Outcome, res.Version, j.stored = Captured, v.Name(), tree
}

// ValidationError lists what makes an edited SKILL.md fail validation.
type ValidationError struct {
	Diagnostics []discover.Diagnostic
}

func (e *ValidationError) Error() string {
	msg := ""
	for i, d := range e.Diagnostics {
		if i > 0 {
			msg += "; "
		}
		msg += d.String()
	}
	return msg
}

// validate checks the edited SKILL.md by the validation policy add and
// every other way into the store apply (discover.Check, lenient).
func validate(dir, skill string, files []skillfs.File) error {
	f, ok := skillfs.Find(files, skillmd.FileName)
	if !ok {
		return fmt.Errorf("%s has no %s", dir, skillmd.FileName)
	}
	display := filepath.Join(dir, skillmd.FileName)
	if v := discover.Check(display, skill, f.Data, discover.Lenient); !v.Accepted() {
		return &ValidationError{Diagnostics: v.Errors()}
	}
	return nil
}
