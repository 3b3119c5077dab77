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
//     its own, in any agent's dialect (pluginfmt.HasPluginManifest), or
//     that the source's marketplace lists as a plugin (Upstream.Roots,
//     loose plugin.json folders included);
//   - the marketplace files (any dialect's), when the plugin's root is
//     the marketplace's, and then the catalog's top-level skills/ unless
//     the plugin's own skills are there;
//   - what no intake stores (skillfs.Ignored: .git, node_modules,
//     __pycache__, skillstore's bookkeeping, editor litter) and .github/
//     (CI configuration, which no agent loads).
//
// It holds at most skillfs.DefaultLimits.MaxFiles files (see CapCut).
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

// The cap of a plugin's parts. A plugin's parts hold at most
// skillfs.DefaultLimits.MaxFiles files, counted per plugin (the folders of
// its skills and of the other plugins of its marketplace are not its
// parts). Past the cap the parts go in without the rest, which is left
// out and named (how many, and the first of them): its components first
// (manifests, commands/, agents/, hooks/, servers: what an agent loads),
// then the other files in path order, up to the cap. The cut is never
// silent: the report, --json and the snapshot's Left-Out trailer say it.

// CapCut is what a plugin's parts left out over the cap.
type CapCut struct {
	// Files is how many files were left out; First the first of them
	// (at most MaxCutPaths), in path order.
	Files int
	First []string
	// Cap is the cap, and Total the files the parts held.
	Cap, Total int
}

// MaxCutPaths is how many of the files a cap leaves out are named.
const MaxCutPaths = 5

// maxListedParts bounds the files a parts walk lists past the cap: a
// tree of millions of files is counted, not kept in memory.
const maxListedParts = 200_000

// partsFound is what a plugin's folder holds besides its skills: the
// files kept (with Data and IDs) and what the cap left out.
type partsFound struct {
	files []store.File
	cut   *CapCut
}

// partsWalk collects a plugin's parts from fsys.
type partsWalk struct {
	fsys   pluginfmt.PluginFS
	root   string
	skip   map[string]bool // skill folders the layout names and other plugins' roots, from the source's top
	listed []listedPart
	count  int // files found, listed or not
}

// listedPart is a file of the parts found by the walk, read once kept.
type listedPart struct {
	path, rel string
	entry     fs.DirEntry
}

// collectParts returns the parts of the plugin rooted at root in fsys
// (paths relative to root, with Data and IDs), leaving out skip (skill
// folders and other plugins' roots, paths from fsys's top) and what the
// unit never holds (see above), and past limits.MaxFiles what the cap
// leaves out (see CapCut). It lists every folder (a tree listing, no
// read) and reads only the files kept, none over limits.MaxFileSize
// (Size only): the intake leaves those out.
func collectParts(fsys pluginfmt.PluginFS, root string, skip []string, limits skillfs.Limits) (partsFound, error) {
	w := &partsWalk{fsys: fsys, root: path.Clean(root), skip: map[string]bool{}}
	for _, d := range skip {
		if d = path.Clean(d); d != w.root {
			w.skip[d] = true
		}
	}
	if err := w.dir(w.root, 1); err != nil {
		return partsFound{}, err
	}
	// Components first, then path order: the cap keeps what agents load.
	slices.SortStableFunc(w.listed, func(a, b listedPart) int {
		ca, cb := isPluginComponent(a.rel), isPluginComponent(b.rel)
		switch {
		case ca && !cb:
			return -1
		case cb && !ca:
			return 1
		}
		return strings.Compare(a.rel, b.rel)
	})
	var found partsFound
	keep := w.listed
	if w.count > limits.MaxFiles {
		keep = w.listed[:limits.MaxFiles]
		var over []string
		for _, l := range w.listed[limits.MaxFiles:] {
			over = append(over, l.rel)
		}
		slices.Sort(over)
		found.cut = &CapCut{Files: w.count - limits.MaxFiles, First: over[:min(len(over), MaxCutPaths)], Cap: limits.MaxFiles, Total: w.count}
	}
	for _, l := range keep {
		f, err := readPart(fsys, l, limits)
		if err != nil {
			return partsFound{}, err
		}
		found.files = append(found.files, f)
	}
	skillfs.Sort(found.files)
	return found, nil
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
	if w.skip[dir] {
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
		if skillfs.IgnoredEntry(e.Name(), e.IsDir()) || rel == ciDir || pluginfmt.IsMarketplaceFile(rel) || w.skip[p] {
			continue
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
		if w.count++; len(w.listed) < maxListedParts {
			w.listed = append(w.listed, listedPart{path: p, rel: rel, entry: e})
		}
	}
	return nil
}

// readPart reads one file of the parts that the walk listed.
func readPart(fsys pluginfmt.PluginFS, l listedPart, limits skillfs.Limits) (store.File, error) {
	p, rel, e := l.path, l.rel, l.entry
	info, err := e.Info()
	if err != nil {
		return store.File{}, fmt.Errorf("plugin parts: %s: %w", rel, err)
	}
	f := store.File{Path: rel, Size: info.Size()}
	switch m := info.Mode(); {
	case m&fs.ModeSymlink != 0:
		target, err := fsys.ReadLink(p)
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
	if f.Size > limits.MaxFileSize {
		return f, nil
	}
	if f.Data, err = fsys.ReadFile(p); err != nil {
		return store.File{}, fmt.Errorf("plugin parts: %s: %w", rel, err)
	}
	f.Size = int64(len(f.Data))
	return f.WithID(), nil
}

// ReadParts reads plugin p's parts from its source as an upstream
// skill named "_plugin" (nil when the plugin has none there), what the
// cap left out in its Cut. hasUnit says whether the store has a unit
// already: then any non-empty parts count, else only those of a plugin
// in an agent's sense. The parts are read once per Upstream.
func ReadParts(tx *store.Tx, p *Plugin, up *Upstream, hasUnit bool) (*UpstreamSkill, error) {
	if up.parts == nil {
		found, err := readParts(p, up)
		var bound *skillfs.BoundError
		if errors.As(err, &bound) {
			// The parts are refused whole (intake), the plugin's skills go in.
			root := up.Layout.Root
			if root == "" {
				root = "."
			}
			return &UpstreamSkill{Name: store.PluginPartsName, Path: root, Tree: skillfs.BlobID([]byte(bound.Error())), Parts: true, Refused: bound}, nil
		}
		if err != nil {
			return nil, err
		}
		up.parts = &found
	}
	files := up.parts.files
	if len(files) == 0 {
		return nil, nil
	}
	if !hasUnit && p.Marketplace == "" && p.Source.Selector == "" && !anyComponent(files) {
		return nil, nil
	}
	root := up.Layout.Root
	if root == "" {
		root = "."
	}
	// Names that collide are refused by the safety check, which leaves
	// the parts out with both paths named (see intake.go).
	tree := hashFolder(files)
	return &UpstreamSkill{Name: store.PluginPartsName, Path: root, Tree: tree, Files: files, Parts: true, Cut: up.parts.cut}, nil
}

// readParts walks plugin p's folder in its source for its parts.
func readParts(p *Plugin, up *Upstream) (partsFound, error) {
	var fsys pluginfmt.PluginFS
	switch {
	case p.Source.Kind == SourceFolder:
		root, err := os.OpenRoot(p.Source.URL)
		if err != nil {
			return partsFound{}, fmt.Errorf("plugin source %s: %w", p.Source.URL, err)
		}
		defer root.Close()
		fsys = folderscan.NewRootFS(root)
	case up.fsys != nil:
		fsys = up.fsys
	case !up.Fetched.Commit.IsZero():
		t, err := up.Fetched.FSAt(p.Source.Path)
		if err != nil {
			return partsFound{}, fmt.Errorf("plugin source %s: %w", p.Source, err)
		}
		fsys = t
	default:
		return partsFound{}, errors.New("plugin parts: the source was not read")
	}
	root := up.Layout.Root
	if root == "" {
		root = "."
	}
	var skip []string
	inSkills := false
	for _, d := range append(slices.Clone(up.Layout.Skills), up.Layout.LeftOut...) {
		skip = append(skip, d.Path) // a left-out folder is reported as a skill, not as parts
		inSkills = inSkills || d.Path == topSkillsDir || strings.HasPrefix(d.Path, topSkillsDir+"/")
	}
	if up.Roots == nil && pluginfmt.HasMarketplace(fsys) {
		up.Roots = pluginfmt.PluginRoots(fsys)
	}
	skip = append(skip, up.Roots...) // the other plugins of the marketplace
	if root == "." && len(up.Roots) > 0 && !inSkills {
		// A marketplace's own top: a catalog's skills/ is not its parts
		// (the skills there are reported as reached by no plugin).
		skip = append(skip, topSkillsDir)
	}
	return collectParts(fsys, root, skip, skillfs.DefaultLimits)
}

// topSkillsDir is the skills/ folder at a source's top.
const topSkillsDir = "skills"

func anyComponent(files []store.File) bool {
	for _, f := range files {
		if isPluginComponent(f.Path) {
			return true
		}
	}
	return false
}
