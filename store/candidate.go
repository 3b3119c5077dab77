package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/folderscan"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store/safety"
	"github.com/skillstore/skillstore/store/treediff"
)

// Candidate is a pending update of a skill, waiting for review on
// its candidate ref ([CandidateRef]). Everything here is read from the branch:
// the merge commit sync made and any commits a person added on top.
type Candidate struct {
	Skill string    `json:"skill"`
	Head  Hash      `json:"head"`  // the branch head (a resolution, or the merge itself)
	Merge Hash      `json:"merge"` // the merge commit sync made
	Tree  Hash      `json:"tree"`  // the tree accept would publish
	Time  time.Time `json:"time"`
	// Published is the version the candidate was made against (the merge's
	// first parent); Upstream the upstream snapshot it takes in (second).
	Published        Hash      `json:"published"`
	PublishedVersion int       `json:"published_version"`
	Upstream         Hash      `json:"upstream"`
	Base             Hash      `json:"base,omitempty"`
	Mode             MergeMode `json:"mode"`
	Plugin           string    `json:"plugin"`
	PluginVersion    string    `json:"plugin_version,omitempty"`
	// Remote and RemoteVersion name the other side of a merge that pull
	// made of two diverged published histories (Mode [MergeModeRemote]).
	Remote        string `json:"remote,omitempty"`
	RemoteVersion string `json:"remote_version,omitempty"`
	// EditAuthor is who made the edit a local-edit candidate takes in (the
	// author of its Upstream commit).
	EditAuthor string `json:"edit_author,omitempty"`
	Risk       string `json:"risk,omitempty"`
	// Conflicts are the paths the merge could not resolve, as recorded.
	Conflicts []string `json:"conflicts,omitempty"`
	// Markers lists the conflicted files that still hold conflict markers.
	Markers []string `json:"markers,omitempty"`
	// Resolved reports commits on top of the merge (resolve, or plain git).
	Resolved bool `json:"resolved"`
	// Stale reports that the published head moved since the candidate was
	// made: accept is refused until sync makes a new one.
	Stale bool `json:"stale"`

	// MergeResolved lists the conflicts the skill-aware rules resolved in
	// the merge ("SKILL.md:12 sections"), from its Merge-Resolved trailers.
	MergeResolved []string `json:"merge_resolved,omitempty"`
}

// MarshalJSON writes commit and tree ids as hex strings.
func (c Candidate) MarshalJSON() ([]byte, error) {
	type plain Candidate // the same fields, without this method
	hex := func(h Hash) string {
		if h.IsZero() {
			return ""
		}
		return h.String()
	}
	return json.Marshal(struct {
		plain
		Head      string `json:"head"`
		Merge     string `json:"merge"`
		Tree      string `json:"tree"`
		Published string `json:"published"`
		Upstream  string `json:"upstream"`
		Base      string `json:"base,omitempty"`
	}{plain(c), hex(c.Head), hex(c.Merge), hex(c.Tree), hex(c.Published), hex(c.Upstream), hex(c.Base)})
}

// ErrNoCandidate is wrapped when a skill has no pending candidate.
var ErrNoCandidate = errors.New("no candidate")

// ErrHeadMoved is wrapped when accepting a candidate made against an
// older published version.
var ErrHeadMoved = errors.New("the published version moved since the candidate was made")

// ConflictMarkersError refuses to accept a candidate whose conflicted
// files still hold conflict markers.
type ConflictMarkersError struct {
	Skill string
	Files []string
}

func (e *ConflictMarkersError) Error() string {
	return fmt.Sprintf("candidate %s still has conflict markers in %s", e.Skill, strings.Join(e.Files, ", "))
}

// Candidates lists every pending candidate, sorted by skill.
func (r *Reader) Candidates() ([]Candidate, error) {
	var out []Candidate
	for _, name := range r.CandidateNames() {
		c, err := r.Candidate(name)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// CandidateNames lists the store names of the skills with a pending
// candidate (managed and plugin skills, plugins' parts included), sorted.
func (r *Reader) CandidateNames() []string {
	var out []string
	for _, prefix := range []string{ManagedCandidateRefPrefix, PluginCandidateRefPrefix} {
		for _, ref := range r.RefNames(prefix) {
			if name, ok := CandidateNameOfRef(ref); ok {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Candidate reads the pending candidate of skill.
func (r *Reader) Candidate(skill string) (Candidate, error) {
	head, ok := r.Ref(CandidateRef(skill))
	if !ok {
		return Candidate{}, fmt.Errorf("%s: %w", skill, ErrNoCandidate)
	}
	m, err := r.CandidateMerge(head)
	if err != nil {
		return Candidate{}, fmt.Errorf("candidate %s: %w", skill, err)
	}
	hc, err := r.Commit(head)
	if err != nil {
		return Candidate{}, fmt.Errorf("candidate %s: %w", skill, err)
	}
	c := Candidate{
		Skill: skill, Head: head, Merge: m.Hash, Tree: hc.Tree, Time: hc.Committer.When,
		Published: m.Parents[0], Upstream: m.Parents[1],
		Mode: MergeMode(m.Trailer(TrailerMergeMode)), Plugin: m.Trailer(TrailerPlugin),
		PluginVersion: m.Trailer(TrailerPluginVersion), Risk: m.Trailer(TrailerRisk),
		Remote: m.Trailer(TrailerRemote), RemoteVersion: m.Trailer(TrailerRemoteVersion),
		Resolved: head != m.Hash,
	}
	if rep, ok := r.s.localRisk(head); ok {
		c.Risk = rep.Risk.String() // a pulled candidate's trailer is not believed
	}
	if b, ok := ParseHash(m.Trailer(TrailerMergeBase)); ok {
		c.Base = b
	}
	if list := m.Trailer(TrailerConflicts); list != "" && list != "none" {
		c.Conflicts = strings.Split(list, ", ")
	}
	for _, t := range m.Trailers() {
		if t.Key == TrailerMergeResolved {
			c.MergeResolved = append(c.MergeResolved, t.Value)
		}
	}
	if v, err := r.VersionAt(skill, c.Published); err == nil {
		c.PublishedVersion = v.Number
	}
	if c.Mode == MergeModeLocalEdit {
		if edit, err := r.Commit(c.Upstream); err == nil {
			c.EditAuthor = edit.Author.Name
		}
	}
	if cur, ok := r.Ref(SkillRef(skill)); !ok || cur != c.Published {
		c.Stale = true
	}
	if c.Markers, err = r.conflictMarkers(hc.Tree, c.Conflicts); err != nil {
		return Candidate{}, fmt.Errorf("candidate %s: %w", skill, err)
	}
	return c, nil
}

// conflictMarkers returns the conflicted paths whose file in tree still
// holds a line starting with a conflict marker. Only the recorded
// conflicts are checked: an upstream file may legitimately show markers.
func (r *Reader) conflictMarkers(tree Hash, conflicts []string) ([]string, error) {
	if len(conflicts) == 0 {
		return nil, nil
	}
	files, err := r.Files(tree)
	if err != nil {
		return nil, err
	}
	byPath := FileMap(files)
	var out []string
	for _, c := range conflicts {
		p, _, _ := strings.Cut(c, " (")
		f, ok := byPath[p]
		if !ok {
			continue
		}
		data, err := r.Blob(f.ID)
		if err != nil {
			return nil, err
		}
		if hasConflictMarkers(data) {
			out = append(out, p)
		}
	}
	return out, nil
}

// hasConflictMarkers reports a line starting with "<<<<<<< " or ">>>>>>> ".
func hasConflictMarkers(data []byte) bool {
	for _, m := range [][]byte{[]byte("<<<<<<< "), []byte(">>>>>>> ")} {
		if bytes.HasPrefix(data, m) || bytes.Contains(data, append([]byte("\n"), m...)) {
			return true
		}
	}
	return false
}

// CandidateDiff is what accepting a candidate would change in the
// published version.
func (r *Reader) CandidateDiff(skill string) (Candidate, []treediff.FileChange, error) {
	c, err := r.Candidate(skill)
	if err != nil {
		return c, nil, err
	}
	head, err := r.Head(skill)
	if err != nil {
		return c, nil, err
	}
	oldFiles, err := r.LoadFiles(head.Tree)
	if err != nil {
		return c, nil, err
	}
	newFiles, err := r.LoadFiles(c.Tree)
	if err != nil {
		return c, nil, err
	}
	return c, treediff.Files(oldFiles, newFiles), nil
}

// AcceptCandidate publishes a candidate as the skill's next version, whose
// parents are the published head and the candidate head, so the upstream
// snapshot becomes an ancestor of the published ref (the new base). It is
// refused while conflict markers remain and when the published head moved
// since the candidate was made. A candidate that pull made from two diverged
// published histories is accepted by [Tx.AcceptRemoteMerge].
func (s *Store) AcceptCandidate(ctx context.Context, skill, reason string) (Version, error) {
	var v Version
	err := s.Update(ctx, func(tx *Tx) error {
		c, err := tx.Candidate(skill)
		if err != nil {
			return err
		}
		if c.Mode == MergeModeRemote {
			// A merge of two published histories made by pull: it is
			// numbered past both sides (see AcceptRemoteMerge).
			v, err = tx.AcceptRemoteMerge(skill, reason)
			return err
		}
		if c.Stale {
			cur, _ := tx.Head(skill)
			return fmt.Errorf("accept %s: %w (candidate made on v%d, published is now v%d)", skill, ErrHeadMoved, c.PublishedVersion, cur.Number)
		}
		if len(c.Markers) > 0 {
			return &ConflictMarkersError{Skill: skill, Files: c.Markers}
		}
		head, err := tx.Head(skill)
		if err != nil {
			return err
		}
		files, err := tx.LoadFiles(c.Tree)
		if err != nil {
			return err
		}
		checked, err := safety.Check(skill, files, tx.filesOrNil(head.Tree), skillfs.DefaultLimits)
		if err != nil {
			return err
		}
		md, ok := FileMap(files)[SkillFile]
		if IsPluginParts(skill) {
			checked = tx.withPluginFindings(checked, files, tx.filesOrNil(head.Tree))
		} else if !ok {
			return fmt.Errorf("accept %s: the candidate has no %s", skill, SkillFile)
		} else if v := discover.Check(SkillFile, ownName(skill), md.Data, discover.Lenient); !v.Accepted() {
			return fmt.Errorf("accept %s: %w", skill, &InvalidSkillError{Dir: "the candidate", Diagnostics: v.Diagnostics})
		}
		if checked.Risk > safety.DefaultAllowedRisk {
			return &safety.RiskRefusedError{Skill: skill, Risk: checked.Risk, Allowed: safety.DefaultAllowedRisk, Findings: checked.Findings}
		}
		if reason == "" {
			reason = "accepted candidate"
		}
		source, subject := "plugin:"+c.Plugin, fmt.Sprintf("%s v%d: accept %s update from plugin %s", skill, head.Number+1, c.Mode, c.Plugin)
		if c.Mode == MergeModeLocalEdit {
			source, subject = head.Source, fmt.Sprintf("%s v%d: accept the merge of a local edit", skill, head.Number+1)
		}
		v, err = tx.CommitVersion(skill, c.Tree, VersionInfo{
			Source: source, Plugin: c.Plugin, PluginVersion: c.PluginVersion,
			MergeMode: c.Mode, Reason: reason, Risk: checked.Risk, Findings: checked.Findings,
			ExtraParents: []Hash{c.Head},
			Subject:      subject,
			Trailers:     []Trailer{{TrailerMergeBase, hashOrNone(c.Base)}},
		})
		if err != nil {
			return err
		}
		tx.DeleteRef(CandidateRef(skill))
		return nil
	})
	return v, err
}

// RejectCandidate drops a candidate but still advances the accepted base,
// the way dpkg keeps a locally changed conffile: a new version with the
// published tree whose second parent is the upstream snapshot, so the same
// upstream is not proposed again. The candidate stays reachable under
// refs/skillstore/superseded/.
func (s *Store) RejectCandidate(ctx context.Context, skill, reason string) (Version, error) {
	var v Version
	err := s.Update(ctx, func(tx *Tx) error {
		c, err := tx.Candidate(skill)
		if err != nil {
			return err
		}
		if c.Mode == MergeModeRemote {
			v, err = tx.rejectRemoteMerge(skill, c, reason)
			return err
		}
		head, err := tx.Head(skill)
		if err != nil {
			return err
		}
		if reason == "" {
			reason = "rejected candidate"
		}
		tx.SetRef(SupersededRef(skill, c.Head), c.Head)
		source, subject := "plugin:"+c.Plugin, fmt.Sprintf("%s v%d: reject update from plugin %s, keep v%d", skill, head.Number+1, c.Plugin, head.Number)
		if c.Mode == MergeModeLocalEdit {
			source, subject = head.Source, fmt.Sprintf("%s v%d: reject the merge of a local edit, keep v%d", skill, head.Number+1, head.Number)
		}
		v, err = tx.CommitVersion(skill, head.Tree, VersionInfo{
			Source: source, Plugin: c.Plugin, PluginVersion: c.PluginVersion,
			MergeMode: MergeModeRejected, Reason: reason, Risk: head.Risk, Findings: head.Findings,
			ExtraParents: []Hash{c.Upstream},
			Subject:      subject,
		})
		if err != nil {
			return err
		}
		tx.DeleteRef(CandidateRef(skill))
		return nil
	})
	return v, err
}

// ResolveCandidate makes the skill folder dir the candidate's new head: a
// commit on top of the candidate branch, as if a person had committed the
// resolution with git. The safety check runs on it.
func (s *Store) ResolveCandidate(ctx context.Context, skill, dir, reason string) (Candidate, error) {
	var out Candidate
	err := s.Update(ctx, func(tx *Tx) error {
		c, err := tx.Candidate(skill)
		if err != nil {
			return err
		}
		files, err := folderscan.Scan(dir, skillfs.DefaultLimits, nil)
		if err != nil {
			return err
		}
		if len(files) == 0 || !IsPluginParts(skill) && !slices.ContainsFunc(files, func(f File) bool { return f.Path == SkillFile }) {
			return fmt.Errorf("resolve %s: %s holds no %s", skill, dir, SkillFile)
		}
		if _, err := safety.Check(skill, files, nil, skillfs.DefaultLimits); err != nil {
			return err
		}
		tree, err := tx.WriteTree(files)
		if err != nil {
			return fmt.Errorf("resolve %s: %w", skill, err)
		}
		if tree == c.Tree {
			return fmt.Errorf("resolve %s: %s is the candidate's tree already: %w", skill, dir, ErrNoChange)
		}
		if reason == "" {
			reason = "resolved from " + dir
		}
		sig := tx.signature()
		commit := &Commit{
			Tree: tree, Parents: []Hash{c.Head}, Author: sig, Committer: sig,
			Message: buildMessage("resolve candidate "+skill, "", []Trailer{
				{TrailerActor, sig.Name + " <" + sig.Email + ">"}, {TrailerReason, reason},
			}),
		}
		tx.SetRef(CandidateRef(skill), tx.WriteCommit(commit))
		out, err = tx.Candidate(skill)
		return err
	})
	return out, err
}
