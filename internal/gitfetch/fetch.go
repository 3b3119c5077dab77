// Package gitfetch fetches a plugin's git source with go-git: into memory,
// over the objects the store already has (for negotiation and delta bases),
// writing no ref and no pack, so that the caller stores what came with its
// own crash-safe transaction. It also reads a fetched commit as a file
// system for the manifest reader ([TreeFS]). It is the store's one use of
// go-git's object model.
package gitfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// Compiled on first use rather than at start-up, which every command pays.
var hexRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{7,40}$`) })

// Fetched is the outcome of fetching a git source.
type Fetched struct {
	Commit skillfs.ID // the commit whose tree is the source's files
	Ref    string     // the full remote ref it came from, or "" for a commit pin
	// objects reads the repository's objects plus the fetched ones, which
	// are not written anywhere yet (see fetchStorer).
	objects *fetchStorer
}

// FS is the file tree of the fetched commit.
func (f Fetched) FS() (*TreeFS, error) {
	c, err := object.GetCommit(f.objects, plumbing.Hash(f.Commit))
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", f.Commit.String()[:12], err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", f.Commit.String()[:12], err)
	}
	return NewTreeFS(f.objects, tree), nil
}

// NewObjects calls fn with the type and content of every object the fetch
// brought, so the caller can write them durably before any ref points at
// them.
func (f Fetched) NewObjects(fn func(t gitdb.ObjectType, data []byte)) error {
	if f.objects == nil {
		return nil
	}
	return f.objects.newObjects(func(t plumbing.ObjectType, data []byte) { fn(gitdb.ObjectType(t), data) })
}

// ErrRefNotFound means the source has no branch, tag or commit by that name.
var ErrRefNotFound = errors.New("no such branch, tag or commit")

// fetchStorer is what go-git fetches into. Reads see the store's objects
// (for negotiation and delta bases) plus what this fetch brought; writes go
// to memory only. go-git writes packs and refs in place, and a fetch killed
// half way would leave a commit without its trees, which the next fetch
// would take as already there. Instead, the caller hands the new objects
// to the store's transaction, which writes them as one fsynced pack before
// any ref, and records the fetched commit with its crash-safe ref update.
type fetchStorer struct {
	storage.Storer
	refs memory.ReferenceStorage
	objs *memory.ObjectStorage
}

func newFetchStorer(base storage.Storer) *fetchStorer {
	return &fetchStorer{Storer: base, refs: memory.ReferenceStorage{}, objs: &memory.NewStorage().ObjectStorage}
}

func (f *fetchStorer) SetReference(r *plumbing.Reference) error { return f.refs.SetReference(r) }
func (f *fetchStorer) CheckAndSetReference(n, o *plumbing.Reference) error {
	return f.refs.CheckAndSetReference(n, o)
}
func (f *fetchStorer) Reference(n plumbing.ReferenceName) (*plumbing.Reference, error) {
	return f.refs.Reference(n)
}
func (f *fetchStorer) IterReferences() (storer.ReferenceIter, error) {
	return f.refs.IterReferences()
}
func (f *fetchStorer) RemoveReference(n plumbing.ReferenceName) error {
	return f.refs.RemoveReference(n)
}
func (f *fetchStorer) CountLooseRefs() (int, error) { return f.refs.CountLooseRefs() }
func (f *fetchStorer) PackRefs() error              { return nil }

func (f *fetchStorer) NewEncodedObject() plumbing.EncodedObject { return f.objs.NewEncodedObject() }
func (f *fetchStorer) SetEncodedObject(o plumbing.EncodedObject) (plumbing.Hash, error) {
	return f.objs.SetEncodedObject(o)
}
func (f *fetchStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if o, err := f.objs.EncodedObject(t, h); err == nil {
		return o, nil
	}
	return f.Storer.EncodedObject(t, h)
}
func (f *fetchStorer) HasEncodedObject(h plumbing.Hash) error {
	if f.objs.HasEncodedObject(h) == nil {
		return nil
	}
	return f.Storer.HasEncodedObject(h)
}
func (f *fetchStorer) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if n, err := f.objs.EncodedObjectSize(h); err == nil {
		return n, nil
	}
	return f.Storer.EncodedObjectSize(h)
}

// newObjects calls fn with the type and content of every object the fetch
// brought, after checking every tree among them with git fsck --strict's
// rules (skillfs.CheckTree): a tree built with git plumbing (two entries
// of one name, ".git " and the like) never reaches the store.
func (f *fetchStorer) newObjects(fn func(t plumbing.ObjectType, data []byte)) error {
	type object struct {
		t    plumbing.ObjectType
		data []byte
	}
	objs := make([]object, 0, len(f.objs.Objects))
	for h, o := range f.objs.Objects {
		r, err := o.Reader()
		if err != nil {
			return err
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return err
		}
		if o.Type() == plumbing.TreeObject {
			if err := skillfs.CheckTree(data); err != nil {
				return fmt.Errorf("tree %s: %w", h.String()[:12], err)
			}
		}
		objs = append(objs, object{o.Type(), data})
	}
	for _, o := range objs {
		fn(o.t, o.data)
	}
	return nil
}

// Fetch fetches the git repository at url (ref: a branch, a tag, a full ref
// name or a commit; "" is the remote HEAD) over the repository base and returns the
// source's commit. have, when not zero, is the commit fetched last time: it
// is offered to the server so only new objects travel. No ref is written.
// A commit pin (a hex --ref) wins over branches and tags, and is taken
// without any network access when the store already has it.
func Fetch(ctx context.Context, base storage.Storer, url, ref string, have skillfs.ID) (Fetched, error) {
	fs := newFetchStorer(base)
	objects := fs
	const seen = plumbing.ReferenceName("refs/skillstore/fetch/have")
	if !have.IsZero() {
		fs.refs[seen] = plumbing.NewHashReference(seen, plumbing.Hash(have))
	}
	if hexRE().MatchString(ref) {
		if h, err := skillfs.ParseID(ref); err == nil && hasCommit(objects, h) {
			return Fetched{Commit: h, objects: fs}, nil
		}
	}
	remote := git.NewRemote(fs, &config.RemoteConfig{Name: "skillstore", URLs: []string{url}})
	refs, err := remote.ListContext(ctx, &git.ListOptions{PeelingOption: git.AppendPeeled})
	if err != nil {
		return Fetched{}, fmt.Errorf("fetch %s: %w", url, err)
	}
	name, pin, err := pickRemoteRef(refs, ref)
	if err != nil {
		return Fetched{}, fmt.Errorf("fetch %s: --ref %q: %w", url, ref, err)
	}
	if pin != "" {
		return fetchPin(ctx, objects, remote, url, pin)
	}
	const dst = plumbing.ReferenceName("refs/skillstore/fetch/head")
	spec := config.RefSpec("+" + name.String() + ":" + dst.String())
	err = remote.FetchContext(ctx, &git.FetchOptions{RefSpecs: []config.RefSpec{spec}, Tags: git.NoTags, Force: true})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return Fetched{}, fmt.Errorf("fetch %s %s: %w", url, name.Short(), err)
	}
	got, ok := fs.refs[dst]
	if !ok {
		// Already up to date: go-git skips the ref update when the server
		// sends nothing; the remote's advertised id is the answer.
		for _, r := range refs {
			if r.Name() == name {
				got = r
			}
		}
	}
	if got == nil {
		return Fetched{}, fmt.Errorf("fetch %s %s: the server sent no commit", url, name.Short())
	}
	h, err := peelToCommit(objects, skillfs.ID(got.Hash()))
	if err != nil {
		return Fetched{}, fmt.Errorf("fetch %s %s: %w", url, name.Short(), err)
	}
	return Fetched{Commit: h, Ref: name.String(), objects: fs}, nil
}

// pickRemoteRef finds what ref names among a remote's references: a branch,
// a tag, a full ref name, or (when hex and no ref has that name) a commit.
// An empty ref is the remote's HEAD.
func pickRemoteRef(refs []*plumbing.Reference, ref string) (plumbing.ReferenceName, string, error) {
	byName := map[plumbing.ReferenceName]*plumbing.Reference{}
	for _, r := range refs {
		byName[r.Name()] = r
	}
	if ref == "" || ref == "HEAD" {
		head, ok := byName[plumbing.HEAD]
		if ok && head.Type() == plumbing.SymbolicReference {
			return head.Target(), "", nil
		}
		if ok {
			for _, r := range refs {
				if r.Name().IsBranch() && r.Hash() == head.Hash() {
					return r.Name(), "", nil
				}
			}
		}
		for _, b := range []string{"main", "master"} {
			if _, ok := byName[plumbing.NewBranchReferenceName(b)]; ok {
				return plumbing.NewBranchReferenceName(b), "", nil
			}
		}
		return "", "", errors.New("the repository has no HEAD branch: name one with --ref")
	}
	for _, n := range []plumbing.ReferenceName{
		plumbing.ReferenceName(ref), plumbing.NewBranchReferenceName(ref), plumbing.NewTagReferenceName(ref),
	} {
		if _, ok := byName[n]; ok && (n.IsBranch() || n.IsTag()) {
			return n, "", nil
		}
	}
	if hexRE().MatchString(ref) {
		return "", ref, nil
	}
	return "", "", ErrRefNotFound
}

// fetchPin fetches every branch and tag of the remote and looks for the
// pinned commit among them (a server need not serve a bare commit id).
func fetchPin(ctx context.Context, objects *fetchStorer, remote *git.Remote, url, pin string) (Fetched, error) {
	specs := []config.RefSpec{
		"+refs/heads/*:refs/skillstore/fetch/heads/*",
		"+refs/tags/*:refs/skillstore/fetch/tags/*",
	}
	err := remote.FetchContext(ctx, &git.FetchOptions{RefSpecs: specs, Tags: git.NoTags, Force: true})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return Fetched{}, fmt.Errorf("fetch %s: %w", url, err)
	}
	var h skillfs.ID
	if full, err := skillfs.ParseID(pin); err == nil {
		h = full
	} else {
		for _, from := range []storer.EncodedObjectStorer{objects.objs, objects.Storer} {
			encoded, err := from.IterEncodedObjects(plumbing.CommitObject)
			if err != nil {
				return Fetched{}, fmt.Errorf("fetch %s: %w", url, err)
			}
			err = object.NewCommitIter(objects, encoded).ForEach(func(c *object.Commit) error {
				if strings.HasPrefix(c.Hash.String(), pin) {
					if !h.IsZero() && h != skillfs.ID(c.Hash) {
						return fmt.Errorf("commit %s is ambiguous: give more digits", pin)
					}
					h = skillfs.ID(c.Hash)
				}
				return nil
			})
			if err != nil {
				return Fetched{}, fmt.Errorf("fetch %s: %w", url, err)
			}
		}
	}
	if h.IsZero() || !hasCommit(objects, h) {
		return Fetched{}, fmt.Errorf("fetch %s: --ref %q: %w", url, pin, ErrRefNotFound)
	}
	return Fetched{Commit: h, objects: objects}, nil
}

func hasCommit(objects storer.EncodedObjectStorer, h skillfs.ID) bool {
	_, err := object.GetCommit(objects, plumbing.Hash(h))
	return err == nil
}

// peelToCommit peels tag objects until it reaches a commit.
func peelToCommit(objects storer.EncodedObjectStorer, h skillfs.ID) (skillfs.ID, error) {
	for range 10 {
		if hasCommit(objects, h) {
			return h, nil
		}
		tag, err := object.GetTag(objects, plumbing.Hash(h))
		if err != nil {
			return skillfs.ZeroID, fmt.Errorf("%s is not a commit", h)
		}
		h = skillfs.ID(tag.Target)
	}
	return skillfs.ZeroID, fmt.Errorf("%s: tag chain too long", h)
}
