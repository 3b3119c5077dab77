package target

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// Outcome is what capture did with one edited skill folder.
type Outcome string

const (
	// Captured: the folder was recorded as a new version.
	Captured Outcome = "captured"
	// Unchanged: the store already holds the folder's tree.
	Unchanged Outcome = "unchanged"
	// NeedsMerge: the published version also changed since export wrote
	// the folder; both sides changed, which is sync's three-way merge.
	NeedsMerge Outcome = "needs-merge"
	// Refused: the folder does not validate, the safety check refused it,
	// or it could not be read.
	Refused Outcome = "refused"
)

// CaptureActor is who records a captured local edit.
var CaptureActor = store.Signature{Name: "local", Email: "local@skillstore"}

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
}

// CaptureResult is what capture did with one edited skill folder.
type CaptureResult struct {
	Target  string   `json:"target"`
	Skill   string   `json:"skill"`
	Paths   []string `json:"paths"`
	Version string   `json:"version,omitempty"`
	Outcome Outcome  `json:"outcome"`
	Error   string   `json:"error,omitempty"`
}

// OK reports whether the edit is stored (captured now or before).
func (r CaptureResult) OK() bool { return r.Outcome == Captured || r.Outcome == Unchanged }

// Capture records every skill folder a person edited in targets as a new
// version of the skill, by CaptureActor, and marks each captured folder as
// export's own again, so export and sync keep the edit. The error is for
// what stops the whole capture; a skill that could not be captured is a
// result.
func Capture(ctx context.Context, s *store.Store, targets []Target, opts CaptureOptions) ([]CaptureResult, error) {
	sts, err := Status(ctx, s, targets, opts.Options)
	if err != nil {
		return nil, err
	}
	dirs := map[string]string{}
	for _, t := range targets {
		dirs[t.Name] = t.Dir
	}
	var results []CaptureResult
	for _, st := range sts {
		if st.State != reload.StateModified || (len(opts.Only) > 0 && !slices.Contains(opts.Only, st.Skill)) {
			continue
		}
		res, files := captureOne(ctx, s, dirs[st.Target], st, opts.Reason)
		if res.OK() {
			// Adopt exactly what was stored: if the folder changed again
			// since, it stays modified.
			if err := reload.Adopt(ctx, dirs[st.Target], st.Skill, files, opts.LockTimeout); err != nil {
				opts.logger().Debug("captured folder changed again; status will show it", "skill", st.Skill, "err", err)
			}
		}
		results = append(results, res)
	}
	return results, nil
}

// captureOne records one edited folder as a new version, unless the
// published version moved since export wrote the folder. It returns the
// files it read.
func captureOne(ctx context.Context, s *store.Store, targetDir string, st SkillStatus, reason string) (CaptureResult, []skillfs.File) {
	res := CaptureResult{Target: st.Target, Skill: st.Skill, Paths: st.Paths}
	dir := filepath.Join(targetDir, st.Skill)
	files, err := reload.ReadDir(dir)
	if err != nil {
		res.Outcome, res.Error = Refused, err.Error()
		return res, nil
	}
	if reason == "" {
		reason = "local edit in target " + st.Target
	}
	err = s.Update(ctx, func(tx *store.Tx) error {
		head, err := tx.Head(st.Skill)
		if err != nil {
			return err
		}
		if tree, err := skillfs.TreeID(files); err == nil && tree == head.Tree {
			res.Outcome, res.Version = Unchanged, head.Name()
			return nil
		}
		if head.Tree != st.Exported {
			res.Outcome = NeedsMerge
			res.Error = fmt.Sprintf("%s changed in the target and in the store (now %s) since export wrote it", st.Skill, head.Name())
			return nil
		}
		if err := validate(dir, st.Skill, files); err != nil {
			return err
		}
		previous, err := tx.Files(head.Tree)
		if err != nil {
			return err
		}
		checked, err := safety.Check(st.Skill, files, previous, safety.DefaultLimits)
		if err != nil {
			return err
		}
		if checked.Risk > safety.DefaultAllowedRisk {
			return &safety.RiskRefusedError{Skill: st.Skill, Risk: checked.Risk, Allowed: safety.DefaultAllowedRisk, Findings: checked.Findings}
		}
		tree, err := tx.WriteTree(files)
		if err != nil {
			return err
		}
		v, err := tx.CommitVersion(st.Skill, tree, store.VersionInfo{
			Source: head.Source, Plugin: head.Plugin, PluginVersion: head.PluginVersion,
			MergeMode: MergeModeCapture, Reason: reason, Risk: checked.Risk, Findings: checked.Findings,
			Actor: &CaptureActor,
		})
		if err != nil {
			return err
		}
		res.Outcome, res.Version = Captured, v.Name()
		return nil
	})
	if err != nil {
		res.Outcome, res.Error = Refused, err.Error()
	}
	return res, files
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
	f, ok := skillfs.Find(files, skillfs.SkillFile)
	if !ok {
		return fmt.Errorf("%s has no %s", dir, skillfs.SkillFile)
	}
	display := filepath.Join(dir, skillfs.SkillFile)
	if v := discover.Check(display, skill, f.Data, discover.Lenient); !v.Accepted() {
		return &ValidationError{Diagnostics: v.Errors()}
	}
	return nil
}
