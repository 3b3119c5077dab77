package store

import (
	"encoding/hex"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/skillstore/skillstore/internal/folderscan"
	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// Hash is a git object id (SHA-1), the same type every package uses for
// blob and tree ids (skillfs.ID).
type Hash = skillfs.ID

// ZeroHash is the hash of no object.
var ZeroHash = skillfs.ZeroID

// ErrObjectNotFound is returned when an object is in neither the pending
// objects of a transaction nor the repository.
var ErrObjectNotFound = gitdb.ErrObjectNotFound

// ParseHash parses a full 40-digit hex object id.
func ParseHash(s string) (Hash, bool) {
	var h Hash
	if len(s) != 40 {
		return h, false
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, false
	}
	return h, true
}

// StatCache maps files' stat data to their blob ids so that a scan of a
// skill folder need not read files that did not change (see
// folderscan.StatCache). The store keeps one, saved under its write lock.
type StatCache = folderscan.StatCache

// LoadStatCache reads the cache at path; any error yields an empty cache.
func LoadStatCache(path string) *StatCache { return folderscan.LoadStatCache(path) }

// objectSource is where typed reads take objects from (a [Reader]).
type objectSource interface {
	object(h Hash) (gitdb.Object, error)
}

// typedFrom reads h from src and checks that it is of type want.
func typedFrom(src objectSource, h Hash, want gitdb.ObjectType) ([]byte, error) {
	o, err := src.object(h)
	if err != nil {
		return nil, err
	}
	if o.Type != want {
		return nil, fmt.Errorf("object %s is a %s, not a %s", h, o.Type, want)
	}
	return o.Data, nil
}

// commitFrom reads and decodes the commit h.
func commitFrom(src objectSource, h Hash) (*Commit, error) {
	data, err := typedFrom(src, h, gitdb.CommitObject)
	if err != nil {
		return nil, err
	}
	return gitdb.ParseCommit(h, data)
}

// treeFrom reads and decodes the tree h.
func treeFrom(src objectSource, h Hash) ([]skillfs.TreeEntry, error) {
	data, err := typedFrom(src, h, gitdb.TreeObject)
	if err != nil {
		return nil, err
	}
	entries, err := parseTree(data)
	if err != nil {
		return nil, fmt.Errorf("tree %s: %w", h, err)
	}
	return entries, nil
}

// toGit and fromGit convert object ids at the boundary with go-git, which
// the store uses only to speak git's network protocols and read fetched
// packs; everything else uses Hash.
func toGit(h Hash) plumbing.Hash { return plumbing.Hash(h) }

func fromGit(h plumbing.Hash) Hash { return Hash(h) }

// fromGitType converts an object type at the go-git boundary; both number
// types as git's pack format does.
func fromGitType(t plumbing.ObjectType) gitdb.ObjectType { return gitdb.ObjectType(t) }

func toGitType(t gitdb.ObjectType) plumbing.ObjectType { return plumbing.ObjectType(t) }
