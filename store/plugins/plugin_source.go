package plugins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/internal/folderscan"
	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Upstream is what a plugin source holds right now.
type Upstream struct {
	Fetched gitfetch.Fetched // git sources only
	Layout  pluginfmt.PluginLayout
	Skills  map[string]*UpstreamSkill
	// Roots are the folders of the other plugins the source's
	// marketplace lists (see pluginfmt.PluginRoots), which the parts of a
	// plugin holding them leave out; nil when not read yet (ReadParts
	// reads them when the source has a marketplace).
	Roots []string

	// fsys is the git tree the layout was read from (git sources), kept
	// for reading the plugin's parts without decoding the tree again.
	fsys *gitfetch.TreeFS
	// parts is what collectParts found, read once (see ReadParts).
	parts *partsFound
}

// UpstreamSkill is one skill folder of an upstream.
type UpstreamSkill struct {
	Name string
	Path string
	Tree store.Hash
	// dir is the skill's folder on disk (folder sources only).
	Dir string
	// files is the skill's content, loaded when needed: a folder source's
	// scan may leave Data empty where the stat cache vouched for a file.
	Files []store.File
	// parts marks a plugin's parts (see plugin_parts.go), not a skill.
	Parts bool
	// Refused is set when the skill's tree is past a bound of a tree's
	// shape (a *skillfs.BoundError: skillfs.MaxDepth, MaxPathBytes): the
	// walk that found it stopped there, Files is empty, and the intake
	// refuses the skill alone, in one short line.
	Refused error
	// Cut is what the cap left out of a plugin's parts (nil: nothing).
	Cut *CapCut
}

// ReadSource opens a source and reads the layout of all its plugins, for
// plugin add. For git sources it fetches, and the objects land in the store.
func ReadSource(ctx context.Context, tx *store.Tx, pre *Prefetched, src Source) (*pluginfmt.Layout, gitfetch.Fetched, pluginfmt.PluginFS, func(), error) {
	if err := CheckSource(tx.Store(), src, ""); err != nil {
		return nil, gitfetch.Fetched{}, nil, nil, err
	}
	if src.Kind == SourceFolder {
		root, err := os.OpenRoot(src.URL)
		if err != nil {
			return nil, gitfetch.Fetched{}, nil, nil, fmt.Errorf("plugin source %s: %w", src.URL, err)
		}
		fsys := folderscan.NewRootFS(root)
		layout, err := readLayout(fsys, src)
		if err != nil {
			err = fmt.Errorf("plugin source %s: %w%s", src.URL, err, deeperSkills(fsys, src, err))
			root.Close()
			return nil, gitfetch.Fetched{}, nil, nil, err
		}
		return layout, gitfetch.Fetched{}, fsys, func() { root.Close() }, nil
	}
	fetched, err := Fetch(ctx, tx, pre, src, store.ZeroHash)
	if err != nil {
		return nil, gitfetch.Fetched{}, nil, nil, err
	}
	fsys, err := fetched.FSAt(src.Path)
	if err != nil {
		return nil, gitfetch.Fetched{}, nil, nil, fmt.Errorf("plugin source %s: %w", src, err)
	}
	layout, err := readLayout(fsys, src)
	if err != nil {
		return nil, gitfetch.Fetched{}, nil, nil, fmt.Errorf("plugin source %s at %s: %w%s", src, store.ShortHash(fetched.Commit), err, deeperSkills(fsys, src, err))
	}
	return layout, fetched, fsys, func() {}, nil
}

// deeperSkills is what a source that matches no layout (err wraps
// pluginfmt.ErrNoSkills) holds deeper down: its skill folders, in one
// sentence with the SOURCE#FOLDER/ that takes the most of them; "" when
// err is another error or there are none.
func deeperSkills(fsys pluginfmt.PluginFS, src Source, err error) string {
	if !errors.Is(err, pluginfmt.ErrNoSkills) {
		return ""
	}
	dirs, lerr := pluginfmt.Unreached(fsys, &pluginfmt.Layout{})
	if lerr != nil || len(dirs) == 0 {
		return ""
	}
	const shown = 5
	named := strings.Join(dirs[:min(len(dirs), shown)], ", ")
	if len(dirs) > shown {
		named += fmt.Sprintf(" and %d more", len(dirs)-shown)
	}
	f := pluginfmt.UnreachedFolders(fsys, dirs)[0]
	return fmt.Sprintf("; it holds %d skill folders deeper (%s): 'skillstore plugin add %s#%s/' takes %d of them",
		len(dirs), named, src.URL, path.Join(src.Path, f.Folder), f.Skills)
}

// objectStore is go-git's view of the objects a reader sees, for fetches
// under the lock and for reading a stored source commit with
// gitfetch.TreeFS: the transaction's queued objects (a source fetched by
// it is not stored yet), then the store's, all read through the store
// ([store.Reader.Object], internal/gitdb). What else go-git asks of a
// storage (listing objects, for a commit pin given abbreviated) is its
// own storage of the repository.
type objectStore struct {
	storage.Storer
	r *store.Reader
}

func objectsOf(r *store.Reader) objectStore {
	return objectStore{Storer: filesystem.NewStorage(osfs.New(r.Store().Dir()), cache.NewObjectLRUDefault()), r: r}
}

func (s objectStore) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	o, err := s.r.Object(store.Hash(h))
	if errors.Is(err, store.ErrObjectNotFound) {
		return nil, plumbing.ErrObjectNotFound
	}
	if err != nil {
		return nil, err
	}
	if t != plumbing.AnyObject && plumbing.ObjectType(o.Type) != t {
		return nil, plumbing.ErrObjectNotFound
	}
	mo := &plumbing.MemoryObject{}
	mo.SetType(plumbing.ObjectType(o.Type))
	mo.Write(o.Data)
	return mo, nil
}

func (s objectStore) HasEncodedObject(h plumbing.Hash) error {
	if s.r.HasObject(store.Hash(h)) {
		return nil
	}
	return plumbing.ErrObjectNotFound
}

func (s objectStore) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	n, err := s.r.ObjectSize(store.Hash(h))
	if errors.Is(err, store.ErrObjectNotFound) {
		return 0, plumbing.ErrObjectNotFound
	}
	return n, err
}

// ReadUpstream fetches (or reads) plugin p's source and returns its skills
// with their tree ids. Nothing is written besides fetched objects.
func ReadUpstream(ctx context.Context, tx *store.Tx, pre *Prefetched, p *Plugin, cache *store.StatCache) (*Upstream, error) {
	src := p.Source
	if err := CheckSource(tx.Store(), src, p.Marketplace); err != nil {
		return nil, err
	}
	if src.Kind == SourceFolder {
		return ReadFolder(src, cache)
	}
	have, _ := tx.Ref(store.SourceRef(p.ID))
	fetched, err := Fetch(ctx, tx, pre, src, have)
	if err != nil {
		return nil, err
	}
	return UpstreamAt(tx, p, fetched)
}

// UpstreamAt reads plugin p's skills from a fetched commit of its source.
func UpstreamAt(tx *store.Tx, p *Plugin, fetched gitfetch.Fetched) (*Upstream, error) {
	fsys, err := fetched.FSAt(p.Source.Path)
	if err != nil {
		return nil, fmt.Errorf("plugin source %s: %w", p.Source, err)
	}
	up, err := newPluginUpstream(p, fsys)
	if err != nil {
		return nil, err
	}
	return up, upstreamSkills(tx, p, up, fetched, fsys)
}

// UpstreamOf is [UpstreamAt] for a plugin whose layout the caller has
// read already, from fsys (the tree of fetched at p.Source.Path, which
// the caller may share between the plugins of one marketplace: one
// goroutine at a time): a marketplace's plugins, read with the
// marketplace, are not read again one by one.
func UpstreamOf(tx *store.Tx, p *Plugin, fetched gitfetch.Fetched, fsys *gitfetch.TreeFS, layout pluginfmt.PluginLayout) (*Upstream, error) {
	up := &Upstream{Layout: layout, Skills: map[string]*UpstreamSkill{}}
	return up, upstreamSkills(tx, p, up, fetched, fsys)
}

// upstreamSkills gives up the fetched commit and each skill's tree id,
// read from fsys.
func upstreamSkills(tx *store.Tx, p *Plugin, up *Upstream, fetched gitfetch.Fetched, fsys *gitfetch.TreeFS) error {
	up.Fetched, up.fsys = fetched, fsys
	for _, d := range up.Layout.Skills {
		id, err := fsys.TreeID(d.Path)
		if err != nil {
			return fmt.Errorf("plugin source %s: skill %s: %w", p.Source, d.Name, err)
		}
		tree, err := skipIgnored(tx, id)
		var bound *skillfs.BoundError
		if errors.As(err, &bound) {
			up.Skills[d.Name] = &UpstreamSkill{Name: d.Name, Path: d.Path, Tree: id, Refused: bound}
			continue
		}
		if err != nil {
			return fmt.Errorf("plugin source %s: skill %s: %w", p.Source, d.Name, err)
		}
		up.Skills[d.Name] = &UpstreamSkill{Name: d.Name, Path: d.Path, Tree: tree}
	}
	return nil
}

// newPluginUpstream reads the layout of plugin p from its source's files:
// a plugin that a marketplace lists in another repository is read as that
// entry says (its "skills" list), any other as its source says.
func newPluginUpstream(p *Plugin, fsys pluginfmt.PluginFS) (*Upstream, error) {
	if p.Marketplace == "" || p.Source.Selector != "" {
		return newUpstream(p.Source, fsys)
	}
	pl, err := pluginfmt.ReadEntryPlugin(fsys, p.ID, p.EntrySkills)
	if err != nil {
		return nil, fmt.Errorf("plugin source %s: %w", p.Source, err)
	}
	return &Upstream{Layout: *pl, Skills: map[string]*UpstreamSkill{}}, nil
}

// ReadFolder reads a local folder source: its layout, and each
// skill folder scanned and hashed. It reads only the folder (and cache,
// which must be safe for concurrent use), so sync runs it ahead of the
// transaction on other goroutines.
func ReadFolder(src Source, cache *store.StatCache) (*Upstream, error) {
	root, err := os.OpenRoot(src.URL)
	if err != nil {
		return nil, fmt.Errorf("plugin source %s: %w", src.URL, err)
	}
	defer root.Close()
	fsys := folderscan.NewPluginFS(folderscan.NewRootFS(root), src.URL, cache)
	up, err := newUpstream(src, fsys)
	if err != nil {
		return nil, err
	}
	return up, scanSkills(src, up, fsys)
}

// ReadFolderOf is [ReadFolder] for a plugin whose layout the caller has
// read already (a marketplace's plugin, read with the marketplace).
func ReadFolderOf(src Source, layout pluginfmt.PluginLayout) (*Upstream, error) {
	root, err := os.OpenRoot(src.URL)
	if err != nil {
		return nil, fmt.Errorf("plugin source %s: %w", src.URL, err)
	}
	defer root.Close()
	up := &Upstream{Layout: layout, Skills: map[string]*UpstreamSkill{}}
	return up, scanSkills(src, up, folderscan.NewPluginFS(folderscan.NewRootFS(root), src.URL, nil))
}

// scanSkills scans and hashes each skill folder of up's layout.
func scanSkills(src Source, up *Upstream, fsys *folderscan.PluginFS) error {
	for _, d := range up.Layout.Skills {
		sk := &UpstreamSkill{Name: d.Name, Path: d.Path, Dir: filepath.Join(src.URL, filepath.FromSlash(d.Path))}
		var err error
		sk.Files, err = fsys.ScanSkill(sk.Dir, skillfs.DefaultLimits)
		var bound *skillfs.BoundError
		if errors.As(err, &bound) {
			sk.Files, sk.Dir, sk.Refused, sk.Tree = nil, "", bound, skillfs.BlobID([]byte(bound.Error()))
			up.Skills[d.Name] = sk
			continue
		}
		if err != nil {
			return fmt.Errorf("plugin source %s: skill %s: %w", src, d.Name, err)
		}
		sk.Tree = hashFolder(sk.Files)
		up.Skills[d.Name] = sk
	}
	return nil
}

// newUpstream reads the layout of the one plugin a source must hold.
func newUpstream(src Source, fsys pluginfmt.PluginFS) (*Upstream, error) {
	layout, err := readLayout(fsys, src)
	if err != nil {
		return nil, fmt.Errorf("plugin source %s: %w", src, err)
	}
	if len(layout.Plugins) == 0 && len(layout.Remote) == 1 {
		return nil, fmt.Errorf("plugin source %s: the marketplace lists %s in another repository now: add the marketplace again to follow it", src, src.Selector)
	}
	if len(layout.Plugins) != 1 {
		return nil, fmt.Errorf("plugin source %s holds %d plugins: name one with %s#<plugin>", src, len(layout.Plugins), src.URL)
	}
	return &Upstream{Layout: layout.Plugins[0], Skills: map[string]*UpstreamSkill{}}, nil
}

// skipIgnored returns tree without the paths skillfs.Ignored reports (the
// one rule every intake applies, here to a git plugin's tree), writing a
// filtered tree only when something is dropped.
func skipIgnored(tx *store.Tx, tree store.Hash) (store.Hash, error) {
	files, err := tx.Files(tree)
	if err != nil {
		return store.ZeroHash, err
	}
	kept := skillfs.WithoutIgnored(files)
	if len(kept) == len(files) {
		return tree, nil
	}
	return tx.WriteTree(kept)
}

// hashFolder is the tree id of a scanned folder. A folder holding what the
// store refuses (symlinks, special or oversized files) gets an id of its own
// listing instead, so it still changes with them; the safety check refuses
// such a tree before anything is written.
func hashFolder(files []store.File) store.Hash {
	if h, err := store.TreeHash(files); err == nil {
		return h
	}
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "%s %o %d %s %q\n", f.Path, uint32(f.Mode), f.Size, f.ID, f.Data)
	}
	return skillfs.BlobID([]byte(b.String()))
}

// LoadUpstreamFiles returns the content of an upstream skill for the safety check
// and the merge.
func LoadUpstreamFiles(tx *store.Tx, sk *UpstreamSkill) ([]store.File, error) {
	if sk.Refused != nil {
		return nil, sk.Refused
	}
	if sk.Dir != "" {
		if err := folderscan.LoadData(sk.Dir, sk.Files, skillfs.DefaultLimits); err != nil {
			return nil, fmt.Errorf("skill %s: %w", sk.Name, err)
		}
		return sk.Files, nil
	}
	if sk.Files != nil {
		return sk.Files, nil
	}
	files, err := tx.Files(sk.Tree)
	if err != nil {
		return nil, fmt.Errorf("skill %s: %w", sk.Name, err)
	}
	for i := range files {
		if files[i].Mode == skillfs.Gitlink {
			continue // no blob: a commit of another repository, which intake leaves out
		}
		data, err := tx.Blob(files[i].ID)
		if err != nil {
			return nil, fmt.Errorf("skill %s: %s: %w", sk.Name, files[i].Path, err)
		}
		files[i].Data, files[i].Size = data, int64(len(data))
	}
	sk.Files = files
	return files, nil
}

// WriteUpstreamTree stores an upstream skill's tree (folder sources) and
// returns its id; git sources' trees are already stored.
func WriteUpstreamTree(tx *store.Tx, sk *UpstreamSkill) (store.Hash, error) {
	if !tx.HasObject(sk.Tree) {
		files, err := LoadUpstreamFiles(tx, sk)
		if err != nil {
			return store.ZeroHash, err
		}
		h, err := tx.WriteTree(files)
		if err != nil {
			return store.ZeroHash, fmt.Errorf("skill %s: %w", sk.Name, err)
		}
		sk.Tree = h
	}
	return sk.Tree, nil
}

// SnapshotTrailers describe where an upstream snapshot of plugin p's
// skill sk came from: the plugin and its version, the source, the skill's
// folder in it and, for a git source, the commit.
func SnapshotTrailers(p *Plugin, up *Upstream, sk *UpstreamSkill) []store.Trailer {
	t := []store.Trailer{
		{Key: store.TrailerSource, Value: p.Label()},
		{Key: store.TrailerPlugin, Value: p.ID},
		{Key: store.TrailerPluginVersion, Value: up.Layout.Version},
		{Key: store.TrailerSourceURL, Value: p.Source.String()},
		{Key: store.TrailerUpstreamPath, Value: sk.Path},
	}
	if !up.Fetched.Commit.IsZero() {
		t = append(t, store.Trailer{Key: store.TrailerSourceCommit, Value: up.Fetched.Commit.String()})
	}
	return t
}

// WriteSnapshot queues tree as the next upstream snapshot of plugin p's
// skill sk: a commit on top of parents (the previous snapshot; none for
// the first) carrying SnapshotTrailers and then extra, made by the
// transaction's actor. It moves the skill's upstream ref to it and
// returns it.
func WriteSnapshot(tx *store.Tx, p *Plugin, up *Upstream, sk *UpstreamSkill, tree store.Hash, parents []store.Hash, extra ...store.Trailer) store.Hash {
	sig := tx.Signature()
	u := tx.WriteCommit(&store.Commit{
		Tree: tree, Parents: parents, Author: sig, Committer: sig,
		Message: store.BuildMessage(fmt.Sprintf("upstream %s/%s", p.ID, sk.Name), "", append(SnapshotTrailers(p, up, sk), extra...)),
	})
	tx.SetRef(store.UpstreamRef(p.ID, sk.Name), u)
	return u
}
