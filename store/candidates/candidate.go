package candidates

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
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
	"github.com/skillstore/skillstore/store/treediff"
)

// Candidate is a pending update of a skill, waiting for review on
// its candidate ref ([store.CandidateRef]). Everything here is read from the branch:
// the merge commit sync made and any commits a person added on top.
type Candidate struct {
	Skill string     `json:"skill"`
	Head  store.Hash `json:"head"`  // the branch head (a resolution, or the merge itself)
	Merge store.Hash `json:"merge"` // the merge commit sync made
	Tree  store.Hash `json:"tree"`  // the tree accept would publish
	Time  time.Time  `json:"time"`
	// Published is the version the candidate was made against (the merge's
	// first parent); Upstream the upstream snapshot it takes in (second).
	Published        store.Hash      `json:"published"`
	PublishedVersion int             `json:"published_version"`
	Upstream         store.Hash      `json:"upstream"`
	Base             store.Hash      `json:"base,omitempty"`
	Mode             store.MergeMode `json:"mode"`
	Plugin           string          `json:"plugin"`
	PluginVersion    string          `json:"plugin_version,omitempty"`
	// Remote and RemoteVersion name the other side of a merge that pull
	// made of two diverged published histories (Mode [store.MergeModeRemote]).
	Remote        string `json:"remote,omitempty"`
	RemoteVersion string `json:"remote_version,omitempty"`
	// EditAuthor is who made the edit a local-edit candidate takes in (the
	// author of its Upstream commit).
	EditAuthor string `json:"edit_author,omitempty"`
	Risk       string `json:"risk,omitempty"`
	// Findings are the safety check's findings on the tree (see
	// [Findings]); filled by candidates show, not by List.
	Findings []safety.Finding `json:"findings,omitempty"`
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
	hex := func(h store.Hash) string {
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

// List lists every pending candidate, sorted by skill.
func List(r *store.Reader) ([]Candidate, error) {
	var out []Candidate
	for _, name := range Names(r) {
		c, err := Get(r, name)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Names lists the store names of the skills with a pending
// candidate (managed and plugin skills, plugins' parts included), sorted.
func Names(r *store.Reader) []string {
	var out []string
	for _, prefix := range []string{store.ManagedCandidateRefPrefix, store.PluginCandidateRefPrefix} {
		for _, ref := range r.RefNames(prefix) {
			if name, ok := store.CandidateNameOfRef(ref); ok {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Get reads the pending candidate of skill.
func Get(r *store.Reader, skill string) (Candidate, error) {
	head, ok := r.Ref(store.CandidateRef(skill))
	if !ok {
		return Candidate{}, fmt.Errorf("%s: %w", skill, ErrNoCandidate)
	}
	m, err := MergeCommit(r, head)
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
		Mode: store.MergeMode(m.Trailer(store.TrailerMergeMode)), Plugin: m.Trailer(store.TrailerPlugin),
		PluginVersion: m.Trailer(store.TrailerPluginVersion), Risk: m.Trailer(store.TrailerRisk),
		Remote: m.Trailer(store.TrailerRemote), RemoteVersion: m.Trailer(store.TrailerRemoteVersion),
		Resolved: head != m.Hash,
	}
	if rep, ok := r.LocalRisk(head); ok {
		c.Risk = rep.Risk.String() // a pulled candidate's trailer is not believed
	}
	if b, ok := store.ParseHash(m.Trailer(store.TrailerMergeBase)); ok {
		c.Base = b
	}
	if list := m.Trailer(store.TrailerConflicts); list != "" && list != "none" {
		c.Conflicts = splitConflicts(list)
	}
	for _, t := range m.Trailers() {
		if t.Key == store.TrailerMergeResolved {
			c.MergeResolved = append(c.MergeResolved, t.Value)
		}
	}
	if v, err := r.VersionAt(skill, c.Published); err == nil {
		c.PublishedVersion = v.Number
	}
	if c.Mode == store.MergeModeLocalEdit {
		if edit, err := r.Commit(c.Upstream); err == nil {
			c.EditAuthor = edit.Author.Name
		}
	}
	if cur, ok := r.Ref(store.SkillRef(skill)); !ok || cur != c.Published {
		c.Stale = true
	}
	if c.Markers, err = conflictMarkers(r, hc.Tree, c.Conflicts); err != nil {
		return Candidate{}, fmt.Errorf("candidate %s: %w", skill, err)
	}
	return c, nil
}

// conflictMarkers returns the conflicted paths whose file in tree still
// holds a line starting with a conflict marker. Only the recorded
// conflicts are checked: an upstream file may legitimately show markers.
func conflictMarkers(r *store.Reader, tree store.Hash, conflicts []string) ([]string, error) {
	files, err := markedFiles(r, tree, conflicts)
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out, err
}

// MarkedFile is a conflicted file of a candidate that still holds
// conflict markers, and its text.
type MarkedFile struct {
	Path string
	Data []byte
}

// MarkedFiles reads the files of candidate c that still hold conflict
// markers (c.Markers), in the order of its recorded conflicts.
func MarkedFiles(r *store.Reader, c Candidate) ([]MarkedFile, error) {
	files, err := markedFiles(r, c.Tree, c.Conflicts)
	if err != nil {
		return nil, fmt.Errorf("candidate %s: %w", c.Skill, err)
	}
	return files, nil
}

func markedFiles(r *store.Reader, tree store.Hash, conflicts []string) ([]MarkedFile, error) {
	if len(conflicts) == 0 {
		return nil, nil
	}
	files, err := r.Files(tree)
	if err != nil {
		return nil, err
	}
	byPath := store.FileMap(files)
	var out []MarkedFile
	for _, c := range conflicts {
		p := conflictPath(c)
		f, ok := byPath[p]
		if !ok {
			continue
		}
		data, err := r.Blob(f.ID)
		if err != nil {
			return nil, err
		}
		if hasConflictMarkers(data) {
			out = append(out, MarkedFile{Path: p, Data: data})
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

// Diff is what accepting a candidate would change in the
// published version.
func Diff(r *store.Reader, skill string) (Candidate, []treediff.FileChange, error) {
	c, err := Get(r, skill)
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

// Accept publishes a candidate as the skill's next version, whose
// parents are the published head and the candidate head, so the upstream
// snapshot becomes an ancestor of the published ref (the new base). It is
// refused while conflict markers remain and when the published head moved
// since the candidate was made. A candidate that pull made from two diverged
// published histories is accepted by [AcceptRemoteMerge].
func Accept(ctx context.Context, s *store.Store, skill, reason string) (store.Version, error) {
	var v store.Version
	err := s.Update(ctx, func(tx *store.Tx) error {
		c, err := Get(tx.Reader, skill)
		if err != nil {
			return err
		}
		if c.Mode == store.MergeModeRemote {
			// A merge of two published histories made by pull: it is
			// numbered past both sides (see AcceptRemoteMerge).
			v, err = acceptRemoteMerge(tx, skill, reason)
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
		checked, err := safety.CheckUpdate(skill, files, tx.FilesOrNil(head.Tree), skillfs.DefaultLimits)
		if err != nil {
			return err
		}
		md, ok := store.FileMap(files)[store.SkillFile]
		if store.IsPluginParts(skill) {
			checked = tx.WithPluginFindings(checked, files, tx.FilesOrNil(head.Tree))
		} else if !ok {
			return fmt.Errorf("accept %s: the candidate has no %s", skill, store.SkillFile)
		} else if v := discover.Check(store.SkillFile, store.OwnName(skill), md.Data, discover.Lenient); !v.Accepted() {
			return fmt.Errorf("accept %s: %w", skill, &store.InvalidSkillError{Dir: "the candidate", Diagnostics: v.Diagnostics})
		}
		checked = tx.ScanExternal(tx.Context(), skill, checked, files, tx.FilesOrNil(head.Tree))
		if checked.Risk > safety.DefaultAllowedRisk {
			return &safety.RiskRefusedError{Skill: skill, Risk: checked.Risk, Allowed: safety.DefaultAllowedRisk, Findings: checked.Findings}
		}
		if reason == "" {
			reason = "accepted candidate"
		}
		source, subject := "plugin:"+c.Plugin, fmt.Sprintf("%s v%d: accept %s update from plugin %s", skill, head.Number+1, c.Mode, c.Plugin)
		if c.Mode == store.MergeModeLocalEdit {
			source, subject = head.Source, fmt.Sprintf("%s v%d: accept the merge of a local edit", skill, head.Number+1)
		}
		v, err = tx.CommitVersion(skill, c.Tree, store.VersionInfo{
			Source: source, Plugin: c.Plugin, PluginVersion: c.PluginVersion,
			MergeMode: c.Mode, Reason: reason, Risk: checked.Risk, Findings: checked.Findings,
			ExtraParents: []store.Hash{c.Head},
			Subject:      subject,
			Trailers:     []store.Trailer{store.MergeBaseTrailer(c.Base)},
		})
		if err != nil {
			return err
		}
		tx.DeleteRef(store.CandidateRef(skill))
		return nil
	})
	return v, err
}

// Reject drops a candidate but still advances the accepted base,
// the way dpkg keeps a locally changed conffile: a new version with the
// published tree whose second parent is the upstream snapshot, so the same
// upstream is not proposed again. The candidate stays reachable under
// refs/skillstore/superseded/.
func Reject(ctx context.Context, s *store.Store, skill, reason string) (store.Version, error) {
	var v store.Version
	err := s.Update(ctx, func(tx *store.Tx) error {
		c, err := Get(tx.Reader, skill)
		if err != nil {
			return err
		}
		if c.Mode == store.MergeModeRemote {
			v, err = rejectRemoteMerge(tx, skill, c, reason)
			return err
		}
		head, err := tx.Head(skill)
		if err != nil {
			return err
		}
		if reason == "" {
			reason = "rejected candidate"
		}
		source, subject := "plugin:"+c.Plugin, fmt.Sprintf("%s v%d: reject update from plugin %s, keep v%d", skill, head.Number+1, c.Plugin, head.Number)
		if c.Mode == store.MergeModeLocalEdit {
			source, subject = head.Source, fmt.Sprintf("%s v%d: reject the merge of a local edit, keep v%d", skill, head.Number+1, head.Number)
		}
		v, err = tx.CommitVersion(skill, head.Tree, store.VersionInfo{
			Source: source, Plugin: c.Plugin, PluginVersion: c.PluginVersion,
			MergeMode: store.MergeModeRejected, Reason: reason, Risk: head.Risk, Findings: head.Findings,
			ExtraParents: []store.Hash{c.Upstream},
			Subject:      subject,
		})
		if err != nil {
			return err
		}
		Supersede(tx, skill)
		return nil
	})
	return v, err
}

// Resolve makes the skill folder dir the candidate's new head: a
// commit on top of the candidate branch, as if a person had committed the
// resolution with git. The safety check runs on it.
func Resolve(ctx context.Context, s *store.Store, skill, dir, reason string) (Candidate, error) {
	var out Candidate
	err := s.Update(ctx, func(tx *store.Tx) error {
		c, err := Get(tx.Reader, skill)
		if err != nil {
			return err
		}
		files, err := folderscan.Scan(dir, skillfs.DefaultLimits, nil)
		if err != nil {
			return err
		}
		if len(files) == 0 || !store.IsPluginParts(skill) && !slices.ContainsFunc(files, func(f store.File) bool { return f.Path == store.SkillFile }) {
			return fmt.Errorf("resolve %s: %s holds no %s", skill, dir, store.SkillFile)
		}
		if _, err := safety.Check(skill, files, nil, skillfs.DefaultLimits); err != nil {
			return err
		}
		tree, err := tx.WriteTree(files)
		if err != nil {
			return fmt.Errorf("resolve %s: %w", skill, err)
		}
		if tree == c.Tree {
			return fmt.Errorf("resolve %s: %s is the candidate's tree already: %w", skill, dir, store.ErrNoChange)
		}
		if reason == "" {
			reason = "resolved from " + dir
		}
		sig := tx.Signature()
		commit := &store.Commit{
			Tree: tree, Parents: []store.Hash{c.Head}, Author: sig, Committer: sig,
			Message: store.BuildMessage("resolve candidate "+skill, "", []store.Trailer{
				{Key: store.TrailerActor, Value: sig.Name + " <" + sig.Email + ">"}, {Key: store.TrailerReason, Value: reason},
			}),
		}
		tx.SetRef(store.CandidateRef(skill), tx.WriteCommit(commit))
		out, err = Get(tx.Reader, skill)
		return err
	})
	return out, err
}

// ErrNoMergeCommit means a candidate branch has no skillstore merge commit.
var ErrNoMergeCommit = errors.New("no candidate merge commit on the branch")

// MergeCommit finds the merge commit skillstore made for a candidate:
// the branch head itself, or an ancestor along first parents when a person
// committed a resolution on top of it with plain git. It fails for a
// branch that holds no skillstore candidate (pull ignores those).
func MergeCommit(r *store.Reader, h store.Hash) (*store.Commit, error) {
	for range 1000 {
		c, err := r.Commit(h)
		if err != nil {
			return nil, err
		}
		if c.Trailer(store.TrailerCandidate) != "" && len(c.Parents) == 2 {
			return c, nil
		}
		if len(c.Parents) == 0 {
			break
		}
		h = c.Parents[0]
	}
	return nil, ErrNoMergeCommit
}

// Findings runs the safety check on what accepting c would publish, as
// accept runs it: against the version it was made on, so that only what
// the update adds raises its risk (findings already there are marked
// known).
func Findings(r *store.Reader, c Candidate) (safety.Report, error) {
	files, err := r.LoadFiles(c.Tree)
	if err != nil {
		return safety.Report{}, err
	}
	var previous []store.File
	if !c.Published.IsZero() {
		if pc, err := r.Commit(c.Published); err == nil {
			previous = r.FilesOrNil(pc.Tree)
		}
	}
	rep, err := safety.CheckUpdate(c.Skill, files, previous, skillfs.DefaultLimits)
	if err != nil {
		return safety.Report{}, err
	}
	if store.IsPluginParts(c.Skill) {
		rep = r.WithPluginFindings(rep, files, previous)
	}
	return r.ScanExternal(r.Context(), c.Skill, rep, files, previous), nil
}
