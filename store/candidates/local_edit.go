package candidates

import (
	"fmt"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/merge"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// LocalEdit is a skill folder edited in a target while the published
// version moved on.
type LocalEdit struct {
	Skill string
	// Where names the folder for people ("target claude").
	Where string
	// Base is the tree export had written into the folder: the version
	// the edit started from.
	Base store.Hash
	// Files are the edited folder's files, with content.
	Files  []store.File
	Actor  *store.Signature
	Reason string
	// Ahead, when set, holds the merge computed before the write's lock
	// (see WriteAhead).
	Ahead *merge.Ahead
}

// LocalMergeOutcome is what [MergeLocalEdit] did.
type LocalMergeOutcome string

const (
	// LocalIntegrated: the published version already holds the edit (it
	// was merged or rejected before, or made the same change): the folder
	// can be replaced by the published version.
	LocalIntegrated LocalMergeOutcome = "integrated"
	// LocalCandidate: the three-way merge is a new candidate for review.
	LocalCandidate LocalMergeOutcome = "candidate"
	// LocalPending: a candidate made from this very edit still waits.
	LocalPending LocalMergeOutcome = "pending"
	// LocalBlocked: another candidate (an upstream update) waits for the
	// skill; it is reviewed first, the edit is merged after.
	LocalBlocked LocalMergeOutcome = "blocked"
)

// LocalMerge is the result of [MergeLocalEdit].
type LocalMerge struct {
	Outcome   LocalMergeOutcome
	Head      store.Version
	Candidate store.Hash
	Conflicts []string
	// Blocking is the pending candidate's plugin (LocalBlocked).
	Blocking string
}

// MergeLocalEdit turns an edit that cannot be recorded as the next version
// (the published version moved since export wrote the folder) into a
// candidate: the three-way merge of the version the edit started from
// (base), the published version (ours) and the edit (theirs). The
// candidate's second parent is a commit holding the edit itself, whose
// parent is the base version, so the edit is in the store whatever the
// review decides; accepting or rejecting the candidate makes it an
// ancestor of the published version, which is how a later call knows the
// edit was dealt with (LocalIntegrated).
func MergeLocalEdit(tx *store.Tx, e LocalEdit) (LocalMerge, error) {
	var lm LocalMerge
	head, err := tx.Head(e.Skill)
	if err != nil {
		return lm, err
	}
	lm.Head = head
	editTree, err := skillfs.TreeID(e.Files)
	if err != nil {
		return lm, fmt.Errorf("%s: %w", e.Skill, err)
	}
	if editTree == head.Tree || editRecorded(tx.Reader, head.Commit, editTree) {
		lm.Outcome = LocalIntegrated
		return lm, nil
	}
	_, hasCand := tx.Ref(store.CandidateRef(e.Skill))
	if hasCand {
		c, err := Get(tx.Reader, e.Skill)
		if err != nil {
			return lm, err
		}
		if c.Mode != store.MergeModeLocalEdit {
			lm.Outcome, lm.Blocking, lm.Candidate = LocalBlocked, c.Plugin, c.Head
			return lm, nil
		}
		if edit, err := tx.Commit(c.Upstream); err == nil && edit.Tree == editTree && c.Published == head.Commit {
			lm.Outcome, lm.Candidate, lm.Conflicts = LocalPending, c.Head, c.Conflicts
			return lm, nil
		}
	}
	baseCommit, baseTree := versionWithTree(tx.Reader, e.Skill, e.Base)
	b, err := LoadMergeTree(tx.Reader, baseTree)
	if err != nil {
		return lm, fmt.Errorf("merge %s: base: %w", e.Skill, err)
	}
	o, err := LoadMergeTree(tx.Reader, head.Tree)
	if err != nil {
		return lm, fmt.Errorf("merge %s: %w", e.Skill, err)
	}
	for _, f := range e.Files {
		if !f.Mode.IsFile() {
			return lm, fmt.Errorf("merge %s: %s: cannot merge a file of mode %s", e.Skill, f.Path, f.Mode)
		}
	}
	res, err := merge.MergeTrees(b, o, merge.TreeOf(e.Files), merge.Options{Labels: merge.Labels{
		Ours: "published " + head.Name(), Base: "exported", Theirs: "edit in " + e.Where,
	}, Ahead: e.Ahead})
	if err != nil {
		return lm, fmt.Errorf("merge %s: %w", e.Skill, err)
	}
	files := res.Tree.Files()
	if res.Clean() {
		if t, err := skillfs.TreeID(files); err == nil && t == head.Tree {
			lm.Outcome = LocalIntegrated // the published version made the same change
			return lm, nil
		}
	}
	checked, err := safety.CheckUpdate(e.Skill, files, tx.FilesOrNil(head.Tree), skillfs.DefaultLimits)
	if err != nil {
		return lm, err
	}
	checked = tx.ScanExternal(tx.Context(), e.Skill, checked, files, tx.FilesOrNil(head.Tree))
	tree, err := tx.WriteTree(files)
	if err != nil {
		return lm, fmt.Errorf("merge %s: %w", e.Skill, err)
	}
	if _, err := tx.WriteTree(e.Files); err != nil {
		return lm, fmt.Errorf("merge %s: %w", e.Skill, err)
	}
	for _, c := range res.Conflicts {
		lm.Conflicts = append(lm.Conflicts, fmt.Sprintf("%s (%s)", c.Path, c.Kind))
	}
	sig := tx.Signature()
	actor := sig
	if e.Actor != nil {
		actor.Name, actor.Email = e.Actor.Name, e.Actor.Email
	}
	var editParents []store.Hash
	if !baseCommit.IsZero() {
		editParents = []store.Hash{baseCommit}
	}
	edit := &store.Commit{
		Tree: editTree, Parents: editParents, Author: actor, Committer: sig,
		Message: store.BuildMessage(fmt.Sprintf("%s: edit in %s", e.Skill, e.Where), "", []store.Trailer{
			{Key: store.TrailerMergeMode, Value: string(store.MergeModeLocalEdit)},
			{Key: store.TrailerActor, Value: actor.Name + " <" + actor.Email + ">"},
			{Key: store.TrailerReason, Value: e.Reason},
		}),
	}
	tx.WriteCommit(edit)
	Replace(tx, e.Skill)
	h := Write(tx, Spec{
		Skill: e.Skill, Subject: fmt.Sprintf("candidate %s: merge the edit in %s with %s", e.Skill, e.Where, head.Name()),
		Tree: tree, Published: head.Commit, Upstream: edit.Hash,
		Source: head.Source, Plugin: head.Plugin, PluginVersion: head.PluginVersion,
		Mode: store.MergeModeLocalEdit, Base: baseCommit, Conflicts: lm.Conflicts, Risk: checked.Risk,
	})
	lm.Outcome, lm.Candidate = LocalCandidate, h
	return lm, nil
}

// versionWithTree finds the newest version of skill whose tree is tree
// (the version export wrote); if none, the tree alone is the base when
// the store holds it, else there is no base.
func versionWithTree(r *store.Reader, skill string, tree store.Hash) (commit, baseTree store.Hash) {
	_ = r.WalkVersions(skill, func(v store.Version) bool {
		if v.Tree == tree {
			commit = v.Commit
			return false
		}
		return true
	})
	if commit.IsZero() && !r.HasObject(tree) {
		return store.ZeroHash, store.ZeroHash
	}
	return commit, tree
}

// editRecorded reports whether a local-edit commit with tree is an
// ancestor of head: a candidate made from that edit was accepted or
// rejected, so the edit needs nothing more.
func editRecorded(r *store.Reader, head, tree store.Hash) bool {
	seen := map[store.Hash]bool{}
	queue := []store.Hash{head}
	for len(queue) > 0 && len(seen) < 5000 {
		h := queue[0]
		queue = queue[1:]
		if seen[h] {
			continue
		}
		seen[h] = true
		c, err := r.Commit(h)
		if err != nil {
			return false
		}
		if c.Tree == tree && c.Trailer(store.TrailerMergeMode) == string(store.MergeModeLocalEdit) && c.Trailer(store.TrailerCandidate) == "" {
			return true
		}
		queue = append(queue, c.Parents...)
	}
	return false
}
