package plugins

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/internal/folderscan"
	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// A plugin's parts are its files besides its skills: the manifest,
// commands/, agents/, hooks/, .mcp.json, .lsp.json, settings, README,
// LICENSE and whatever else sits in the plugin's folder. They are one
// pseudo-skill, "PLUGIN:_plugin" ([store.PluginPartsName]), versioned, synced,
// checked and reviewed exactly like a skill, on the refs the layout gives
// that name: refs/heads/plugins/PLUGIN/_plugin, refs/upstream/PLUGIN/_plugin
// and refs/heads/candidates/plugins/PLUGIN/_plugin.
//
// The unit holds every file under the plugin's root folder except:
//   - skills: every folder holding a SKILL.md (selected or not) and every
//     folder the layout names as a skill; each skill is versioned apart;
//   - nested plugins: a folder below the root with a plugin manifest of
//     its own, in any agent's dialect (pluginfmt.HasPluginManifest);
//   - the marketplace files (any dialect's), when the plugin's root is
//     the marketplace's;
//   - what no intake stores (skillfs.Ignored: .git, node_modules,
//     __pycache__, skillstore's bookkeeping, editor litter) and .github/
//     (CI configuration, which no agent loads).
//
// A plugin has a unit when its parts are not empty and it is a plugin in
// Claude Code's or Codex's sense: its folder holds a manifest or a
// component (see isPluginComponent), or a marketplace listed it. A plain
// skills/ repository with a README has none.

// ciDir is left out of a plugin's parts: a forge's CI configuration.
const ciDir = ".github"

// Parts returns the published version of plugin's parts; ok is false
// when the plugin has none (no files besides its skills, or not synced
// since this release). Read the files with [store.Reader.LoadFiles] on v.Tree;
// paths are relative to the plugin's root, as a plugin folder lays them
// out (".claude-plugin/plugin.json", "hooks/hooks.json", ...). The
// plugin's skills go beside them, each under the folder it has upstream.
func Parts(r *store.Reader, plugin string) (v store.Version, ok bool, err error) {
	if _, has := r.Ref(store.SkillRef(store.PluginPartsUnit(plugin))); !has {
		return store.Version{}, false, nil
	}
	v, err = r.Head(store.PluginPartsUnit(plugin))
	if err != nil {
		return store.Version{}, false, err
	}
	return v, true, nil
}

// WithParts lists the plugins of the store that have a published
// parts unit, sorted. The unit of a removed plugin (plugin rm keeps its
// history) is not listed.
func WithParts(r *store.Reader) []string {
	var out []string
	for _, ref := range r.RefNames(store.PluginRefPrefix) {
		plugin, ok := store.PluginPartsOfRef(ref)
		if !ok {
			continue
		}
		if _, err := Get(r, plugin); err == nil {
			out = append(out, plugin)
		}
	}
	return out
}

// isPluginComponent reports whether a path of a plugin's parts makes the
// folder a plugin: a manifest, or a component Claude Code or Codex loads.
func isPluginComponent(p string) bool {
	switch p {
	case safety.MCPFile, safety.LSPFile, "settings.json":
		return true
	}
	if pluginfmt.IsManifest(p) && !pluginfmt.IsMarketplaceFile(p) {
		return true
	}
	top, _, nested := strings.Cut(p, "/")
	switch top {
	case "commands", "agents", "hooks", "output-styles":
		return nested
	}
	return false
}

// partsWalk collects a plugin's parts from fsys.
type partsWalk struct {
	fsys   pluginfmt.PluginFS
	root   string
	skills map[string]bool // skill folders the layout names, from the source's top
	limits skillfs.Limits
	files  []store.File
}

// collectParts returns the parts of the plugin rooted at root in fsys
// (paths relative to root, with Data and IDs), leaving out skillDirs (paths
// from fsys's top) and what the unit never holds (see above). It stops
// reading past limits.MaxFiles, and reads no file over limits.MaxFileSize
// (Size only): the safety check rejects both.
func collectParts(fsys pluginfmt.PluginFS, root string, skillDirs []string, limits skillfs.Limits) ([]store.File, error) {
	w := &partsWalk{fsys: fsys, root: path.Clean(root), skills: map[string]bool{}, limits: limits}
	for _, d := range skillDirs {
		w.skills[path.Clean(d)] = true
	}
	if err := w.dir(w.root, 1); err != nil {
		return nil, err
	}
	skillfs.Sort(w.files)
	return w.files, nil
}

func (w *partsWalk) rel(p string) string {
	if w.root == "." {
		return p
	}
	return strings.TrimPrefix(p, w.root+"/")
}

func (w *partsWalk) join(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// dir collects the parts in the folder dir, depth levels below the root.
// A path past a bound of a tree's shape ends the walk with a
// *skillfs.BoundError, before it enters that path.
func (w *partsWalk) dir(dir string, depth int) error {
	if w.skills[dir] {
		return nil
	}
	entries, err := w.fsys.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("plugin parts: %w", err)
	}
	for _, e := range entries {
		if e.Name() == skillmd.FileName && !e.IsDir() {
			return nil // a skill folder (the root too: a single-skill plugin)
		}
	}
	if dir != w.root && pluginfmt.HasPluginManifest(w.fsys, dir) {
		return nil // a plugin of its own
	}
	for _, e := range entries {
		p := w.join(dir, e.Name())
		rel := w.rel(p)
		if skillfs.IgnoredEntry(e.Name(), e.IsDir()) || rel == ciDir || pluginfmt.IsMarketplaceFile(rel) || w.skills[p] {
			continue
		}
		if len(w.files) > w.limits.MaxFiles {
			return nil // enough for the safety check to refuse the count
		}
		if len(rel) > skillfs.MaxPathBytes || depth > skillfs.MaxDepth || len(e.Name()) > skillfs.MaxNameBytes {
			return &skillfs.BoundError{Path: rel}
		}
		if e.IsDir() {
			if err := w.dir(p, depth+1); err != nil {
				return err
			}
			continue
		}
		f, err := w.file(p, rel, e)
		if err != nil {
			return err
		}
		w.files = append(w.files, f)
	}
	return nil
}

func (w *partsWalk) file(p, rel string, e fs.DirEntry) (store.File, error) {
	info, err := e.Info()
	if err != nil {
		return store.File{}, fmt.Errorf("plugin parts: %s: %w", rel, err)
	}
	f := store.File{Path: rel, Size: info.Size()}
	switch m := info.Mode(); {
	case m&fs.ModeSymlink != 0:
		target, err := w.fsys.ReadLink(p)
		if err != nil {
			return store.File{}, fmt.Errorf("plugin parts: %s: %w", rel, err)
		}
		f.Mode, f.Data = skillfs.Symlink, []byte(target)
		return f.WithID(), nil
	case !m.IsRegular():
		f.Mode = skillfs.Special
		return f, nil
	case m&0o111 != 0:
		f.Mode = skillfs.Executable
	default:
		f.Mode = skillfs.Regular
	}
	if f.Size > w.limits.MaxFileSize {
		return f, nil
	}
	if f.Data, err = w.fsys.ReadFile(p); err != nil {
		return store.File{}, fmt.Errorf("plugin parts: %s: %w", rel, err)
	}
	f.Size = int64(len(f.Data))
	return f.WithID(), nil
}

// ReadParts reads plugin p's parts from its source as an upstream
// skill named "_plugin" (nil when the plugin has none there).
// hasUnit says whether the store has a unit already: then any non-empty
// parts count, else only those of a plugin in Claude Code's or Codex's
// sense.
func ReadParts(tx *store.Tx, p *Plugin, up *Upstream, hasUnit bool) (*UpstreamSkill, error) {
	var fsys pluginfmt.PluginFS
	switch {
	case p.Source.Kind == SourceFolder:
		root, err := os.OpenRoot(p.Source.URL)
		if err != nil {
			return nil, fmt.Errorf("plugin source %s: %w", p.Source.URL, err)
		}
		defer root.Close()
		fsys = folderscan.NewRootFS(root)
	case !up.Fetched.Commit.IsZero():
		t, err := up.Fetched.FSAt(p.Source.Path)
		if err != nil {
			return nil, fmt.Errorf("plugin source %s: %w", p.Source, err)
		}
		fsys = t
	default:
		return nil, errors.New("plugin parts: the source was not read")
	}
	root := up.Layout.Root
	if root == "" {
		root = "."
	}
	var dirs []string
	for _, d := range append(slices.Clone(up.Layout.Skills), up.Layout.LeftOut...) {
		dirs = append(dirs, d.Path) // a left-out folder is reported as a skill, not as parts
	}
	files, err := collectParts(fsys, root, dirs, skillfs.DefaultLimits)
	var bound *skillfs.BoundError
	if errors.As(err, &bound) {
		// The parts are refused whole (intake), the plugin's skills go in.
		return &UpstreamSkill{Name: store.PluginPartsName, Path: root, Tree: skillfs.BlobID([]byte(bound.Error())), Parts: true, Refused: bound}, nil
	}
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, nil
	}
	if !hasUnit && p.Marketplace == "" && p.Source.Selector == "" && !anyComponent(files) {
		return nil, nil
	}
	// Names that collide are refused by the safety check, which leaves
	// the parts out with both paths named (see intake.go).
	tree := hashFolder(files)
	return &UpstreamSkill{Name: store.PluginPartsName, Path: root, Tree: tree, Files: files, Parts: true}, nil
}

func anyComponent(files []store.File) bool {
	for _, f := range files {
		if isPluginComponent(f.Path) {
			return true
		}
	}
	return false
}
