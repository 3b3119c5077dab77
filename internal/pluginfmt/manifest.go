// Package pluginfmt reads what a plugin source provides: the plugins it holds
// and, in each, the folders that are skills. A source is a local folder or a
// git tree, read through the small [PluginFS] interface; the package itself
// does no I/O of its own, knows nothing of git or of the store, and never
// follows a path or a symlink out of the source.
//
// [Read] is the one function that decides a source's layout ([Kind]),
// trying in this order: a Claude Code marketplace ([MarketplaceManifest]:
// several plugins, each with its root, entries that live in other git
// repositories as [RemotePlugin] for the caller to fetch and read with
// [ReadEntryPlugin], and entries that cannot be read as [EntryError], one
// by one), a Claude Code or Codex plugin manifest ([ClaudePluginManifest],
// [CodexPluginManifest]) whose "skills" may name the skill folders, then
// skills/ (plain skills/<name>/SKILL.md and openai/skills' hidden category
// folders skills/.curated/<name>), then a single SKILL.md at the top, then
// flat <name>/SKILL.md folders. A folder matching none gets [ErrNoSkills],
// which lists them. A problem in a manifest is an [Error] naming the file;
// a path that leaves the source wraps [ErrPathEscapes].
package pluginfmt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"syscall"

	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
)

// PluginFS is what reading a plugin's layout needs from its files. A local
// folder ([os.Root.FS]) and a git tree (the store's TreeFS) both provide it,
// so the same code reads a plugin before and after it is fetched into the
// store.
type PluginFS interface {
	fs.ReadDirFS
	fs.ReadFileFS
	fs.ReadLinkFS
}

// The manifest files a plugin can publish, relative to its root.
const (
	ClaudePluginManifest = ".claude-plugin/plugin.json"
	MarketplaceManifest  = ".claude-plugin/marketplace.json"
	CodexPluginManifest  = ".codex-plugin/plugin.json"
	// defaultSkillsDir is where skills live when no manifest says otherwise.
	defaultSkillsDir = "skills"
)

// ErrPathEscapes is wrapped by an [Error] when a manifest names a path
// outside the plugin root: "../", an absolute path or a symlink out.
var ErrPathEscapes = errors.New("path escapes the plugin root")

// Error is a problem in a plugin's manifest, named by its file.
type Error struct {
	File string // manifest path relative to the source root
	Err  error
}

func (e *Error) Error() string {
	err := e.Err
	// A file system's error names the file again ("open F: ..."): once is enough.
	if pe, ok := err.(*fs.PathError); ok && pe.Path == e.File {
		err = pe.Err
	}
	return e.File + ": " + err.Error()
}
func (e *Error) Unwrap() error { return e.Err }

// Layout is what a plugin source provides: one plugin, or several when the
// source is a marketplace.
type Layout struct {
	Plugins []PluginLayout
	// Skipped lists marketplace entries that are not added, with why: no
	// skills, or a source kind that is not a git repository.
	Skipped []SkippedPlugin
	// Remote lists marketplace entries that live in other git repositories
	// (see marketplace.go); Failed the entries that cannot be read, while
	// the others can; Renames is the marketplace's "renames" (old -> new).
	Remote  []RemotePlugin
	Failed  []*EntryError
	Renames map[string]string
	// Lines gives each marketplace entry's line in its marketplace file,
	// Files that file (several dialects' files may list plugins).
	Lines map[string]int
	Files map[string]string
	// Name is a marketplace's "name" in marketplace.json, as written
	// there: check it before using it as a name.
	Name string
	// Dialects are the agents whose marketplace files or plugin manifests
	// the source ships, in the order they win (marketplaces first).
	Dialects []Dialect
}

// PluginNames lists the names of the plugins in the layout, in this
// source and in other repositories.
func (l *Layout) PluginNames() []string {
	var out []string
	for _, p := range l.Plugins {
		out = append(out, p.Name)
	}
	for _, r := range l.Remote {
		out = append(out, r.Name)
	}
	return out
}

// PluginLayout is one plugin found in a source.
type PluginLayout struct {
	Name     string     // from the manifest; empty for a plain skills/ tree
	Version  string     // from the manifest, if any
	Root     string     // plugin root inside the source, slash-separated ("." for the source root)
	Manifest string     // the manifest that described it ("" for a plain tree)
	Kind     Kind       // the layout its skills were found in
	Skills   []SkillDir // sorted by name
	// LeftOut are skill folders the layout cannot take (a name a store
	// cannot hold, a symlinked folder that leads out of the plugin or
	// loops), each with its reason: the smallest part refused, not the
	// plugin. Sorted by name.
	LeftOut []SkillDir
	// Dialects are the agents whose manifests describe this plugin, the
	// one Manifest is of first.
	Dialects []Dialect
	// DefaultDisabled is set when the manifest (or the marketplace entry,
	// which wins) says "defaultEnabled": false: Claude Code installs such
	// a plugin disabled, until the user enables it.
	DefaultDisabled bool
	// Dependencies are the plugins it needs ("dependencies" of its
	// manifest and of its marketplace entry).
	Dependencies []Dependency
}

// SkillDir is one skill folder inside a source.
type SkillDir struct {
	Name string // folder name, used as the skill name
	Path string // slash-separated path from the source root
	// LeftOut, when set, says why the folder cannot be a skill (see
	// PluginLayout.LeftOut).
	LeftOut string
}

// SkippedPlugin is a marketplace entry whose files are not in the source.
type SkippedPlugin struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// ReadLayout is [Read] with only a selector: a single skill at the top of
// the source is refused, having no name.
func ReadLayout(fsys PluginFS, selector string) (*Layout, error) {
	return Read(fsys, Options{Selector: selector})
}

// Read reads the plugins a source provides, deciding its layout (see
// [Kind]): a marketplace file of any dialect (see marketplaceFormats;
// several are read together, a plugin folder once), then a plugin
// manifest of any dialect (see pluginFormats), then skills/ (with hidden
// category folders), then a SKILL.md at the top, then <name>/SKILL.md
// folders. A source that matches none gets [ErrNoSkills], which lists
// them.
func Read(fsys PluginFS, opts Options) (*Layout, error) {
	selector := opts.Selector
	var found []marketplaceFormat
	for _, f := range marketplacesOf(opts.Dialect) {
		if ok, err := exists(fsys, f.File); err != nil {
			return nil, err
		} else if ok {
			found = append(found, f)
		}
	}
	if len(found) > 0 {
		return readMarketplaces(fsys, found, selector, opts.Dialect)
	}
	p, err := readPlugin(fsys, ".", nil, opts.RootName, MarketplaceManifest, opts.Dialect)
	if err != nil {
		return nil, err
	}
	if selector != "" && selector != p.Name {
		return nil, fmt.Errorf("plugin %q not found: the source has no marketplace file (%s) and its plugin is %q", selector, strings.Join(MarketplaceFiles(), ", "), p.Name)
	}
	return &Layout{Plugins: []PluginLayout{*p}, Dialects: p.Dialects}, nil
}

// pluginManifest is the part of a plugin manifest (any dialect) we read.
type pluginManifest struct {
	Name    string          `json:"name"`
	Version string          `json:"version"`
	Skills  json.RawMessage `json:"skills"`
	// Extensions are the Agent Plugins spec's reverse-DNS extensions; one
	// may list the plugin's skills (awesome-copilot's does).
	Extensions map[string]json.RawMessage `json:"extensions"`
	// DefaultEnabled false installs the plugin disabled (Claude Code).
	DefaultEnabled *bool `json:"defaultEnabled"`
	// Dependencies are other plugins it needs (Claude Code).
	Dependencies json.RawMessage `json:"dependencies"`
}

// extensionSkills is the first "skills" list an Agent Plugins manifest's
// extensions give (keys in sorted order), nil when none does. Such a list
// names folders as a catalog's build step finds them: inside the plugin,
// or, in the catalog's source tree, from the repository's top.
func extensionSkills(ext map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(ext))
	for k := range ext {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var e struct {
			Skills json.RawMessage `json:"skills"`
		}
		if json.Unmarshal(ext[k], &e) != nil {
			continue
		}
		if paths, err := stringOrList(e.Skills); err == nil && len(paths) > 0 {
			return paths
		}
	}
	return nil
}

// readPlugin reads the plugin rooted at root. skills, when not nil, is the
// marketplace entry's skills list, given by the marketplace file entryFile
// (which errors about it name), and wins over the plugin's own manifest;
// rootName names a single skill at the source's top (see
// [Options.RootName]); d is the dialect to read the plugin in ("": any).
// The folders it found that cannot be skills go to LeftOut.
func readPlugin(fsys PluginFS, root string, skills []string, rootName, entryFile string, d Dialect) (*PluginLayout, error) {
	p, err := readPluginDirs(fsys, root, skills, rootName, entryFile, d)
	if err != nil {
		return nil, err
	}
	all := p.Skills
	p.Skills = nil
	for _, d := range all {
		if d.LeftOut != "" {
			p.LeftOut = append(p.LeftOut, d)
		} else {
			p.Skills = append(p.Skills, d)
		}
	}
	return p, nil
}

func readPluginDirs(fsys PluginFS, root string, skills []string, rootName, entryFile string, d Dialect) (*PluginLayout, error) {
	p := &PluginLayout{Root: root}
	var paths []string
	fromTop := false // paths may name folders from the source's top (extensionSkills)
	for _, m := range pluginsOf(d) {
		file := path.Join(root, m.File)
		if ok, err := exists(fsys, file); err != nil {
			return nil, &Error{File: file, Err: err}
		} else if !ok {
			continue
		}
		data, err := ReadRegular(fsys, file, safefile.ManifestLimit)
		if err != nil {
			if m.loose {
				continue
			}
			return nil, &Error{File: file, Err: err}
		}
		var pm pluginManifest
		if err := json.Unmarshal(data, &pm); err != nil || (m.loose && pm.Name == "") {
			if m.loose {
				continue
			}
			return nil, &Error{File: file, Err: jsonError(data, err)}
		}
		p.Dialects = append(p.Dialects, m.Dialect)
		if p.Manifest != "" {
			continue // the first dialect's manifest says what the plugin is
		}
		p.Name, p.Version, p.Manifest, p.Kind = pm.Name, pm.Version, file, m.Kind
		p.DefaultDisabled = pm.DefaultEnabled != nil && !*pm.DefaultEnabled
		if p.Dependencies, err = readDependencies(pm.Dependencies); err != nil {
			return nil, &Error{File: file, Err: err}
		}
		if paths, err = stringOrList(pm.Skills); err != nil {
			return nil, &Error{File: file, Err: fmt.Errorf(`"skills": %w`, err)}
		}
		if paths == nil && m.Dialect == DialectAgentPlugins {
			paths = extensionSkills(pm.Extensions)
			fromTop = paths != nil
		}
	}
	listedIn := p.Manifest
	if skills != nil {
		paths, listedIn = skills, entryFile
	}
	if paths == nil {
		kind, dirs, err := defaultSkills(fsys, root, rootName, p.Manifest != "")
		if err != nil {
			if root != "." {
				err = fmt.Errorf("%s: %w", root, err)
			}
			if p.Manifest != "" {
				return nil, &Error{File: p.Manifest, Err: err}
			}
			return nil, err
		}
		if p.Manifest == "" {
			p.Kind = kind
		}
		if len(dirs) == 0 && p.Manifest == "" {
			return nil, notFound(root)
		}
		p.Skills = dirs
		sort.Slice(p.Skills, func(i, j int) bool { return p.Skills[i].Name < p.Skills[j].Name })
		return p, nil
	}
	if skills != nil {
		p.Kind = KindMarketplaceEntry
	}
	seen := map[string]string{}
	for _, rel := range paths {
		dirs, err := skillDirs(fsys, root, rel, true)
		if err != nil && fromTop {
			if top, terr := skillDirs(fsys, ".", rel, true); terr == nil {
				dirs, err = top, nil
			}
		}
		if err != nil {
			return nil, &Error{File: listedIn, Err: err}
		}
		for _, d := range dirs {
			if prev, dup := seen[d.Name]; dup && prev != d.Path {
				return nil, &Error{File: listedIn, Err: fmt.Errorf("two skills named %q: %s and %s", d.Name, prev, d.Path)}
			} else if dup {
				continue
			}
			seen[d.Name] = d.Path
			p.Skills = append(p.Skills, d)
		}
	}
	for i, sk := range p.Skills {
		if sk.Name == "." {
			// "skills": "." — the plugin's folder is its one skill
			// (Claude Code's form): named as the plugin is.
			p.Skills[i].Name = pluginSkillName(p.Name, root, rootName)
			if err := skillfs.CheckName(p.Skills[i].Name); err != nil {
				p.Skills[i].LeftOut = fmt.Sprintf("the plugin's folder is its skill, and %q cannot name it: %v", p.Skills[i].Name, err)
			}
		}
	}
	sort.Slice(p.Skills, func(i, j int) bool { return p.Skills[i].Name < p.Skills[j].Name })
	return p, nil
}

// pluginSkillName names the skill that is a plugin's own folder: the
// plugin's name, else the folder's, else (at the source's top) rootName.
func pluginSkillName(plugin, root, rootName string) string {
	switch {
	case plugin != "":
		return plugin
	case root != ".":
		return path.Base(root)
	}
	return rootName
}

// skillDirs lists the skills that the manifest path rel (relative to the
// plugin root) names: the folder itself when it holds a SKILL.md, else its
// subfolders that do. A missing default skills/ folder is no error; a missing
// path that a manifest names is.
func skillDirs(fsys PluginFS, root, rel string, explicit bool) ([]SkillDir, error) {
	dir, err := resolveInRoot(fsys, root, rel)
	if err != nil {
		return nil, err
	}
	if !within(root, dir) {
		return nil, fmt.Errorf("%q resolves to %s, outside the plugin root %s: %w", rel, dir, root, ErrPathEscapes)
	}
	info, err := fsys.Lstat(dir)
	if err != nil {
		if !explicit && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("skills path %q: %w", rel, notExistText(err))
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("skills path %q is not a folder", rel)
	}
	if ok, err := isFile(fsys, path.Join(dir, skillmd.FileName)); err != nil {
		return nil, fmt.Errorf("skills path %q: %w", rel, err)
	} else if ok {
		return []SkillDir{{Name: path.Base(dir), Path: dir}}, nil
	}
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("skills path %q: %w", rel, err)
	}
	var out []SkillDir
	for _, e := range entries {
		sub := path.Join(dir, e.Name())
		if e.Type()&fs.ModeSymlink != 0 {
			// A symlinked skill folder must stay inside the root; one
			// that does not is left out alone.
			target, err := resolveInRoot(fsys, ".", sub)
			if err == nil && !within(root, target) {
				err = ErrPathEscapes
			}
			if err != nil {
				link, _ := fsys.ReadLink(sub)
				why := "outside the plugin root"
				if !errors.Is(err, ErrPathEscapes) {
					why = err.Error()
				}
				out = append(out, SkillDir{Name: e.Name(), Path: sub, LeftOut: fmt.Sprintf("skill folder %s is a symlink to %q, %s (never followed)", sub, link, why)})
				continue
			}
			if st, err := fsys.Lstat(target); err != nil || !st.IsDir() {
				continue
			}
			if ok, err := isFile(fsys, path.Join(target, skillmd.FileName)); err != nil {
				return nil, fmt.Errorf("skill folder %s: %w", sub, err)
			} else if ok {
				out = append(out, SkillDir{Name: e.Name(), Path: target})
			}
			continue
		}
		if !e.IsDir() {
			continue
		}
		if ok, err := isFile(fsys, path.Join(sub, skillmd.FileName)); err != nil {
			return nil, fmt.Errorf("skill folder %s: %w", sub, err)
		} else if ok {
			out = append(out, SkillDir{Name: e.Name(), Path: sub})
		}
	}
	for i, d := range out {
		if err := skillfs.CheckName(d.Name); err != nil && d.LeftOut == "" {
			out[i].LeftOut = fmt.Sprintf("skill folder %q: %v; a store names a skill by its folder", d.Path, err)
		}
	}
	return out, nil
}

// resolveInRoot joins rel to base and resolves every symlink on the way,
// refusing a result outside the source root. The result is clean and
// slash-separated ("." for the root).
func resolveInRoot(fsys PluginFS, base, rel string) (string, error) {
	if rel == "" {
		return "", errors.New("empty path")
	}
	if strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, `\`) || (len(rel) > 1 && rel[1] == ':') {
		return "", fmt.Errorf("%q: %w (absolute paths are not allowed)", rel, ErrPathEscapes)
	}
	joined := path.Join(base, strings.ReplaceAll(rel, `\`, "/"))
	if escapes(joined) {
		return "", fmt.Errorf("%q: %w", rel, ErrPathEscapes)
	}
	resolved := "."
	parts := strings.Split(joined, "/")
	for hops := 0; len(parts) > 0; {
		part := parts[0]
		parts = parts[1:]
		if part == "." || part == "" {
			continue
		}
		next := path.Join(resolved, part)
		info, err := fsys.Lstat(next)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			resolved = next // a missing path is reported by the caller
			continue
		}
		if hops++; hops > 40 {
			return "", fmt.Errorf("%q: too many levels of symbolic links", rel)
		}
		target, err := fsys.ReadLink(next)
		if err != nil {
			return "", fmt.Errorf("%q: %w", rel, err)
		}
		if path.IsAbs(target) {
			return "", fmt.Errorf("%q: symlink %s points to %s: %w", rel, next, target, ErrPathEscapes)
		}
		t := path.Join(resolved, target)
		if escapes(t) {
			return "", fmt.Errorf("%q: symlink %s points to %s: %w", rel, next, target, ErrPathEscapes)
		}
		parts = append(strings.Split(t, "/"), parts...)
		resolved = "."
	}
	return resolved, nil
}

// within reports whether the clean path p is root or below it.
func within(root, p string) bool {
	return root == "." || p == root || strings.HasPrefix(p, root+"/")
}

func escapes(p string) bool { return p == ".." || strings.HasPrefix(p, "../") }

// stringOrList decodes a manifest field that is a path or a list of paths.
// A missing or null field gives nil.
func stringOrList(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, errors.New("must be a path or a list of paths")
	}
	if list == nil {
		list = []string{}
	}
	return list, nil
}

// jsonError adds the line number to a JSON syntax or type error.
func jsonError(data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	line := 1 + strings.Count(string(data[:min(int(off), len(data))]), "\n")
	return fmt.Errorf("line %d: invalid JSON: %w", line, err)
}

func notExistText(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New("no such folder")
	}
	return err
}

// ReadRegular reads name from fsys when it is a regular file (no symlink,
// FIFO or device) of at most limit bytes. A plugin's files come from its
// author, who can make a manifest a blob of gigabytes or, in a folder, a
// FIFO; the size is checked before the read (a git tree knows it) and
// again after it. The error wraps safefile.ErrNotRegular or
// safefile.ErrTooLarge.
func ReadRegular(fsys PluginFS, name string, limit int64) ([]byte, error) {
	info, err := fsys.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, safefile.NotRegular(name, info.Mode())
	}
	if info.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: %d bytes, over %s", safefile.ErrTooLarge, info.Size(), safefile.Size(limit))}
	}
	data, err := fsys.ReadFile(name)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: over %s", safefile.ErrTooLarge, safefile.Size(limit))}
	}
	return data, nil
}

// exists reports whether name is in fsys. Only "does not exist" counts as
// absence: any other error (an object of a git tree that cannot be read, a
// folder that cannot be listed) is returned, so a skill whose folder cannot
// be read fails its plugin instead of reading as removed upstream.
func exists(fsys PluginFS, name string) (bool, error) {
	_, err := fsys.Lstat(name)
	return err == nil, absent(err)
}

// isFile reports whether name is a regular file in fsys (errors as exists).
func isFile(fsys PluginFS, name string) (bool, error) {
	info, err := fsys.Lstat(name)
	return err == nil && info.Mode().IsRegular(), absent(err)
}

// absent is err unless it says the path is not there.
func absent(err error) error {
	if err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil
	}
	return err
}
