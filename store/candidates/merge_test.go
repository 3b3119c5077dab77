package candidates_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/skillstore/skillstore/merge"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/candidates"
	"github.com/skillstore/skillstore/store/internal/storetest"
)

// steps is a SKILL.md of deploy with three steps.
func steps(one, two, three string) files {
	return files{"SKILL.md": storetest.SkillMD("deploy", one, two, three)}
}

// moved publishes deploy v1 and then v2 with its first step changed: the
// version export wrote into a target's folder, and the one published since.
func moved(t *testing.T) (*store.Store, store.Version, store.Version) {
	t.Helper()
	s := storetest.NewStore(t)
	var v1, v2 store.Version
	update(t, s, func(tx *store.Tx) error {
		var err error
		if v1, err = publish(tx, managed, steps("one", "two", "three")); err != nil {
			return err
		}
		v2, err = publish(tx, managed, steps("one, published", "two", "three"))
		return err
	})
	return s, v1, v2
}

// mergeEdit runs MergeLocalEdit on an edit of the folder export wrote at base.
func mergeEdit(t *testing.T, s *store.Store, base store.Version, edit files) candidates.LocalMerge {
	t.Helper()
	var lm candidates.LocalMerge
	update(t, s, func(tx *store.Tx) error {
		var err error
		lm, err = candidates.MergeLocalEdit(tx, candidates.LocalEdit{
			Skill: managed, Where: "target claude", Base: base.Tree, Files: edit.list(),
			Actor: &store.Signature{Name: "Ann", Email: "ann@example.com"}, Reason: "fix step three",
		})
		return err
	})
	return lm
}

func getCandidate(t *testing.T, s *store.Store, name string) candidates.Candidate {
	t.Helper()
	return view(t, s, func(r *store.Reader) (candidates.Candidate, error) { return candidates.Get(r, name) })
}

// TestMergeLocalEditClean: an edit of another line than the published
// change becomes a candidate holding both, whose second parent records the
// edit on the exported version; the same edit again is pending, and once
// the candidate is accepted it is integrated.
func TestMergeLocalEditClean(t *testing.T) {
	s, v1, v2 := moved(t)
	edit := steps("one", "two", "three, edited")
	lm := mergeEdit(t, s, v1, edit)
	if lm.Outcome != candidates.LocalCandidate || lm.Conflicts != nil || lm.Head.Commit != v2.Commit || lm.Candidate.IsZero() {
		t.Fatalf("MergeLocalEdit = %+v, want a clean candidate on v2", lm)
	}
	c := getCandidate(t, s, managed)
	if c.Head != lm.Candidate || c.Mode != store.MergeModeLocalEdit || c.Published != v2.Commit || c.Base != v1.Commit || c.EditAuthor != "Ann" {
		t.Errorf("candidate %+v, want a local-edit candidate on v2 with base v1 by Ann", c)
	}
	merged := view(t, s, func(r *store.Reader) ([]store.File, error) { return r.LoadFiles(c.Tree) })
	if got, want := string(store.FileMap(merged)["SKILL.md"].Data), steps("one, published", "two", "three, edited")["SKILL.md"]; got != want {
		t.Errorf("merged SKILL.md = %q, want %q", got, want)
	}
	editCommit := view(t, s, func(r *store.Reader) (*store.Commit, error) { return r.Commit(c.Upstream) })
	if want, _ := store.TreeHash(edit.list()); editCommit.Tree != want || !slices.Equal(editCommit.Parents, []store.Hash{v1.Commit}) {
		t.Errorf("edit commit tree %s parents %v, want the edit's tree %s on v1", editCommit.Tree, editCommit.Parents, want)
	}

	if again := mergeEdit(t, s, v1, edit); again.Outcome != candidates.LocalPending || again.Candidate != lm.Candidate {
		t.Errorf("the same edit again = %+v, want pending on %s", again, lm.Candidate)
	}
	if _, err := candidates.Accept(context.Background(), s, managed, ""); err != nil {
		t.Fatal(err)
	}
	if after := mergeEdit(t, s, v1, edit); after.Outcome != candidates.LocalIntegrated {
		t.Errorf("the edit after its candidate was accepted = %+v, want integrated", after)
	}
	if refs := gitRefs(t, s, store.CandidateRefPrefix); refs != "" {
		t.Errorf("candidate refs after an integrated edit: %s", refs)
	}
}

// TestMergeLocalEditConflict: an edit of the line the published version
// changed is a candidate with SKILL.md in conflict, its markers in place.
func TestMergeLocalEditConflict(t *testing.T) {
	s, v1, _ := moved(t)
	lm := mergeEdit(t, s, v1, steps("one, mine", "two", "three"))
	if lm.Outcome != candidates.LocalCandidate || !slices.Equal(lm.Conflicts, []string{"SKILL.md (content)"}) {
		t.Fatalf("MergeLocalEdit = %+v, want a candidate with SKILL.md in conflict", lm)
	}
	if c := getCandidate(t, s, managed); c.Head != lm.Candidate || !slices.Equal(c.Markers, []string{"SKILL.md"}) {
		t.Errorf("candidate head %s markers %q, want %s with markers in SKILL.md", c.Head, c.Markers, lm.Candidate)
	}
	// Rejecting the candidate deals with the edit too.
	if _, err := candidates.Reject(context.Background(), s, managed, ""); err != nil {
		t.Fatal(err)
	}
	if after := mergeEdit(t, s, v1, steps("one, mine", "two", "three")); after.Outcome != candidates.LocalIntegrated {
		t.Errorf("the edit after its candidate was rejected = %+v, want integrated", after)
	}
}

// TestMergeLocalEditNoCandidate: an edit the published version already
// holds is integrated, and one made while an upstream candidate waits is
// blocked by it; neither writes a candidate.
func TestMergeLocalEditNoCandidate(t *testing.T) {
	s, v1, v2 := moved(t)
	if lm := mergeEdit(t, s, v1, steps("one, published", "two", "three")); lm.Outcome != candidates.LocalIntegrated {
		t.Errorf("an edit equal to the published version = %+v, want integrated", lm)
	}
	if refs := gitRefs(t, s, store.CandidateRefPrefix); refs != "" {
		t.Errorf("candidate refs after an integrated edit: %s", refs)
	}

	// acme's update waits as a candidate on v2 (its upstream: any commit).
	sc := scene{s: s, base: v1.Commit, upstream: v1.Commit}
	upstream := sc.write(t, managed, steps("one, published", "two", "three, upstream"))
	lm := mergeEdit(t, s, v2, steps("one, published", "two, mine", "three"))
	if lm.Outcome != candidates.LocalBlocked || lm.Blocking != "acme" || lm.Candidate != upstream {
		t.Errorf("an edit while acme's candidate waits = %+v, want blocked by acme's %s", lm, upstream)
	}
	if got := gitRef(t, s, store.CandidateRef(managed)); got != upstream.String() {
		t.Errorf("candidate ref at %s, want acme's %s still", got, upstream)
	}
}

// diverged publishes deploy v1, then v2 here with local's files and a v2 on
// the remote origin with remote's (kept under its tracking ref, as pull
// leaves it).
func diverged(t *testing.T, local, remote files) (s *store.Store, v1, lv, rv store.Version) {
	t.Helper()
	s = storetest.NewStore(t)
	update(t, s, func(tx *store.Tx) error {
		var err error
		if v1, err = publish(tx, managed, steps("one", "two", "three")); err != nil {
			return err
		}
		if rv, err = publish(tx, managed, remote); err != nil {
			return err
		}
		tx.SetRef(store.TrackingRef("origin", store.SkillRef(managed)), rv.Commit)
		tx.SetRef(store.SkillRef(managed), v1.Commit)
		lv, err = publish(tx, managed, local)
		return err
	})
	return s, v1, lv, rv
}

func mergeDiverged(t *testing.T, s *store.Store, lv, rv store.Version) candidates.DivergedMerge {
	t.Helper()
	var dm candidates.DivergedMerge
	update(t, s, func(tx *store.Tx) error {
		var err error
		dm, err = candidates.MergeDiverged(tx, lv, rv, "origin", merge.Options{})
		return err
	})
	return dm
}

// TestMergeDivergedSameFiles: both sides published the same files: they
// are joined at once, numbered past both, the remote's side first on a tie.
func TestMergeDivergedSameFiles(t *testing.T) {
	same := steps("one", "two", "three, both")
	s, _, lv, rv := diverged(t, same, same)
	dm := mergeDiverged(t, s, lv, rv)
	if j := dm.Joined; j.Number != 3 || j.Tree != lv.Tree || !slices.Equal(j.Parents, []store.Hash{rv.Commit, lv.Commit}) || !dm.Candidate.IsZero() {
		t.Errorf("MergeDiverged = %+v, want v3 joining [%s %s] with no candidate", dm, rv.Commit, lv.Commit)
	}
	if head := storetest.HeadOf(t, s, managed); head.Commit != dm.Joined.Commit {
		t.Errorf("head is %s, want the joined v3", head.Name())
	}
}

// TestMergeDivergedClean: different changes to different lines are a
// remote-merge candidate without conflicts; the same pull again finds it
// pending; accepting it publishes v3.
func TestMergeDivergedClean(t *testing.T) {
	s, v1, lv, rv := diverged(t, steps("one, here", "two", "three"), steps("one", "two", "three, there"))
	dm := mergeDiverged(t, s, lv, rv)
	if dm.Candidate.IsZero() || dm.Conflicts != nil || dm.Pending || dm.Joined.Number != 0 || !dm.Superseded.IsZero() {
		t.Fatalf("MergeDiverged = %+v, want a new clean candidate", dm)
	}
	c := getCandidate(t, s, managed)
	if c.Head != dm.Candidate || c.Mode != store.MergeModeRemote || c.Remote != "origin" || c.RemoteVersion != "2" ||
		c.Published != lv.Commit || c.Upstream != rv.Commit || c.Base != v1.Commit {
		t.Errorf("candidate %+v, want a remote merge of local v2 and origin's v2 on base v1", c)
	}
	if again := mergeDiverged(t, s, lv, rv); !again.Pending || again.Candidate != dm.Candidate {
		t.Errorf("the same merge again = %+v, want pending on %s", again, dm.Candidate)
	}
	v, err := candidates.Accept(context.Background(), s, managed, "")
	if err != nil {
		t.Fatal(err)
	}
	files := view(t, s, func(r *store.Reader) ([]store.File, error) { return r.LoadFiles(v.Tree) })
	if got, want := string(store.FileMap(files)["SKILL.md"].Data), steps("one, here", "two", "three, there")["SKILL.md"]; v.Number != 3 || got != want {
		t.Errorf("accepted v%d with SKILL.md %q, want v3 with %q", v.Number, got, want)
	}
}

// TestMergeDivergedConflict: both sides changed the same line: the
// candidate lists SKILL.md in conflict and holds its markers, and a later
// merge with another remote version supersedes it.
func TestMergeDivergedConflict(t *testing.T) {
	s, _, lv, rv := diverged(t, steps("one, here", "two", "three"), steps("one, there", "two", "three"))
	dm := mergeDiverged(t, s, lv, rv)
	if dm.Candidate.IsZero() || !slices.Equal(dm.Conflicts, []string{"SKILL.md (content)"}) {
		t.Fatalf("MergeDiverged = %+v, want a candidate with SKILL.md in conflict", dm)
	}
	if c := getCandidate(t, s, managed); !slices.Equal(c.Markers, []string{"SKILL.md"}) {
		t.Errorf("candidate markers %q, want SKILL.md", c.Markers)
	}

	var rv3 store.Version
	update(t, s, func(tx *store.Tx) error {
		var err error
		tx.SetRef(store.SkillRef(managed), rv.Commit)
		if rv3, err = publish(tx, managed, steps("one, there", "two", "three, there")); err != nil {
			return err
		}
		tx.SetRef(store.TrackingRef("origin", store.SkillRef(managed)), rv3.Commit)
		tx.SetRef(store.SkillRef(managed), lv.Commit)
		return nil
	})
	next := mergeDiverged(t, s, lv, rv3)
	if next.Superseded != dm.Candidate || next.Candidate == dm.Candidate {
		t.Errorf("a merge with origin's v3 = %+v, want a new candidate superseding %s", next, dm.Candidate)
	}
	// The first candidate never left this store: replaced, not kept.
	if got := gitRefs(t, s, store.SupersededRefPrefix); got != "" {
		t.Errorf("superseded refs %q, want none for a candidate no remote had", got)
	}

	// Rejecting keeps the local files in a version joining both histories,
	// numbered past both, the higher-numbered remote side first.
	v, err := candidates.Reject(context.Background(), s, managed, "")
	if err != nil {
		t.Fatal(err)
	}
	if v.Number != 4 || v.Tree != lv.Tree || !slices.Equal(v.Parents, []store.Hash{rv3.Commit, lv.Commit}) {
		t.Errorf("reject = v%d tree %s parents %v, want v4 with the local tree %s on [%s %s]", v.Number, v.Tree, v.Parents, lv.Tree, rv3.Commit, lv.Commit)
	}
	if got := gitRef(t, s, store.SupersededRef(managed, next.Candidate)); got != next.Candidate.String() {
		t.Errorf("superseded ref at %s, want the rejected %s", got, next.Candidate)
	}
}

// TestConflictPathsWithSeparators: a conflicted file whose name holds
// " (" or ", " (the separators of the Conflicts trailer) is read back
// whole, so its markers are found and accept refuses it.
func TestConflictPathsWithSeparators(t *testing.T) {
	for _, name := range []string{"notes (draft).md", "a, b.md", "x (1), y (2).md"} {
		t.Run(name, func(t *testing.T) {
			s := storetest.NewStore(t)
			md := storetest.SkillMD("deploy", "step")
			var v1 store.Version
			update(t, s, func(tx *store.Tx) error {
				var err error
				if v1, err = publish(tx, managed, files{"SKILL.md": md, name: "draft\n"}); err != nil {
					return err
				}
				_, err = publish(tx, managed, files{"SKILL.md": md, name: "published\n"})
				return err
			})
			lm := mergeEdit(t, s, v1, files{"SKILL.md": md, name: "mine\n"})
			c := getCandidate(t, s, managed)
			want := []string{name}
			if !slices.Equal(lm.Conflicts, []string{name + " (content)"}) || !slices.Equal(c.Conflicts, lm.Conflicts) ||
				!slices.Equal(c.ConflictPaths(), want) || !slices.Equal(c.Markers, want) {
				t.Errorf("conflicts %q read back as %q, paths %q, markers %q; want %q", lm.Conflicts, c.Conflicts, c.ConflictPaths(), c.Markers, want)
			}
			var cm *candidates.ConflictMarkersError
			if _, err := candidates.Accept(context.Background(), s, managed, ""); !errors.As(err, &cm) {
				t.Errorf("Accept = %v, want ConflictMarkersError", err)
			}
		})
	}
}
