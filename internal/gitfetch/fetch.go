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
	"slices"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/semver"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// Compiled on first use rather than at start-up, which every command pays.
var hexRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{7,40}$`) })

// Fetched is the outcome of fetching a git source.
type Fetched struct {
	Commit skillfs.ID // the commit whose tree is the source's files
	Ref    string     // the full remote ref it came from, or "" for a commit pin
	// Version is the version of the release tag fetched ([FetchRelease]),
	// "" for any other fetch.
	Version string
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

// FSAt is the file tree of the folder dir (slash-separated, "" for the top)
// inside the fetched commit: the part of a repository a plugin lives in.
func (f Fetched) FSAt(dir string) (*TreeFS, error) {
	top, err := f.FS()
	if err != nil || dir == "" || dir == "." {
		return top, err
	}
	e, err := top.entry("open", dir)
	if err != nil {
		return nil, fmt.Errorf("commit %s has no folder %s", f.Commit.String()[:12], dir)
	}
	if e.Mode != filemode.Dir {
		return nil, fmt.Errorf("commit %s: %s is not a folder", f.Commit.String()[:12], dir)
	}
	sub, err := object.GetTree(f.objects, e.Hash)
	if err != nil {
		return nil, fmt.Errorf("commit %s: folder %s: %w", f.Commit.String()[:12], dir, err)
	}
	return NewTreeFS(f.objects, sub), nil
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
	// received is the pack as it came, when it is whole (see spool.go).
	received *receivedPack
	// pack, when set, is received read in place: its objects are not in
	// objs but read from it when asked (keepWhole in spool.go), and
	// packTrees and packCommits list its trees and commits.
	pack                   *gitdb.Pack
	packTrees, packCommits []plumbing.Hash
}

// packed reads h from the received pack kept in place; ok is false when
// there is none or it does not hold h (of type t, unless AnyObject).
func (f *fetchStorer) packed(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, bool, error) {
	if f.pack == nil {
		return nil, false, nil
	}
	o, ok, err := f.pack.Read(gitdb.ID(h))
	if !ok || err != nil {
		return nil, ok, err
	}
	if t != plumbing.AnyObject && plumbing.ObjectType(o.Type) != t {
		return nil, false, nil
	}
	mo := &plumbing.MemoryObject{}
	mo.SetType(plumbing.ObjectType(o.Type))
	mo.Write(o.Data)
	return mo, true, nil
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
	if o, ok, err := f.packed(t, h); ok {
		return o, err
	}
	return f.Storer.EncodedObject(t, h)
}
func (f *fetchStorer) HasEncodedObject(h plumbing.Hash) error {
	if f.objs.HasEncodedObject(h) == nil {
		return nil
	}
	if f.pack != nil && f.pack.Has(gitdb.ID(h)) {
		return nil
	}
	return f.Storer.HasEncodedObject(h)
}
func (f *fetchStorer) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if n, err := f.objs.EncodedObjectSize(h); err == nil {
		return n, nil
	}
	if o, ok, err := f.packed(plumbing.AnyObject, h); ok {
		if err != nil {
			return 0, err
		}
		return o.Size(), nil
	}
	return f.Storer.EncodedObjectSize(h)
}

// checkTrees checks every tree the fetch brought with git fsck --strict's
// rules (skillfs.CheckTree): a tree built with git plumbing (two entries
// of one name, ".git " and the like) never reaches the store.
func (f *fetchStorer) checkTrees() error {
	for h, o := range f.objs.Objects {
		if o.Type() != plumbing.TreeObject {
			continue
		}
		if err := checkTree(h, o); err != nil {
			return err
		}
	}
	for _, h := range f.packTrees {
		o, ok, err := f.packed(plumbing.TreeObject, h)
		if err != nil || !ok {
			return fmt.Errorf("tree %s: %v", h.String()[:12], err)
		}
		if err := checkTree(h, o); err != nil {
			return err
		}
	}
	return nil
}

// checkTree checks tree o with git fsck --strict's rules.
func checkTree(h plumbing.Hash, o plumbing.EncodedObject) error {
	data, err := objectData(o)
	if err != nil {
		return err
	}
	if err := skillfs.CheckTree(data); err != nil {
		return fmt.Errorf("tree %s: %w", h.String()[:12], err)
	}
	return nil
}

// objectData is the content of o.
func objectData(o plumbing.EncodedObject) ([]byte, error) {
	r, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// newObjects calls fn with the type and content of every object the fetch
// brought, after checking every tree among them with git fsck --strict's
// rules (skillfs.CheckTree): a tree built with git plumbing (two entries
// of one name, ".git " and the like) never reaches the store.
func (f *fetchStorer) newObjects(fn func(t plumbing.ObjectType, data []byte)) error {
	if err := f.checkTrees(); err != nil {
		return err
	}
	for _, o := range f.objs.Objects {
		data, err := objectData(o)
		if err != nil {
			return err
		}
		fn(o.Type(), data)
	}
	if f.pack != nil {
		for _, id := range f.pack.IDs() {
			o, _, err := f.pack.Read(id)
			if err != nil {
				return fmt.Errorf("object %s: %w", id.String()[:12], err)
			}
			fn(plumbing.ObjectType(o.Type), o.Data)
		}
	}
	return nil
}

// Fetch fetches the git repository at url (ref: a branch, a tag, a full ref
// name or a commit; "" is the remote HEAD) over the repository base and returns the
// source's commit. have, when not zero, is the commit fetched last time: it
// is offered to the server so only new objects travel. No ref is written.
// A commit pin (a hex --ref) wins over branches and tags, and is taken
// without any network access when the store already has it.
//
// One connection serves the whole fetch: the server's list of refs, then
// (only when the wanted commit is not here yet) the pack. opts.Timeout
// bounds connecting, the listing, and every silence of the server after
// it (see [Options]); a server that never answers fails with a
// *TimeoutError. base is only read, so it may be read without the store's
// lock: objects never change once written.
func Fetch(ctx context.Context, base storage.Storer, url, ref string, have skillfs.ID, opts Options) (Fetched, error) {
	fs := newFetchStorer(base)
	if hexRE().MatchString(ref) {
		if h, err := skillfs.ParseID(ref); err == nil && hasCommit(fs, h) {
			return Fetched{Commit: h, objects: fs}, nil
		}
	}
	return fetch(ctx, fs, url, have, opts, func(refs []*plumbing.Reference) (plumbing.ReferenceName, string, error) {
		name, pin, err := pickRemoteRef(refs, ref)
		if err != nil && ref != "" {
			return "", "", fmt.Errorf("--ref %q: %w", ref, err)
		}
		return name, pin, err
	})
}

// FetchRelease is [Fetch] of the newest release tag in range r: the tag
// whose name is a version (v1.3.0 or 1.3.0) that r matches, highest
// first (see [semver.Range]). Fetched.Ref is the tag's full name and
// Fetched.Version its version; a repository with no such tag is an error
// wrapping ErrNoRelease that names the releases it has.
func FetchRelease(ctx context.Context, base storage.Storer, url string, r semver.Range, have skillfs.ID, opts Options) (Fetched, error) {
	f, err := fetch(ctx, newFetchStorer(base), url, have, opts, func(refs []*plumbing.Reference) (plumbing.ReferenceName, string, error) {
		name, err := pickRelease(refs, r)
		return name, "", err
	})
	if err == nil {
		f.Version = releaseOf(plumbing.ReferenceName(f.Ref))
	}
	return f, err
}

// fetch opens one session, lets pick name the ref (or the commit pin)
// among the advertised ones, and fetches it.
func fetch(ctx context.Context, fs *fetchStorer, url string, have skillfs.ID, opts Options, pick func([]*plumbing.Reference) (plumbing.ReferenceName, string, error)) (Fetched, error) {
	sess, err := Open(ctx, url, nil, opts)
	if err != nil {
		return Fetched{}, fmt.Errorf("fetch %s: %w", url, err)
	}
	defer sess.Close()
	adv := sess.Refs()
	refs, err := advertisedRefs(adv)
	if err != nil {
		return Fetched{}, fmt.Errorf("fetch %s: %w", url, err)
	}
	name, pin, err := pick(refs)
	if err != nil {
		return Fetched{}, fmt.Errorf("fetch %s: %w", url, err)
	}
	var wants []plumbing.Hash
	var tip plumbing.Hash
	if pin != "" {
		for _, r := range refs {
			if (r.Name().IsBranch() || r.Name().IsTag()) && r.Type() == plumbing.HashReference {
				wants = append(wants, r.Hash())
			}
		}
	} else {
		for _, r := range refs {
			if r.Name() == name {
				tip = r.Hash()
			}
		}
		wants = []plumbing.Hash{tip}
	}
	if err := fetchPack(sess, fs, wants, have); err != nil {
		return Fetched{}, fmt.Errorf("fetch %s %s: %w", url, name.Short(), err)
	}
	if pin != "" {
		return findPin(fs, url, pin)
	}
	h, err := peelToCommit(fs, skillfs.ID(tip))
	if err != nil {
		return Fetched{}, fmt.Errorf("fetch %s %s: %w", url, name.Short(), err)
	}
	return Fetched{Commit: h, Ref: name.String(), objects: fs}, nil
}

// FetchCommits asks an open session for the commits wants that base
// lacks, and returns what came, in memory, as a Fetched with no Commit of
// its own: its NewObjects gives the objects, which nothing has written
// yet. It is how a caller takes a few refs of a repository (their values
// picked from sess.Refs()) and never the rest: a project's lock fetches
// only the skills it names from a team remote.
func FetchCommits(sess *Session, base storage.Storer, wants []skillfs.ID) (Fetched, error) {
	fs := newFetchStorer(base)
	ws := make([]plumbing.Hash, len(wants))
	for i, h := range wants {
		ws[i] = plumbing.Hash(h)
	}
	if err := fetchPack(sess, fs, ws, skillfs.ZeroID); err != nil {
		return Fetched{}, err
	}
	return Fetched{objects: fs}, nil
}

// advertisedRefs lists the refs a server advertised, HEAD included
// (symbolic when the server says where it points), each annotated tag
// followed by its peeled commit as "name^{}".
func advertisedRefs(adv *packp.AdvRefs) ([]*plumbing.Reference, error) {
	// Not adv.AllReferences: it turns a detached HEAD into a symbolic one
	// to any ref at the same commit, which would hide the detachment.
	var refs []*plumbing.Reference
	for name, h := range adv.References {
		refs = append(refs, plumbing.NewHashReference(plumbing.ReferenceName(name), h))
	}
	head := false
	for _, symref := range adv.Capabilities.Get(capability.SymRef) {
		name, target, ok := strings.Cut(symref, ":")
		if !ok {
			return nil, fmt.Errorf("the server sent a malformed symref %q", symref)
		}
		refs = append(refs, plumbing.NewSymbolicReference(plumbing.ReferenceName(name), plumbing.ReferenceName(target)))
		head = head || name == string(plumbing.HEAD)
	}
	if !head && adv.Head != nil {
		refs = append(refs, plumbing.NewHashReference(plumbing.HEAD, *adv.Head))
	}
	for name, h := range adv.Peeled {
		refs = append(refs, plumbing.NewHashReference(plumbing.ReferenceName(name+"^{}"), h))
	}
	return refs, nil
}

// fetchPack asks the server for the wanted commits the store lacks,
// offering have, and reads the pack into fs. Nothing is asked (and the
// connection closes after the ref listing) when every want is here.
func fetchPack(sess *Session, fs *fetchStorer, wants []plumbing.Hash, have skillfs.ID) (err error) {
	var missing []plumbing.Hash
	for _, h := range wants {
		if fs.HasEncodedObject(h) != nil && !slices.Contains(missing, h) {
			missing = append(missing, h)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	req := packp.NewUploadPackRequestFromCapabilities(sess.Refs().Capabilities)
	if sess.Refs().Capabilities.Supports(capability.NoProgress) {
		req.Capabilities.Set(capability.NoProgress)
	}
	req.Wants = missing
	if !have.IsZero() && hasCommit(fs, have) {
		req.Haves = []plumbing.Hash{plumbing.Hash(have)}
	}
	pw, err := fs.PackfileWriter()
	if err != nil {
		return err
	}
	if err := sess.FetchPack(req, pw); err != nil {
		pw.Close()
		return err
	}
	return pw.Close()
}

// pickRemoteRef finds what ref names among a remote's references: a branch,
// a tag, a full ref name, or (when hex and no ref has that name) a commit.
// An empty ref is the remote's HEAD: the branch it points at, or, when the
// HEAD is detached (a local clone after a checkout of a commit or tag), the
// one branch at the same commit; a detached HEAD on no branch (or on
// several) is an error asking for --ref, never a silent guess.
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
			var at []string
			for _, r := range refs {
				if r.Name().IsBranch() && r.Hash() == head.Hash() {
					at = append(at, r.Name().Short())
				}
			}
			if len(at) == 1 {
				return plumbing.NewBranchReferenceName(at[0]), "", nil
			}
			slices.Sort(at)
			branches := "no branch"
			if len(at) > 1 {
				branches = "branches " + strings.Join(at, ", ")
			}
			return "", "", fmt.Errorf("the repository's %w at %s (%s): name the branch to follow with --ref, e.g. --ref main", ErrDetachedHead, head.Hash().String()[:12], branches)
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

// ErrDetachedHead is wrapped when the source's HEAD names no branch.
var ErrDetachedHead = errors.New("HEAD is detached")

// findPin looks for the pinned commit among the objects fetched (every
// branch and tag of the remote: a server need not serve a bare commit id)
// and the store's.
func findPin(objects *fetchStorer, url, pin string) (Fetched, error) {
	var h skillfs.ID
	if full, err := skillfs.ParseID(pin); err == nil {
		h = full
	} else {
		for _, c := range objects.packCommits {
			if strings.HasPrefix(c.String(), pin) {
				if !h.IsZero() && h != skillfs.ID(c) {
					return Fetched{}, fmt.Errorf("fetch %s: commit %s is ambiguous: give more digits", url, pin)
				}
				h = skillfs.ID(c)
			}
		}
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

// Stored reads commit, which base already holds (a source fetched by an
// earlier run), as a fetch's result: no network, and no new objects.
func Stored(base storage.Storer, commit skillfs.ID) Fetched {
	return Fetched{Commit: commit, objects: newFetchStorer(base)}
}

// At is the same fetch read at another commit: one the store already
// holds, such as the commit an earlier sync fetched (read through the
// same objects).
func (f Fetched) At(commit skillfs.ID) Fetched {
	f.Commit, f.Ref = commit, ""
	return f
}
