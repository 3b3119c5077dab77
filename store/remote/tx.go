package remote

import (
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/skillstore/skillstore/store"
)

// remoteTx is a store transaction doing a push or a pull: the steps of
// both are its methods.
type remoteTx struct{ *store.Tx }

// recordExt ends the file name of every state record ("<kind>/<key>.json",
// see store.Tx.PutRecord).
const recordExt = ".json"

// short abbreviates a commit id in messages, as the store does.
func short(h store.Hash) string {
	if h.IsZero() {
		return "nothing"
	}
	return h.String()[:12]
}

// toGit and fromGit convert object ids at the boundary with go-git, which
// speaks git's network protocols; everything else uses store.Hash.
func toGit(h store.Hash) plumbing.Hash { return plumbing.Hash(h) }

func fromGit(h plumbing.Hash) store.Hash { return store.Hash(h) }

func toGitAll(hs []store.Hash) []plumbing.Hash {
	out := make([]plumbing.Hash, len(hs))
	for i, h := range hs {
		out[i] = toGit(h)
	}
	return out
}
