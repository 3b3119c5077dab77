package store

import (
	"strings"
	"time"
)

// A superseded ref (refs/skillstore/superseded/.../COMMIT) is a
// tombstone: it tells a pull that a candidate another store still holds
// or pushes is done with here, and lets push replace that candidate on a
// remote. It tells anything only while some remote may hold the candidate;
// the candidate's own files are derived data (the merge of a published
// version and an upstream snapshot or a teammate's version, both kept in
// the history), unless a person committed on top of skillstore's merge
// commit. So a tombstone is needed while a remote's tracking ref points
// at its candidate, while the candidate is the skill's candidate here, or
// when it holds a person's commits; any other is dropped: a newer
// candidate replacing one that never left this store writes none
// (candidates.Replace), pull takes a remote's only when it decides about
// a candidate held here or there, and gc prunes the rest once older than
// its grace period (see GC).

// SupersededNeeded reports whether a tombstone for candidate h of skill
// name tells anything (see above).
func (r *Reader) SupersededNeeded(name string, h Hash) bool {
	return r.supersededNeeded(name, h, r.trackedCandidates())
}

func (r *Reader) supersededNeeded(name string, h Hash, tracked map[string]map[Hash]bool) bool {
	if cand, ok := r.Ref(CandidateRef(name)); ok && cand == h {
		return true
	}
	if tracked[CandidateRef(name)][h] {
		return true
	}
	c, err := r.Commit(h)
	if err != nil {
		return true // not ours to judge: verify reports it
	}
	return c.Trailer(TrailerCandidate) == "" || len(c.Parents) != 2
}

// trackedCandidates maps each candidate ref to the values remotes'
// tracking refs give it (what each remote held at the last pull or push).
func (r *Reader) trackedCandidates() map[string]map[Hash]bool {
	out := map[string]map[Hash]bool{}
	cands := strings.TrimPrefix(CandidateRefPrefix, "refs/")
	for _, name := range r.RefNames(RemoteRefPrefix) {
		rest := strings.TrimPrefix(name, RemoteRefPrefix)
		i := strings.Index(rest, "/"+cands)
		if i < 0 {
			continue
		}
		h, ok := r.Ref(name)
		if !ok {
			continue
		}
		ref := "refs/" + rest[i+1:]
		if out[ref] == nil {
			out[ref] = map[Hash]bool{}
		}
		out[ref][h] = true
	}
	return out
}

// pruneSuperseded deletes, within tx, the tombstones no longer needed
// whose candidate commit is older than grace, and returns how many.
func pruneSuperseded(tx *Tx, grace time.Duration, now time.Time) int {
	tracked := tx.trackedCandidates()
	n := 0
	for _, ref := range tx.RefNames(SupersededRefPrefix) {
		name, h, ok := SupersededNameOfRef(ref)
		if !ok || tx.supersededNeeded(name, h, tracked) {
			continue
		}
		c, err := tx.Commit(h)
		if err != nil || now.Sub(c.Committer.When) < grace {
			continue
		}
		tx.DeleteRef(ref)
		n++
	}
	return n
}
