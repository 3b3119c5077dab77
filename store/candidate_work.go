package store

import (
	"fmt"
	"strings"
)

// CandidateFiles are the trees a person needs to resolve a candidate by
// hand: the candidate's head (conflict markers included), and the three
// sides of its merge.
type CandidateFiles struct {
	Candidate Candidate
	Head      []File // the files accept would publish
	Base      []File // the last accepted upstream; nil when there is none
	Ours      []File // the published version the candidate was made on
	Theirs    []File // the upstream snapshot (or the remote's version)
}

// CandidateFiles reads the candidate of skill and the files of its head
// and of its merge's base, ours and theirs, with their content.
func LoadCandidateFiles(r *Reader, skill string) (CandidateFiles, error) {
	c, err := GetCandidate(r, skill)
	if err != nil {
		return CandidateFiles{}, err
	}
	out := CandidateFiles{Candidate: c}
	for _, side := range []struct {
		commit Hash
		files  *[]File
	}{{c.Head, &out.Head}, {c.Base, &out.Base}, {c.Published, &out.Ours}, {c.Upstream, &out.Theirs}} {
		if side.commit.IsZero() {
			continue
		}
		commit, err := r.Commit(side.commit)
		if err != nil {
			return CandidateFiles{}, fmt.Errorf("candidate %s: %w", skill, err)
		}
		if *side.files, err = r.LoadFiles(commit.Tree); err != nil {
			return CandidateFiles{}, fmt.Errorf("candidate %s: %w", skill, err)
		}
	}
	return out, nil
}

// HasConflictMarkers reports whether data holds a line starting with a
// conflict marker ("<<<<<<< " or ">>>>>>> "), the test accept applies to a
// candidate's conflicted files.
func HasConflictMarkers(data []byte) bool { return hasConflictMarkers(data) }

// ConflictPaths are the paths of the candidate's recorded conflicts,
// without the kind that Conflicts notes after each ("SKILL.md (content)").
func (c Candidate) ConflictPaths() []string {
	out := make([]string, 0, len(c.Conflicts))
	for _, conflict := range c.Conflicts {
		p, _, _ := strings.Cut(conflict, " (")
		out = append(out, p)
	}
	return out
}
