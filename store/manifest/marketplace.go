package manifest

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
)

// marketplaceManifest is the part of .claude-plugin/marketplace.json we read.
type marketplaceManifest struct {
	Name     string `json:"name"`
	Metadata struct {
		PluginRoot string `json:"pluginRoot"`
	} `json:"metadata"`
	Plugins []marketplaceEntry `json:"plugins"`
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

// remoteSource is the object form of a marketplace entry's source.
type remoteSource struct {
	Source string `json:"source"`
	Repo   string `json:"repo"`
	URL    string `json:"url"`
	Path   string `json:"path"`
	Ref    string `json:"ref"`
	SHA    string `json:"sha"`
}

func (r remoteSource) String() string {
	where := r.URL
	if r.Repo != "" {
		where = "https://github.com/" + r.Repo + ".git"
	}
	if where == "" {
		return r.Source
	}
	return r.Source + " " + where
}

func readMarketplace(fsys PluginFS, selector string) (*Layout, error) {
	file := MarketplaceManifest
	data, err := fsys.ReadFile(file)
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
	layout := &Layout{}
	var names []string
	seen := map[string]bool{}
	for i, e := range m.Plugins {
		if e.Name == "" {
			return nil, &Error{File: file, Err: fmt.Errorf("plugins[%d] has no name", i)}
		}
		if seen[e.Name] {
			return nil, &Error{File: file, Err: fmt.Errorf("two plugins named %q", e.Name)}
		}
		seen[e.Name] = true
		names = append(names, e.Name)
		if selector != "" && e.Name != selector {
			continue
		}
		root, remote, err := entryRoot(fsys, m.Metadata.PluginRoot, e)
		if err != nil {
			return nil, &Error{File: file, Err: fmt.Errorf("plugin %q: %w", e.Name, err)}
		}
		if remote != nil {
			reason := fmt.Sprintf("its source is %s: add that repository with 'skillstore plugin add'", remote)
			if selector != "" {
				return nil, &Error{File: file, Err: fmt.Errorf("plugin %q is not in this source: %s", e.Name, reason)}
			}
			layout.Skipped = append(layout.Skipped, SkippedPlugin{Name: e.Name, Reason: reason})
			continue
		}
		skills, err := stringOrList(e.Skills)
		if err != nil {
			return nil, &Error{File: file, Err: fmt.Errorf("plugin %q: \"skills\": %w", e.Name, err)}
		}
		p, err := readPlugin(fsys, root, skills)
		if err != nil {
			if _, ok := err.(*Error); ok {
				return nil, err
			}
			return nil, &Error{File: file, Err: fmt.Errorf("plugin %q: %w", e.Name, err)}
		}
		p.Name = e.Name
		if e.Version != "" {
			p.Version = e.Version
		}
		if p.Manifest == "" || skills != nil {
			p.Manifest = file
		}
		layout.Plugins = append(layout.Plugins, *p)
	}
	if selector != "" && len(layout.Plugins) == 0 {
		sort.Strings(names)
		return nil, &Error{File: file, Err: fmt.Errorf("no plugin named %q (plugins: %s)", selector, strings.Join(names, ", "))}
	}
	return layout, nil
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
