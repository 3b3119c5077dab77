package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage"

	"github.com/skillstore/skillstore/internal/folderscan"
	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// upstream is what a plugin source holds right now.
type upstream struct {
	fetched gitfetch.Fetched // git sources only
	layout  pluginfmt.PluginLayout
	skills  map[string]*upstreamSkill
}

// upstreamSkill is one skill folder of an upstream.
type upstreamSkill struct {
	name string
	path string
	tree Hash
	// dir is the skill's folder on disk (folder sources only).
	dir string
	// files is the skill's content, loaded when needed: a folder source's
	// scan may leave Data empty where the stat cache vouched for a file.
	files []File
	// parts marks a plugin's parts (see plugin_parts.go), not a skill.
	parts bool
	// intaken is set once intake left out what the store never holds;
	// leftOut lists those files (see intake.go).
	intaken bool
	leftOut []LeftOut
}

// readSource opens a source and reads the layout of all its plugins, for
// plugin add. For git sources it fetches, and the objects land in the store.
func (tx *Tx) readSource(ctx context.Context, src Source) (*pluginfmt.Layout, gitfetch.Fetched, pluginfmt.PluginFS, func(), error) {
	if err := tx.s.CheckSource(src, ""); err != nil {
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
			root.Close()
			return nil, gitfetch.Fetched{}, nil, nil, fmt.Errorf("plugin source %s: %w", src.URL, err)
		}
		return layout, gitfetch.Fetched{}, fsys, func() { root.Close() }, nil
	}
	fetched, err := tx.fetch(ctx, src, ZeroHash)
	if err != nil {
		return nil, gitfetch.Fetched{}, nil, nil, err
	}
	fsys, err := fetched.FSAt(src.Path)
	if err != nil {
		return nil, gitfetch.Fetched{}, nil, nil, fmt.Errorf("plugin source %s: %w", src, err)
	}
	layout, err := readLayout(fsys, src)
	if err != nil {
		return nil, gitfetch.Fetched{}, nil, nil, fmt.Errorf("plugin source %s at %s: %w", src, short(fetched.Commit), err)
	}
	return layout, fetched, fsys, func() {}, nil
}

// txStorer lets go-git see the objects a transaction has queued but not
// written yet, besides the repository's.
type txStorer struct {
	storage.Storer
	tx *Tx
}

func (s txStorer) pending(h Hash, t plumbing.ObjectType) (plumbing.EncodedObject, bool) {
	o, ok := s.tx.unsavedObject(h)
	if !ok || (t != plumbing.AnyObject && toGitType(o.Type) != t) {
		return nil, false
	}
	mo := &plumbing.MemoryObject{}
	mo.SetType(toGitType(o.Type))
	mo.Write(o.Data)
	return mo, true
}

func (s txStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if o, ok := s.pending(fromGit(h), t); ok {
		return o, nil
	}
	return s.Storer.EncodedObject(t, h)
}

func (s txStorer) HasEncodedObject(h plumbing.Hash) error {
	if _, ok := s.tx.unsavedObject(fromGit(h)); ok {
		return nil
	}
	return s.Storer.HasEncodedObject(h)
}

func (s txStorer) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if o, ok := s.tx.unsavedObject(fromGit(h)); ok {
		return int64(len(o.Data)), nil
	}
	return s.Storer.EncodedObjectSize(h)
}

// readUpstream fetches (or reads) plugin p's source and returns its skills
// with their tree ids. Nothing is written besides fetched objects.
func (tx *Tx) readUpstream(ctx context.Context, p *Plugin, cache *StatCache) (*upstream, error) {
	src := p.Source
	if err := tx.s.CheckSource(src, p.Marketplace); err != nil {
		return nil, err
	}
	if src.Kind == SourceFolder {
		return readFolderUpstream(src, cache)
	}
	have, _ := tx.Ref(SourceRef(p.ID))
	fetched, err := tx.fetch(ctx, src, have)
	if err != nil {
		return nil, err
	}
	return tx.upstreamAt(p, fetched)
}

// upstreamAt reads plugin p's skills from a fetched commit of its source.
func (tx *Tx) upstreamAt(p *Plugin, fetched gitfetch.Fetched) (*upstream, error) {
	fsys, err := fetched.FSAt(p.Source.Path)
	if err != nil {
		return nil, fmt.Errorf("plugin source %s: %w", p.Source, err)
	}
	up, err := newPluginUpstream(p, fsys)
	if err != nil {
		return nil, err
	}
	up.fetched = fetched
	for _, d := range up.layout.Skills {
		id, err := fsys.TreeID(d.Path)
		if err != nil {
			return nil, fmt.Errorf("plugin source %s: skill %s: %w", p.Source, d.Name, err)
		}
		tree, err := tx.skipIgnored(id)
		if err != nil {
			return nil, fmt.Errorf("plugin source %s: skill %s: %w", p.Source, d.Name, err)
		}
		up.skills[d.Name] = &upstreamSkill{name: d.Name, path: d.Path, tree: tree}
	}
	return up, nil
}

// newPluginUpstream reads the layout of plugin p from its source's files:
// a plugin that a marketplace lists in another repository is read as that
// entry says (its "skills" list), any other as its source says.
func newPluginUpstream(p *Plugin, fsys pluginfmt.PluginFS) (*upstream, error) {
	if p.Marketplace == "" || p.Source.Selector != "" {
		return newUpstream(p.Source, fsys)
	}
	pl, err := pluginfmt.ReadEntryPlugin(fsys, p.ID, p.EntrySkills)
	if err != nil {
		return nil, fmt.Errorf("plugin source %s: %w", p.Source, err)
	}
	return &upstream{layout: *pl, skills: map[string]*upstreamSkill{}}, nil
}

// readFolderUpstream reads a local folder source: its layout, and each
// skill folder scanned and hashed. It reads only the folder (and cache,
// which must be safe for concurrent use), so sync runs it ahead of the
// transaction on other goroutines.
func readFolderUpstream(src Source, cache *StatCache) (*upstream, error) {
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
	for _, d := range up.layout.Skills {
		sk := &upstreamSkill{name: d.Name, path: d.Path, dir: filepath.Join(src.URL, filepath.FromSlash(d.Path))}
		if sk.files, err = fsys.ScanSkill(sk.dir, skillfs.DefaultLimits); err != nil {
			return nil, fmt.Errorf("plugin source %s: skill %s: %w", src, d.Name, err)
		}
		sk.tree = hashFolder(sk.files)
		up.skills[d.Name] = sk
	}
	return up, nil
}

// newUpstream reads the layout of the one plugin a source must hold.
func newUpstream(src Source, fsys pluginfmt.PluginFS) (*upstream, error) {
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
	return &upstream{layout: layout.Plugins[0], skills: map[string]*upstreamSkill{}}, nil
}

// skipIgnored returns tree without the paths skillfs.Ignored reports (the
// one rule every intake applies, here to a git plugin's tree), writing a
// filtered tree only when something is dropped.
func (tx *Tx) skipIgnored(tree Hash) (Hash, error) {
	files, err := tx.Files(tree)
	if err != nil {
		return ZeroHash, err
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
func hashFolder(files []File) Hash {
	if h, err := TreeHash(files); err == nil {
		return h
	}
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "%s %o %d %s %q\n", f.Path, uint32(f.Mode), f.Size, f.ID, f.Data)
	}
	return skillfs.BlobID([]byte(b.String()))
}

// loadFiles returns the content of an upstream skill for the safety check
// and the merge.
func (tx *Tx) loadUpstreamFiles(sk *upstreamSkill) ([]File, error) {
	if sk.dir != "" {
		if err := folderscan.LoadData(sk.dir, sk.files, skillfs.DefaultLimits); err != nil {
			return nil, fmt.Errorf("skill %s: %w", sk.name, err)
		}
		return sk.files, nil
	}
	if sk.files != nil {
		return sk.files, nil
	}
	files, err := tx.Files(sk.tree)
	if err != nil {
		return nil, fmt.Errorf("skill %s: %w", sk.name, err)
	}
	for i := range files {
		if files[i].Mode == skillfs.Gitlink {
			continue // no blob: a commit of another repository, which intake leaves out
		}
		data, err := tx.Blob(files[i].ID)
		if err != nil {
			return nil, fmt.Errorf("skill %s: %s: %w", sk.name, files[i].Path, err)
		}
		files[i].Data, files[i].Size = data, int64(len(data))
	}
	sk.files = files
	return files, nil
}

// writeUpstreamTree stores an upstream skill's tree (folder sources) and
// returns its id; git sources' trees are already stored.
func (tx *Tx) writeUpstreamTree(sk *upstreamSkill) (Hash, error) {
	if !tx.hasObject(sk.tree) {
		files, err := tx.loadUpstreamFiles(sk)
		if err != nil {
			return ZeroHash, err
		}
		h, err := tx.WriteTree(files)
		if err != nil {
			return ZeroHash, fmt.Errorf("skill %s: %w", sk.name, err)
		}
		sk.tree = h
	}
	return sk.tree, nil
}
