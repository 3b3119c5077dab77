package remote

import (
	"fmt"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// heldAt is the first version of a pulled history that waits for review.
type heldAt struct {
	Version int
	Level   safety.RiskLevel // safety.RiskNone: nothing is held
}

// reviewCut decides how far a skill's published ref may move from local
// (zero for a skill new here) towards remote, a descendant of it: pull
// never makes a version the safety check here (risks) rates high or above
// the published one. The ref moves to the newest version that is not;
// the versions after it, all rated high, wait for review in a candidate.
// This is sync's rule for an upstream update (decide: a fast-forward to
// a tree whose risk is high becomes a candidate) applied to what a
// remote brings: sync judges the tree it would publish, not the upstream
// states in between, and so does this. A new skill's v1 is taken
// whatever its risk, as sync takes a plugin's first version (its mirror
// step): there is no published version to hold it against, and versions
// above the allowed risk were refused before this. A version a remote's
// reviewer accepted is held here too: the review is this machine's.
func (tx remoteTx) reviewCut(name string, local, remote store.Hash, risks map[store.Hash]safety.Report) (store.Hash, heldAt, error) {
	var chain []store.Version // newest first
	for h := remote; h != local && !h.IsZero(); {
		if len(chain) >= maxHistoryWalk {
			return store.ZeroHash, heldAt{}, fmt.Errorf("%s: history longer than %d versions", name, maxHistoryWalk)
		}
		v, err := tx.VersionAt(name, h)
		if err != nil {
			return store.ZeroHash, heldAt{}, err
		}
		chain = append(chain, v)
		h = store.ZeroHash
		if len(v.Parents) > 0 {
			h = v.Parents[0]
		}
	}
	var held heldAt
	for i, v := range chain {
		risk := risks[v.Commit].Risk
		firstVersion := local.IsZero() && i == len(chain)-1
		if risk < safety.RiskHigh || firstVersion {
			return v.Commit, held, nil
		}
		held = heldAt{Version: v.Number, Level: max(held.Level, risk)}
	}
	return local, held, nil
}

// maxHistoryWalk bounds the first-parent walk of reviewCut; the history
// check before it has read every one of these commits already.
const maxHistoryWalk = 1 << 20
