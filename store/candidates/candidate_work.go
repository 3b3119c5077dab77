package candidates

import (
	"fmt"
	"strings"

	"github.com/skillstore/skillstore/merge"
	"github.com/skillstore/skillstore/store"
)

// Files are the trees a person needs to resolve a candidate by
// hand: the candidate's head (conflict markers included), and the three
// sides of its merge.
type Files struct {
	Candidate Candidate
	Head      []store.File // the files accept would publish
	Base      []store.File // the last accepted upstream; nil when there is none
	Ours      []store.File // the published version the candidate was made on
	Theirs    []store.File // the upstream snapshot (or the remote's version)
}

// LoadFiles reads the candidate of skill and the files of its head
// and of its merge's base, ours and theirs, with their content.
func LoadFiles(r *store.Reader, skill string) (Files, error) {
	c, err := Get(r, skill)
	if err != nil {
		return Files{}, err
	}
	out := Files{Candidate: c}
	for _, side := range []struct {
		commit store.Hash
		files  *[]store.File
	}{{c.Head, &out.Head}, {c.Base, &out.Base}, {c.Published, &out.Ours}, {c.Upstream, &out.Theirs}} {
		if side.commit.IsZero() {
			continue
		}
		commit, err := r.Commit(side.commit)
		if err != nil {
			return Files{}, fmt.Errorf("candidate %s: %w", skill, err)
		}
		if *side.files, err = r.LoadFiles(commit.Tree); err != nil {
			return Files{}, fmt.Errorf("candidate %s: %w", skill, err)
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
		out = append(out, conflictPath(conflict))
	}
	return out
}

// conflictPath is the path of a recorded conflict "PATH (KIND)": all
// before the last " (", since the path may hold " (" too.
func conflictPath(conflict string) string {
	if i := strings.LastIndex(conflict, " ("); i >= 0 && strings.HasSuffix(conflict, ")") {
		return conflict[:i]
	}
	return conflict
}

// splitConflicts reads back the Conflicts trailer [Write] joins with
// ", ". A path may hold ", " too, so an entry ends only where a known
// conflict kind closes it; a trailing piece without one is kept as is.
func splitConflicts(list string) []string {
	var out, pieces []string
	for _, piece := range strings.Split(list, ", ") {
		pieces = append(pieces, piece)
		if entry := strings.Join(pieces, ", "); endsWithKind(entry) {
			out, pieces = append(out, entry), nil
		}
	}
	if len(pieces) > 0 {
		out = append(out, strings.Join(pieces, ", "))
	}
	return out
}

// endsWithKind reports whether entry ends with " (KIND)" for a kind
// package merge records.
func endsWithKind(entry string) bool {
	for _, k := range merge.ConflictKinds() {
		if strings.HasSuffix(entry, " ("+string(k)+")") {
			return true
		}
	}
	return false
}
