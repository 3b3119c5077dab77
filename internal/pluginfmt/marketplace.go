package pluginfmt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/internal/safefile"
)

// marketplaceManifest is the part of a marketplace file (any dialect) we read.
type marketplaceManifest struct {
	Name     string `json:"name"`
	Metadata struct {
		PluginRoot string `json:"pluginRoot"`
	} `json:"metadata"`
	Plugins []json.RawMessage `json:"plugins"`
	// Renames maps a plugin's old name to its new one.
	Renames map[string]json.RawMessage `json:"renames"`
}

// marketplaceEntry is one plugin of a marketplace. Source is a relative path
// ("./plugins/x", or a bare name under metadata.pluginRoot) or an object
// naming another repository ({"source": "github", "repo": ...}).
type marketplaceEntry struct {
	Name    string          `json:"name"`
	Version string          `json:"version"`
	Source  json.RawMessage `json:"source"`
	Skills  json.RawMessage `json:"skills"`
	// DefaultEnabled and Dependencies, when given, say of the plugin what
	// its plugin.json may say (Claude Code); the entry's win.
	DefaultEnabled *bool           `json:"defaultEnabled"`
	Dependencies   json.RawMessage `json:"dependencies"`
}

// ErrRenamed is wrapped when SOURCE#name picks a plugin the marketplace
// lists under a new name in its "renames".
var ErrRenamed = errors.New("the marketplace renamed this plugin")

// EntryError is a problem with one plugin of a marketplace: its entry (at
// Line of marketplace.json) or what its source holds. The other plugins of
// the marketplace are not affected.
type EntryError struct {
	Plugin string
	File   string // the marketplace file ("": MarketplaceManifest)
	Line   int    // 0 when unknown
	Err    error
}

func (e *EntryError) Error() string {
	where := e.File
	if where == "" {
		where = MarketplaceManifest
	}
	if e.Line > 0 {
		where += fmt.Sprintf(" line %d", e.Line)
	}
	return fmt.Sprintf("plugin %q (%s): %v", e.Plugin, where, e.Err)
}

func (e *EntryError) Unwrap() error { return e.Err }

// readMarketplaces reads the marketplace files a source ships (found, in
// the order of marketplaceFormats) as one layout: a plugin folder that
// several list is one plugin, under the name the first gives it. With a
// selector, the first file that lists the plugin is read.
func readMarketplaces(fsys PluginFS, found []marketplaceFormat, selector string, d Dialect) (*Layout, error) {
	var dialects []Dialect
	for _, f := range found {
		dialects = append(dialects, f.Dialect)
	}
	if selector != "" {
		var first error
		for _, f := range found {
			l, err := readMarketplace(fsys, f.File, selector, d)
			if err == nil {
				l.Dialects = withPluginDialects(dialects, l.Plugins)
				return l, nil
			}
			if first == nil {
				first = err
			}
		}
		return nil, first
	}
	var merged *Layout
	var firstErr error
	for _, f := range found {
		l, err := readMarketplace(fsys, f.File, "", d)
		if err != nil {
			// One dialect's file that cannot be read does not hide the
			// plugins the others list.
			if firstErr == nil {
				firstErr = err
			}
			if merged != nil {
				merged.Failed = append(merged.Failed, &EntryError{Plugin: "*", File: f.File, Err: err})
			}
			continue
		}
		if merged == nil {
			merged = l
			if firstErr != nil {
				merged.Failed = append(merged.Failed, &EntryError{Plugin: "*", File: found[0].File, Err: firstErr})
			}
			continue
		}
		merged.merge(l, f.File)
	}
	if merged == nil {
		return nil, firstErr
	}
	merged.Dialects = withPluginDialects(dialects, merged.Plugins)
	return merged, nil
}

// withPluginDialects is ds and, after them, the dialects of the plugins'
// own manifests, each once.
func withPluginDialects(ds []Dialect, plugins []PluginLayout) []Dialect {
	out := slices.Clone(ds)
	for _, p := range plugins {
		for _, d := range p.Dialects {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// merge adds to l what other, read from another dialect's marketplace
// file, lists beyond it: a plugin folder l has already is the same
// plugin; a name l gives another folder is a conflict, named; a remote
// or skipped entry of a name l has is the same entry.
func (l *Layout) merge(other *Layout, file string) {
	roots := map[string]string{}
	names := map[string]bool{}
	for _, p := range l.Plugins {
		roots[p.Root] = p.Name
		names[p.Name] = true
	}
	for _, r := range l.Remote {
		names[r.Name] = true
	}
	for _, sk := range l.Skipped {
		names[sk.Name] = true
	}
	for _, p := range other.Plugins {
		if _, same := roots[p.Root]; same {
			continue
		}
		if names[p.Name] {
			l.Failed = append(l.Failed, &EntryError{Plugin: p.Name, File: file, Line: other.Lines[p.Name],
				Err: fmt.Errorf("folder %s: another marketplace file of this source gives that name to another plugin", p.Root)})
			continue
		}
		roots[p.Root], names[p.Name] = p.Name, true
		l.Plugins = append(l.Plugins, p)
		if line, ok := other.Lines[p.Name]; ok {
			l.Lines[p.Name] = line
		}
		l.Files[p.Name] = file
	}
	for _, r := range other.Remote {
		if !names[r.Name] {
			names[r.Name] = true
			l.Remote = append(l.Remote, r)
		}
	}
	for _, sk := range other.Skipped {
		if !names[sk.Name] {
			names[sk.Name] = true
			l.Skipped = append(l.Skipped, sk)
		}
	}
	l.Failed = append(l.Failed, other.Failed...)
	for old, nu := range other.Renames {
		if l.Renames == nil {
			l.Renames = map[string]string{}
		}
		if _, ok := l.Renames[old]; !ok {
			l.Renames[old] = nu
		}
	}
}

func readMarketplace(fsys PluginFS, file, selector string, d Dialect) (*Layout, error) {
	data, err := ReadRegular(fsys, file, safefile.RecordLimit)
	if err != nil {
		return nil, &Error{File: file, Err: err}
	}
	var m marketplaceManifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, &Error{File: file, Err: jsonError(data, err)}
	}
	if len(m.Plugins) == 0 {
		return nil, &Error{File: file, Err: fmt.Errorf(`"plugins" lists no plugin`)}
	}
	lines := entryLines(data)
	layout := &Layout{Renames: readRenames(m.Renames), Lines: map[string]int{}, Files: map[string]string{}, Name: m.Name}
	var names []string
	seen := map[string]bool{}
	for i, raw := range m.Plugins {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		var e marketplaceEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			layout.fail(file, fmt.Sprintf("plugins[%d]", i), line, fmt.Errorf("the entry must be an object with \"name\" and \"source\""))
			continue
		}
		if e.Name == "" {
			layout.fail(file, fmt.Sprintf("plugins[%d]", i), line, errors.New(`no "name"`))
			continue
		}
		if seen[e.Name] {
			layout.fail(file, e.Name, line, errors.New("a plugin of that name is listed above"))
			continue
		}
		seen[e.Name] = true
		names = append(names, e.Name)
		if line > 0 {
			layout.Lines[e.Name] = line
		}
		layout.Files[e.Name] = file
		if selector != "" && e.Name != selector {
			continue
		}
		err := layout.readEntry(fsys, file, m.Metadata.PluginRoot, e, line, d)
		if err != nil && selector != "" {
			if _, ok := err.(*Error); ok {
				return nil, err
			}
			return nil, &Error{File: file, Err: fmt.Errorf("plugin %q: %w", e.Name, err)}
		}
		if err != nil {
			layout.fail(file, e.Name, line, err)
		}
	}
	if selector != "" && len(layout.Plugins)+len(layout.Remote) == 0 {
		if len(layout.Skipped) > 0 {
			return nil, &Error{File: file, Err: fmt.Errorf("plugin %q cannot be added: %s", selector, layout.Skipped[0].Reason)}
		}
		for old, nu := range layout.Renames {
			if old == selector && seen[nu] {
				return nil, &Error{File: file, Err: fmt.Errorf("no plugin named %q: it is now %q (%w)", selector, nu, ErrRenamed)}
			}
		}
		sort.Strings(names)
		return nil, &Error{File: file, Err: fmt.Errorf("no plugin named %q (plugins: %s)", selector, strings.Join(names, ", "))}
	}
	return layout, nil
}

// readEntry adds entry e to the layout: a plugin in this source (with or
// without skills), a remote one, or a skipped one.
func (l *Layout) readEntry(fsys PluginFS, file, pluginRoot string, e marketplaceEntry, line int, d Dialect) error {
	skills, err := stringOrList(e.Skills)
	if err != nil {
		return fmt.Errorf(`"skills": %w`, err)
	}
	deps, err := readDependencies(e.Dependencies)
	if err != nil {
		return err
	}
	root, remote, err := entryRoot(fsys, pluginRoot, e)
	if err != nil {
		return err
	}
	if remote != nil {
		r, reason, err := remote.plugin(e, skills, line)
		r.File, r.DefaultEnabled, r.Dependencies = file, e.DefaultEnabled, deps
		switch {
		case err != nil:
			return err
		case reason != "":
			l.Skipped = append(l.Skipped, SkippedPlugin{Name: e.Name, Reason: reason})
		default:
			l.Remote = append(l.Remote, r)
		}
		return nil
	}
	p, err := readPlugin(fsys, root, skills, "", file, d)
	if errors.Is(err, ErrNoSkills) {
		// A plugin of commands, agents, hooks or servers only: what the
		// agent installs, so it is read too (its files are its parts);
		// the caller decides whether to take it.
		p, err = &PluginLayout{Root: root, Kind: KindMarketplaceEntry}, nil
	}
	if err != nil {
		return err
	}
	p.Name = e.Name
	if e.Version != "" {
		p.Version = e.Version
	}
	p.Entry(e.DefaultEnabled, deps)
	if p.Manifest == "" || skills != nil {
		p.Manifest = file
	}
	l.Plugins = append(l.Plugins, *p)
	return nil
}

// NoSkillsReason is why a marketplace plugin without skills is skipped
// when only plugins with skills are asked for.
const NoSkillsReason = "it holds no skills (commands, agents, hooks or servers only)"

// EmptyReason is why a marketplace plugin whose folder holds nothing to
// store is skipped.
const EmptyReason = "its folder holds neither skills nor other files"

func (l *Layout) fail(file, name string, line int, err error) {
	if me, ok := err.(*Error); ok && me.File == file {
		err = me.Err // the entry error names the file already
	}
	l.Failed = append(l.Failed, &EntryError{Plugin: name, File: file, Line: line, Err: err})
}

// readRenames keeps the string values of "renames"; anything else is not
// a rename and is ignored.
func readRenames(raw map[string]json.RawMessage) map[string]string {
	out := map[string]string{}
	for old, v := range raw {
		var nu string
		if json.Unmarshal(v, &nu) == nil && nu != "" && nu != old {
			out[old] = nu
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// localSource is the kind of a source object naming a folder of the
// marketplace's own repository (Codex's marketplace).
const localSource = "local"

// entryRoot resolves a marketplace entry's source to a plugin root inside
// the source, or returns the remote source it names.
func entryRoot(fsys PluginFS, pluginRoot string, e marketplaceEntry) (string, *remoteSource, error) {
	if len(e.Source) == 0 || string(e.Source) == "null" {
		return "", nil, fmt.Errorf(`no "source"`)
	}
	var rel string
	if err := json.Unmarshal(e.Source, &rel); err != nil {
		var r remoteSource
		if err := json.Unmarshal(e.Source, &r); err != nil {
			return "", nil, fmt.Errorf(`"source" must be a relative path or a source object`)
		}
		if (r.Source == "" || r.Source == localSource) && r.Path != "" && r.URL == "" && r.Repo == "" {
			rel = r.Path // {"path": "./x"} or Codex's {"source": "local", "path": "./x"}
		} else {
			return "", &r, nil
		}
	}
	if pluginRoot != "" && !strings.HasPrefix(rel, "./") && !strings.HasPrefix(rel, "../") && !path.IsAbs(rel) && rel != "." {
		rel = path.Join(pluginRoot, rel)
	}
	root, err := resolveInRoot(fsys, ".", rel)
	if err != nil {
		return "", nil, fmt.Errorf(`"source": %w`, err)
	}
	info, err := fsys.Lstat(root)
	if err != nil || !info.IsDir() {
		return "", nil, fmt.Errorf(`"source" %q: no such folder in the source`, rel)
	}
	return root, nil, nil
}

// entryLines returns the line of each element of the top-level "plugins"
// array, in order; nil when the file cannot be walked. Lines are counted
// on from one element to the next: one pass over the file.
func entryLines(data []byte) []int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key != "plugins" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return nil
		}
		var lines []int
		line, counted := 1, 0 // the line at data[counted]
		for dec.More() {
			off := int(dec.InputOffset())
			for off < len(data) && strings.ContainsRune(" \t\r\n,", rune(data[off])) {
				off++
			}
			line += bytes.Count(data[counted:off], []byte("\n"))
			counted = off
			lines = append(lines, line)
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return lines
			}
		}
		return lines
	}
	return nil
}

// PluginRoots lists the folders of the plugins that the marketplace files
// at fsys's top (any dialect's) list in fsys itself, sorted, each once:
// what a plugin's parts leave out when they hold them. It reads the
// marketplace files only, not the plugins; an entry that cannot be read
// is not listed.
func PluginRoots(fsys PluginFS) []string {
	seen := map[string]bool{}
	for _, f := range marketplaceFormats {
		data, err := ReadRegular(fsys, f.File, safefile.RecordLimit)
		if err != nil {
			continue
		}
		var m marketplaceManifest
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		for _, raw := range m.Plugins {
			var e marketplaceEntry
			if json.Unmarshal(raw, &e) != nil {
				continue
			}
			if root, remote, err := entryRoot(fsys, m.Metadata.PluginRoot, e); err == nil && remote == nil {
				seen[root] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for r := range seen {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}
