package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
)

// StoreCatalog is the Catalog of a store's published skills: the latest
// version of every active skill, as export writes them (plugin parts are
// not skills and are left out). Each call takes the store's shared lock
// for its own read only, so a running server never holds up sync or
// export.
type StoreCatalog struct {
	s *store.Store

	mu    sync.Mutex
	gen   string    // the last Generation
	stamp *refStamp // the refs when gen was read; nil: read again
	kept  []Skill   // the skills of gen, until Skills takes them
}

// NewStoreCatalog serves s's published skills.
func NewStoreCatalog(s *store.Store) *StoreCatalog { return &StoreCatalog{s: s} }

// published lists the served skills inside a read: not those of a plugin
// that a project's lock added, which go to that project's targets only
// (plugins.ProjectOnly): the server is every agent's.
func published(r *store.Reader) ([]store.SkillInfo, error) {
	infos, err := r.List(false)
	if err != nil {
		return nil, err
	}
	projectOnly, err := plugins.ProjectOnly(r)
	if err != nil {
		return nil, err
	}
	out := infos[:0]
	for _, info := range infos {
		plugin, _ := store.SplitName(info.Name)
		if _, only := projectOnly[plugin]; info.Status == store.StatusActive && !store.IsPluginParts(info.Name) && !only {
			out = append(out, info)
		}
	}
	return out, nil
}

// Generation hashes the served names and their commits. Listing them
// reads every skill's ref, so the answer is kept with a stamp of the
// store's ref folders and packed-refs (see refStamp): while the stamp is
// unchanged, so is the published set, and Generation costs a few stats.
func (c *StoreCatalog) Generation(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != "" && c.stamp.unchanged() {
		return c.gen, nil
	}
	_, err := c.read(ctx)
	return c.gen, err
}

// read lists the served skills and sets the generation (under c.mu).
// The list is kept until Skills takes it, so a server that asks for the
// generation and then for the skills reads the store once.
func (c *StoreCatalog) read(ctx context.Context) ([]Skill, error) {
	// The stamp is taken before the read: a change during the read shows
	// as a changed stamp next time.
	stamp, stampErr := takeRefStamp(c.s.Dir(), plugins.ProjectOnlyPath(c.s))
	h := sha256.New()
	var out []Skill
	err := c.s.View(ctx, func(r *store.Reader) error {
		infos, err := published(r)
		if err != nil {
			return err
		}
		// Copies: the store's strings are slices of its summary file's
		// lines, which the server would keep whole. The names,
		// descriptions and commits are copied into one string, sliced:
		// one allocation, not three a skill.
		size := 0
		for _, info := range infos {
			size += len(info.Name) + len(info.Description) + 2*len(info.Commit)
		}
		var b strings.Builder
		b.Grow(size)
		var line []byte
		for _, info := range infos {
			b.WriteString(info.Name)
			b.WriteString(info.Description)
			line = hex.AppendEncode(append(append(line[:0], info.Name...), ' '), info.Commit[:])
			b.Write(line[len(info.Name)+1:])
			h.Write(append(line, '\n'))
		}
		all := b.String()
		out = make([]Skill, len(infos))
		at := 0
		cut := func(n int) string {
			at += n
			return all[at-n : at]
		}
		for i, info := range infos {
			out[i] = Skill{Name: cut(len(info.Name)), Description: cut(len(info.Description)), Version: info.Number, Commit: cut(2 * len(info.Commit)), Tree: info.Tree}
		}
		return nil
	})
	if err != nil {
		c.gen, c.stamp, c.kept = "", nil, nil
		return nil, fmt.Errorf("read the published skills of %s: %w", c.s.Dir(), err)
	}
	c.gen, c.stamp, c.kept = hex.EncodeToString(h.Sum(nil)), nil, out
	if stampErr == nil && stamp.settled() {
		c.stamp = stamp
	}
	return out, nil
}

// Skills lists the served skills with their descriptions and versions,
// and their generation.
func (c *StoreCatalog) Skills(ctx context.Context) ([]Skill, string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kept != nil && c.stamp.unchanged() {
		out := c.kept
		c.kept = nil
		return out, c.gen, nil
	}
	out, err := c.read(ctx)
	c.kept = nil
	if err != nil {
		return nil, "", err
	}
	return out, c.gen, nil
}

// Open reads one served skill's files at its published version. It reads
// that skill's ref, record and tree only, so a load costs the same in a
// store of any size.
func (c *StoreCatalog) Open(ctx context.Context, name string) (*Version, error) {
	var v *Version
	err := c.s.View(ctx, func(r *store.Reader) error {
		if store.IsPluginParts(name) {
			return fmt.Errorf("%s: %w", name, ErrUnknownSkill)
		}
		if _, ok := r.Ref(store.SkillRef(name)); !ok {
			return fmt.Errorf("%s: %w", name, ErrUnknownSkill)
		}
		rec, err := r.SkillRecord(name)
		if err != nil {
			return err
		}
		if rec.Status != store.StatusActive {
			return fmt.Errorf("%s is %s: %w", name, rec.Status, ErrUnknownSkill)
		}
		projectOnly, err := plugins.ProjectOnly(r)
		if err != nil {
			return err
		}
		if plugin, _ := store.SplitName(name); projectOnly[plugin] != nil {
			return fmt.Errorf("%s: its plugin was added by a project's lock, for that project's targets only: %w", name, ErrUnknownSkill)
		}
		sum, err := r.Summary(name)
		if err != nil {
			return err
		}
		files, err := r.LoadFiles(sum.Tree)
		if err != nil {
			return fmt.Errorf("read %s v%d: %w", name, sum.Number, err)
		}
		v = &Version{Skill: Skill{Name: name, Description: sum.Description, Version: sum.Number, Commit: sum.Commit.String(), Tree: sum.Tree}}
		v.Files = versionFiles(files)
		return nil
	})
	return v, err
}

// versionFiles orders a version's files SKILL.md first, then by path.
func versionFiles(files []skillfs.File) []File {
	out := make([]File, 0, len(files))
	for _, f := range files {
		out = append(out, File{Path: f.Path, Size: f.Size, Data: f.Data, Link: f.Mode == skillfs.Symlink})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Path == skillmd.FileName, out[j].Path == skillmd.FileName
		if a != b {
			return a
		}
		return out[i].Path < out[j].Path
	})
	return out
}

// Files reads trees in one read.
func (c *StoreCatalog) Files(ctx context.Context, trees []skillfs.ID) (map[skillfs.ID][]FileRef, error) {
	out := make(map[skillfs.ID][]FileRef, len(trees))
	err := c.s.View(ctx, func(r *store.Reader) error {
		for _, t := range trees {
			if err := ctx.Err(); err != nil {
				return err
			}
			files, err := r.Files(t)
			if err != nil {
				return fmt.Errorf("tree %s: %w", t, err)
			}
			refs := make([]FileRef, len(files))
			for i, f := range files {
				refs[i] = FileRef{Path: f.Path, ID: f.ID, Link: f.Mode == skillfs.Symlink}
			}
			out[t] = refs
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the published skills of %s: %w", c.s.Dir(), err)
	}
	return out, nil
}

// ReadBlobs reads blobs by id in one read.
func (c *StoreCatalog) ReadBlobs(ctx context.Context, ids []skillfs.ID, fn func(id skillfs.ID, data []byte) error) error {
	if len(ids) == 0 {
		return nil
	}
	return c.s.View(ctx, func(r *store.Reader) error {
		for _, id := range ids {
			if err := ctx.Err(); err != nil {
				return err
			}
			data, err := r.Blob(id)
			if err != nil {
				return fmt.Errorf("read blob %s of %s: %w", id, c.s.Dir(), err)
			}
			if err := fn(id, data); err != nil {
				return err
			}
		}
		return nil
	})
}

// Version finds version n of skill name on its published history.
func (c *StoreCatalog) Version(ctx context.Context, name string, n int) (Skill, error) {
	var out Skill
	err := c.s.View(ctx, func(r *store.Reader) error {
		if _, ok := r.Ref(store.SkillRef(name)); !ok || store.IsPluginParts(name) {
			return fmt.Errorf("%s: %w", name, ErrUnknownSkill)
		}
		found := false
		err := r.WalkVersions(name, func(v store.Version) bool {
			if v.Number == n {
				out, found = Skill{Name: name, Version: n, Commit: v.Commit.String(), Tree: v.Tree}, true
			}
			return v.Number > n
		})
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("%s has no version v%d: %w", name, n, ErrUnknownSkill)
		}
		return nil
	})
	return out, err
}
