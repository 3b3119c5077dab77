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

// CommitTree writes a commit of tree with the given parents, made by the
// transaction's actor at its time, whose message is subject, body and an
// Actor trailer followed by trailers; it moves no ref. Pull writes the
// merge of two states with it.
func (tx *Tx) CommitTree(tree Hash, parents []Hash, subject, body string, trailers ...Trailer) Hash {
	sig := tx.Signature()
	all := append([]Trailer{{TrailerActor, sig.Name + " <" + sig.Email + ">"}}, trailers...)
	return tx.WriteCommit(&Commit{
		Tree: tree, Parents: parents, Author: sig, Committer: sig,
		Message: BuildMessage(subject, body, all),
	})
}
