package store

import (
	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// encodeTree encodes tree entries in git's order (see skillfs.EncodeTree).
func encodeTree(entries []skillfs.TreeEntry) []byte { return skillfs.EncodeTree(entries) }

// parseTree decodes a tree object (see skillfs.ParseTree).
func parseTree(data []byte) ([]skillfs.TreeEntry, error) { return skillfs.ParseTree(data) }

// Signature is a commit's author or committer.
type Signature = gitdb.Signature

// Commit is a decoded commit object: a version, a candidate, a snapshot or
// a state change (see [Reader.Commit]).
type Commit = gitdb.Commit

// Trailer is one "Key: value" line at the end of a commit message; the
// store records versions, sources and reasons in trailers. It is its own
// type, not an alias of gitdb.Trailer (which [Commit.Trailers] returns and
// converts to it), so that the store's many {Key, Value} literals stay
// short: go vet wants keyed fields in literals of another package's types.
type Trailer struct {
	Key   string
	Value string
}

// buildMessage assembles a commit message from a subject, an optional body
// and trailers (see gitdb.BuildMessage).
func buildMessage(subject, body string, trailers []Trailer) string {
	gt := make([]gitdb.Trailer, len(trailers))
	for i, t := range trailers {
		gt[i] = gitdb.Trailer(t)
	}
	return gitdb.BuildMessage(subject, body, gt)
}

// CommitTree writes a commit of tree with the given parents, made by the
// transaction's actor at its time, whose message is subject, body and an
// Actor trailer followed by trailers; it moves no ref. Pull writes the
// merge of two states with it.
func (tx *Tx) CommitTree(tree Hash, parents []Hash, subject, body string, trailers ...Trailer) Hash {
	sig := tx.signature()
	all := append([]Trailer{{TrailerActor, sig.Name + " <" + sig.Email + ">"}}, trailers...)
	return tx.WriteCommit(&Commit{
		Tree: tree, Parents: parents, Author: sig, Committer: sig,
		Message: buildMessage(subject, body, all),
	})
}
