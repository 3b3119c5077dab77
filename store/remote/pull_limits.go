package remote

import (
	"fmt"

	"github.com/skillstore/skillstore/store"
)

// DefaultMaxNewSkills caps the skills one pull (or clone) creates unless
// PullOptions.MaxNewSkills says otherwise: twice the largest stores seen
// in use (about 1,000 skills), far below what would make every command
// that lists skills crawl. A remote that would create more is refused
// before its objects are fetched.
const DefaultMaxNewSkills = 2000

func (o PullOptions) maxNewSkills() int {
	if o.MaxNewSkills == 0 {
		return DefaultMaxNewSkills
	}
	return o.MaxNewSkills
}

// TooManySkillsError refuses a pull that would create more skills than
// PullOptions.MaxNewSkills allows; nothing was fetched or written.
type TooManySkillsError struct {
	Remote string
	New    int
	Max    int
}

func (e *TooManySkillsError) Error() string {
	return fmt.Sprintf("remote %s would create %d skills in this store, over the cap of %d per pull; nothing was fetched", e.Remote, e.New, e.Max)
}

// checkNewSkills counts the skills the remote's refs would create here
// (a published ref, a candidate or an upstream snapshot of a skill this
// store has no ref of) and refuses more than max (max < 0: no cap).
func checkNewSkills(rr *remoteRefs, known map[string]bool, max int) error {
	if max < 0 {
		return nil
	}
	created := map[string]bool{}
	for ref := range rr.refs {
		if skill, ok := skillOfAnyRef(ref); ok && !known[skill] {
			created[skill] = true
		}
	}
	if len(created) > max {
		return &TooManySkillsError{Remote: rr.remote, New: len(created), Max: max}
	}
	return nil
}

// skillOfAnyRef is the store name of the skill a published, candidate
// or upstream snapshot ref is about.
func skillOfAnyRef(ref string) (string, bool) {
	if name, ok := store.SkillNameOfRef(ref); ok {
		return name, true
	}
	if name, ok := store.CandidateNameOfRef(ref); ok {
		return name, true
	}
	return store.UpstreamNameOfRef(ref)
}
