package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
)

// SourceKind is the kind of a plugin source.
type SourceKind string

// Source kinds: a folder read as it is on disk, or a git repository fetched
// into the store.
const (
	SourceFolder SourceKind = "folder"
	SourceGit    SourceKind = "git"
)

// Source is where a plugin's files come from.
type Source struct {
	Kind     SourceKind `json:"kind"`               // SourceFolder or SourceGit
	URL      string     `json:"url"`                // absolute folder path or git URL (local paths made absolute)
	Ref      string     `json:"ref,omitempty"`      // branch, tag or commit as given; "" is the remote HEAD
	Selector string     `json:"selector,omitempty"` // plugin of a marketplace ("SOURCE#name")
}

// String renders the source the way a user types it.
func (s Source) String() string {
	if s.Selector != "" {
		return s.URL + "#" + s.Selector
	}
	return s.URL
}

// Compiled on first use rather than at start-up, which every command pays.
var (
	hexRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{7,40}$`) })
	schemeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9+.-]*://`) })
	scpRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[^/@:]+@[^/:]+:`) }) // git@host:owner/repo
)

// ParseSource reads a plugin source argument. A URL (scheme://, user@host:)
// is a git source. A local path is a git source when it is the top of a git
// repository (its committed files at ref are used) and a folder source
// otherwise (its files on disk are used). A "#name" suffix selects one plugin
// of a marketplace.
func ParseSource(arg, ref string) (Source, error) {
	loc, sel, _ := strings.Cut(arg, "#")
	if loc == "" {
		return Source{}, fmt.Errorf("empty plugin source %q", arg)
	}
	src := Source{URL: loc, Ref: ref, Selector: sel}
	if schemeRE().MatchString(loc) || scpRE().MatchString(loc) {
		src.Kind = SourceGit
		return src, nil
	}
	abs, err := filepath.Abs(loc)
	if err != nil {
		return Source{}, fmt.Errorf("plugin source %s: %w", loc, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return Source{}, fmt.Errorf("plugin source %s: %w", loc, errors.Unwrap(err))
	}
	if !info.IsDir() {
		return Source{}, fmt.Errorf("plugin source %s is not a folder or a git repository", loc)
	}
	src.URL = abs
	src.Kind = SourceFolder
	if isGitRepo(abs) {
		src.Kind = SourceGit
	} else if ref != "" {
		return Source{}, fmt.Errorf("plugin source %s is a folder, not a git repository: --ref needs a git repository", loc)
	}
	return src, nil
}

// isGitRepo reports whether dir is the top of a git work tree or a bare repository.
func isGitRepo(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return true
	}
	for _, f := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return false
		}
	}
	return true
}

// SourceRef is where the fetched commit of a plugin's git source is kept, so
// its objects stay reachable (git gc keeps them) and sync knows what it saw.
func SourceRef(plugin string) string { return SourceRefPrefix + plugin + "/head" }

// SourceRefPrefix starts every plugin's source ref.
const SourceRefPrefix = "refs/skillstore/sources/"

// Fetched is the outcome of fetching a git source.
type Fetched struct {
	Commit Hash   // the commit whose tree is the source's files
	Ref    string // the full remote ref it came from, or "" for a commit pin
	// objects reads the store's objects plus the fetched ones, which are
	// not written anywhere yet (see fetchStorer).
	objects *fetchStorer
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
// brought.
func (f *fetchStorer) newObjects(fn func(t plumbing.ObjectType, data []byte)) error {
	for _, o := range f.objs.Objects {
		r, err := o.Reader()
		if err != nil {
			return err
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return err
		}
		fn(o.Type(), data)
	}
	return nil
}

// fetchGit fetches src into the repository of objects and returns the
// source's commit. have, when not zero, is the commit fetched last time: it
// is offered to the server so only new objects travel. No ref is written.
// A commit pin (a hex --ref) wins over branches and tags, and is taken
// without any network access when the store already has it.
func fetchGit(ctx context.Context, base storage.Storer, src Source, have Hash) (Fetched, error) {
	fs := newFetchStorer(base)
	objects := fs
	const seen = plumbing.ReferenceName("refs/skillstore/fetch/have")
	if !have.IsZero() {
		fs.refs[seen] = plumbing.NewHashReference(seen, toGit(have))
	}
	if hexRE().MatchString(src.Ref) {
		if h, ok := ParseHash(src.Ref); ok && hasCommit(objects, h) {
			return Fetched{Commit: h, objects: fs}, nil
		}
	}
	remote := git.NewRemote(fs, &config.RemoteConfig{Name: "skillstore", URLs: []string{src.URL}})
	refs, err := remote.ListContext(ctx, &git.ListOptions{PeelingOption: git.AppendPeeled})
	if err != nil {
		return Fetched{}, fmt.Errorf("fetch %s: %w", src.URL, err)
	}
	name, pin, err := pickRemoteRef(refs, src.Ref)
	if err != nil {
		return Fetched{}, fmt.Errorf("fetch %s: --ref %q: %w", src.URL, src.Ref, err)
	}
	if pin != "" {
		return fetchPin(ctx, objects, remote, src, pin)
	}
	const dst = plumbing.ReferenceName("refs/skillstore/fetch/head")
	spec := config.RefSpec("+" + name.String() + ":" + dst.String())
	err = remote.FetchContext(ctx, &git.FetchOptions{RefSpecs: []config.RefSpec{spec}, Tags: git.NoTags, Force: true})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return Fetched{}, fmt.Errorf("fetch %s %s: %w", src.URL, name.Short(), err)
	}
	ref, ok := fs.refs[dst]
	if !ok {
		// Already up to date: go-git skips the ref update when the server
		// sends nothing; the remote's advertised id is the answer.
		for _, r := range refs {
			if r.Name() == name {
				ref = r
			}
		}
	}
	if ref == nil {
		return Fetched{}, fmt.Errorf("fetch %s %s: the server sent no commit", src.URL, name.Short())
	}
	h, err := peelToCommit(objects, fromGit(ref.Hash()))
	if err != nil {
		return Fetched{}, fmt.Errorf("fetch %s %s: %w", src.URL, name.Short(), err)
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
func fetchPin(ctx context.Context, objects *fetchStorer, remote *git.Remote, src Source, pin string) (Fetched, error) {
	specs := []config.RefSpec{
		"+refs/heads/*:refs/skillstore/fetch/heads/*",
		"+refs/tags/*:refs/skillstore/fetch/tags/*",
	}
	err := remote.FetchContext(ctx, &git.FetchOptions{RefSpecs: specs, Tags: git.NoTags, Force: true})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return Fetched{}, fmt.Errorf("fetch %s: %w", src.URL, err)
	}
	var h Hash
	if full, ok := ParseHash(pin); ok {
		h = full
	} else {
		for _, from := range []storer.EncodedObjectStorer{objects.objs, objects.Storer} {
			encoded, err := from.IterEncodedObjects(plumbing.CommitObject)
			if err != nil {
				return Fetched{}, fmt.Errorf("fetch %s: %w", src.URL, err)
			}
			err = object.NewCommitIter(objects, encoded).ForEach(func(c *object.Commit) error {
				if strings.HasPrefix(c.Hash.String(), pin) {
					if !h.IsZero() && h != fromGit(c.Hash) {
						return fmt.Errorf("commit %s is ambiguous: give more digits", pin)
					}
					h = fromGit(c.Hash)
				}
				return nil
			})
			if err != nil {
				return Fetched{}, fmt.Errorf("fetch %s: %w", src.URL, err)
			}
		}
	}
	if h.IsZero() || !hasCommit(objects, h) {
		return Fetched{}, fmt.Errorf("fetch %s: --ref %q: %w", src.URL, pin, ErrRefNotFound)
	}
	return Fetched{Commit: h, objects: objects}, nil
}

func hasCommit(objects storer.EncodedObjectStorer, h Hash) bool {
	_, err := object.GetCommit(objects, toGit(h))
	return err == nil
}

// peelToCommit peels tag objects until it reaches a commit.
func peelToCommit(objects storer.EncodedObjectStorer, h Hash) (Hash, error) {
	for range 10 {
		if hasCommit(objects, h) {
			return h, nil
		}
		tag, err := object.GetTag(objects, toGit(h))
		if err != nil {
			return ZeroHash, fmt.Errorf("%s is not a commit", h)
		}
		h = fromGit(tag.Target)
	}
	return ZeroHash, fmt.Errorf("%s: tag chain too long", h)
}
