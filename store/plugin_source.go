package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage"
)

// upstream is what a plugin source holds right now.
type upstream struct {
	fetched Fetched // git sources only
	layout  PluginLayout
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
}

// readSource opens a source and reads the layout of all its plugins, for
// plugin add. For git sources it fetches, and the objects land in the store.
func (tx *Tx) readSource(ctx context.Context, src Source) (*Layout, Fetched, PluginFS, func(), error) {
	if src.Kind == SourceFolder {
		root, err := os.OpenRoot(src.URL)
		if err != nil {
			return nil, Fetched{}, nil, nil, fmt.Errorf("plugin source %s: %w", src.URL, err)
		}
		fsys := root.FS().(PluginFS)
		layout, err := ReadLayout(fsys, src.Selector)
		if err != nil {
			root.Close()
			return nil, Fetched{}, nil, nil, fmt.Errorf("plugin source %s: %w", src.URL, err)
		}
		return layout, Fetched{}, fsys, func() { root.Close() }, nil
	}
	fetched, err := tx.fetch(ctx, src, ZeroHash)
	if err != nil {
		return nil, Fetched{}, nil, nil, err
	}
	fsys, err := commitFS(fetched.objects, fetched.Commit)
	if err != nil {
		return nil, Fetched{}, nil, nil, err
	}
	layout, err := ReadLayout(fsys, src.Selector)
	if err != nil {
		return nil, Fetched{}, nil, nil, fmt.Errorf("plugin source %s at %s: %w", src, short(fetched.Commit), err)
	}
	return layout, fetched, fsys, func() {}, nil
}

// commitFS is the file tree of a commit.
func commitFS(objects storer.EncodedObjectStorer, h Hash) (*TreeFS, error) {
	c, err := object.GetCommit(objects, h)
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", short(h), err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", short(h), err)
	}
	return NewTreeFS(objects, tree), nil
}

// fetch fetches a git source and queues the objects it brought in the
// transaction, which writes them durably before any ref points at them.
func (tx *Tx) fetch(ctx context.Context, src Source, have Hash) (Fetched, error) {
	f, err := fetchGit(ctx, txStorer{Storer: tx.storage(), tx: tx}, src, have)
	if err != nil {
		return Fetched{}, err
	}
	err = f.objects.newObjects(func(t plumbing.ObjectType, data []byte) { tx.WriteObject(t, data) })
	return f, err
}

// txStorer lets go-git see the objects a transaction has queued but not
// written yet, besides the repository's.
type txStorer struct {
	storage.Storer
	tx *Tx
}

func (s txStorer) pending(h Hash, t plumbing.ObjectType) (plumbing.EncodedObject, bool) {
	o, ok := s.tx.pending.get(h)
	if !ok || (t != plumbing.AnyObject && o.typ != t) {
		return nil, false
	}
	mo := &plumbing.MemoryObject{}
	mo.SetType(o.typ)
	mo.Write(o.data)
	return mo, true
}

func (s txStorer) EncodedObject(t plumbing.ObjectType, h Hash) (plumbing.EncodedObject, error) {
	if o, ok := s.pending(h, t); ok {
		return o, nil
	}
	return s.Storer.EncodedObject(t, h)
}

func (s txStorer) HasEncodedObject(h Hash) error {
	if _, ok := s.tx.pending.get(h); ok {
		return nil
	}
	return s.Storer.HasEncodedObject(h)
}

func (s txStorer) EncodedObjectSize(h Hash) (int64, error) {
	if o, ok := s.tx.pending.get(h); ok {
		return int64(len(o.data)), nil
	}
	return s.Storer.EncodedObjectSize(h)
}

// readUpstream fetches (or reads) plugin p's source and returns its skills
// with their tree ids. Nothing is written besides fetched objects.
func (tx *Tx) readUpstream(ctx context.Context, p *Plugin, cache *StatCache) (*upstream, error) {
	src := p.Source
	var fetched Fetched
	var fsys PluginFS
	if src.Kind == SourceFolder {
		root, err := os.OpenRoot(src.URL)
		if err != nil {
			return nil, fmt.Errorf("plugin source %s: %w", src.URL, err)
		}
		defer root.Close()
		fsys = root.FS().(PluginFS)
	} else {
		have, _ := tx.Ref(SourceRef(p.ID))
		var err error
		if fetched, err = tx.fetch(ctx, src, have); err != nil {
			return nil, err
		}
		if fsys, err = commitFS(fetched.objects, fetched.Commit); err != nil {
			return nil, err
		}
	}
	layout, err := ReadLayout(fsys, src.Selector)
	if err != nil {
		return nil, fmt.Errorf("plugin source %s: %w", src, err)
	}
	if len(layout.Plugins) != 1 {
		return nil, fmt.Errorf("plugin source %s holds %d plugins: name one with %s#<plugin>", src, len(layout.Plugins), src.URL)
	}
	up := &upstream{fetched: fetched, layout: layout.Plugins[0], skills: map[string]*upstreamSkill{}}
	for _, d := range up.layout.Skills {
		sk := &upstreamSkill{name: d.Name, path: d.Path}
		if tfs, ok := fsys.(*TreeFS); ok {
			e, err := tfs.entry("open", d.Path)
			if err != nil {
				return nil, fmt.Errorf("plugin source %s: skill %s: %w", src, d.Name, err)
			}
			sk.tree = e.Hash
		} else {
			sk.dir = filepath.Join(src.URL, filepath.FromSlash(d.Path))
			if sk.files, err = ScanDir(sk.dir, DefaultLimits, cache); err != nil {
				return nil, fmt.Errorf("plugin source %s: skill %s: %w", src, d.Name, err)
			}
			sk.tree = hashFolder(sk.files)
		}
		up.skills[d.Name] = sk
	}
	return up, nil
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
		fmt.Fprintf(&b, "%s %o %d %s %q\n", f.Path, uint32(f.Mode), f.Size, f.Hash, f.Data)
	}
	return HashBlob([]byte(b.String()))
}

// loadFiles returns the content of an upstream skill for the safety check
// and the merge.
func (tx *Tx) loadUpstreamFiles(sk *upstreamSkill) ([]File, error) {
	if sk.dir != "" {
		if err := LoadData(sk.dir, sk.files, DefaultLimits); err != nil {
			return nil, fmt.Errorf("skill %s: %w", sk.name, err)
		}
		return sk.files, nil
	}
	if sk.files != nil {
		return sk.files, nil
	}
	files, err := tx.LoadFiles(sk.tree)
	if err != nil {
		return nil, fmt.Errorf("skill %s: %w", sk.name, err)
	}
	sk.files = files
	return files, nil
}

// writeUpstreamTree stores an upstream skill's tree (folder sources) and
// returns its id; git sources' trees are already stored.
func (tx *Tx) writeUpstreamTree(sk *upstreamSkill) (Hash, error) {
	if !tx.HasObject(sk.tree) {
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
