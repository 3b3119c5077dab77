package pluginfmt

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/internal/safefile"
)

// marketplaceManifest is the part of .claude-plugin/marketplace.json we read.
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
}

// ErrRenamed is wrapped when SOURCE#name picks a plugin the marketplace
// lists under a new name in its "renames".
var ErrRenamed = errors.New("the marketplace renamed this plugin")

// EntryError is a problem with one plugin of a marketplace: its entry (at
// Line of marketplace.json) or what its source holds. The other plugins of
// the marketplace are not affected.
type EntryError struct {
	Plugin string
	Line   int // 0 when unknown
	Err    error
}

func (e *EntryError) Error() string {
	where := MarketplaceManifest
	if e.Line > 0 {
		where += fmt.Sprintf(" line %d", e.Line)
	}
	return fmt.Sprintf("plugin %q (%s): %v", e.Plugin, where, e.Err)
}

func (e *EntryError) Unwrap() error { return e.Err }

func readMarketplace(fsys PluginFS, selector string) (*Layout, error) {
	file := MarketplaceManifest
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
	layout := &Layout{Renames: readRenames(m.Renames), Lines: map[string]int{}, Name: m.Name}
	var names []string
	seen := map[string]bool{}
	for i, raw := range m.Plugins {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		var e marketplaceEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			layout.fail(fmt.Sprintf("plugins[%d]", i), line, fmt.Errorf("the entry must be an object with \"name\" and \"source\""))
			continue
		}
		if e.Name == "" {
			layout.fail(fmt.Sprintf("plugins[%d]", i), line, errors.New(`no "name"`))
			continue
		}
		if seen[e.Name] {
			layout.fail(e.Name, line, errors.New("a plugin of that name is listed above"))
			continue
		}
		seen[e.Name] = true
		names = append(names, e.Name)
		if line > 0 {
			layout.Lines[e.Name] = line
		}
		if selector != "" && e.Name != selector {
			continue
		}
		err := layout.readEntry(fsys, m.Metadata.PluginRoot, e, line, selector != "")
		if err != nil && selector != "" {
			if _, ok := err.(*Error); ok {
				return nil, err
			}
			return nil, &Error{File: file, Err: fmt.Errorf("plugin %q: %w", e.Name, err)}
		}
		if err != nil {
			layout.fail(e.Name, line, err)
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

// readEntry adds entry e to the layout: a plugin in this source, a remote
// one, or a skipped one. picked is true when SOURCE#name chose it.
func (l *Layout) readEntry(fsys PluginFS, pluginRoot string, e marketplaceEntry, line int, picked bool) error {
	skills, err := stringOrList(e.Skills)
	if err != nil {
		return fmt.Errorf(`"skills": %w`, err)
	}
	root, remote, err := entryRoot(fsys, pluginRoot, e)
	if err != nil {
		return err
	}
	if remote != nil {
		r, reason, err := remote.plugin(e, skills, line)
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
	p, err := readPlugin(fsys, root, skills)
	if errors.Is(err, ErrNoSkills) && !picked {
		l.Skipped = append(l.Skipped, SkippedPlugin{Name: e.Name, Reason: NoSkillsReason})
		return nil
	}
	if err != nil {
		return err
	}
	if len(p.Skills) == 0 && !picked {
		l.Skipped = append(l.Skipped, SkippedPlugin{Name: e.Name, Reason: NoSkillsReason})
		return nil
	}
	p.Name = e.Name
	if e.Version != "" {
		p.Version = e.Version
	}
	if p.Manifest == "" || skills != nil {
		p.Manifest = MarketplaceManifest
	}
	l.Plugins = append(l.Plugins, *p)
	return nil
}

// NoSkillsReason is why a marketplace plugin without skills is skipped.
const NoSkillsReason = "it holds no skills (commands, agents, hooks or servers only)"

func (l *Layout) fail(name string, line int, err error) {
	if me, ok := err.(*Error); ok && me.File == MarketplaceManifest {
		err = me.Err // the entry error names the file already
	}
	l.Failed = append(l.Failed, &EntryError{Plugin: name, Line: line, Err: err})
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
		if r.Source == "" && r.Path != "" && r.URL == "" && r.Repo == "" {
			rel = r.Path // {"path": "./x"}: a local path in object form
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
// array, in order; nil when the file cannot be walked.
func entryLines(data []byte) []int {
	dec := json.NewDecoder(strings.NewReader(string(data)))
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
		for dec.More() {
			off := int(dec.InputOffset())
			for off < len(data) && strings.ContainsRune(" \t\r\n,", rune(data[off])) {
				off++
			}
			lines = append(lines, 1+strings.Count(string(data[:off]), "\n"))
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return lines
			}
		}
		return lines
	}
	return nil
}
