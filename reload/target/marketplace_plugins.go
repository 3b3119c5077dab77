package target

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
)

// exportPlugin is one plugin folder of a marketplace target: the plugin's
// published skills and, when the store holds them, its other parts (the
// pseudo-skill PLUGIN:_plugin).
type exportPlugin struct {
	ID     string
	Skills []pluginSkill // sorted by short name
	// Parts is the tree of the plugin's parts version (zero: none stored).
	Parts store.Hash
	// Record is the store's plugin record; nil for the managed skills'
	// plugin.
	Record *plugins.Plugin
}

// pluginSkill is one published skill of an exported plugin.
type pluginSkill struct {
	Short string // its folder name under skills/
	Name  string // its store name
	Tree  store.Hash
}

// ManifestNameError refuses a plugin whose manifest names another plugin
// than its store id: the agent would name its skills after the manifest,
// and the catalog entry after the id.
type ManifestNameError struct {
	Plugin, Manifest string
}

func (e *ManifestNameError) Error() string {
	return fmt.Sprintf("plugin %q: its manifest names it %q; a marketplace entry and its plugin.json must agree (re-add the plugin under the id %q)", e.Plugin, e.Manifest, e.Manifest)
}

// marketplacePlugins groups the active published skills t wants by the
// plugin owning them. A plugin skill's owner comes from its qualified name
// ("PLUGIN:NAME"), or, in a store whose plugin skills still have short
// names, from [store.Reader.SkillOwner].
// Managed skills go to t.ManagedPlugin, or are left out without it.
func marketplacePlugins(ctx context.Context, s *store.Store, t Target) ([]*exportPlugin, error) {
	byID := map[string]*exportPlugin{}
	get := func(id string) *exportPlugin {
		if byID[id] == nil {
			byID[id] = &exportPlugin{ID: id}
		}
		return byID[id]
	}
	err := s.View(ctx, func(r *store.Reader) error {
		records, err := plugins.List(r)
		if err != nil {
			return err
		}
		owner := map[string]*plugins.Plugin{}
		for _, p := range records {
			for _, sk := range p.Skills {
				owner[sk] = p
			}
		}
		infos, err := r.List(false)
		if err != nil {
			return err
		}
		for _, info := range infos {
			if info.Status != store.StatusActive || store.IsPluginParts(info.Name) {
				continue
			}
			id, short := store.SplitName(info.Name)
			if p := owner[info.Name]; id == "" && p != nil {
				// A short name a plugin lists: its skill in a store whose
				// plugin skills still have short names (ref layout 1), or
				// a managed skill of the same name beside PLUGIN:NAME.
				o, err := plugins.SkillOwner(r, info.Name)
				if err != nil {
					return err
				}
				if o == p.Label() {
					id = p.ID
				}
			}
			// --skills patterns match the store name or, in a store whose
			// plugin skills still have short names, the qualified one.
			if !t.Wants(info.Name) && !t.Wants(store.QualifiedName(id, short)) {
				continue
			}
			if id == "" {
				if t.ManagedPlugin == "" {
					continue
				}
				id = t.ManagedPlugin
			}
			ep := get(id)
			ep.Skills = append(ep.Skills, pluginSkill{Short: short, Name: info.Name, Tree: info.Tree})
		}
		for _, p := range records {
			if p.Disabled {
				delete(byID, p.ID)
				continue
			}
			parts := store.QualifiedName(p.ID, store.PluginPartsName)
			v, err := r.Head(parts)
			var unknown *store.UnknownSkillError
			switch {
			case errors.As(err, &unknown):
			case err != nil:
				return err
			case t.Wants(parts):
				get(p.ID).Parts = v.Tree
			}
			if ep := byID[p.ID]; ep != nil {
				ep.Record = p
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if ep := byID[t.ManagedPlugin]; t.ManagedPlugin != "" && ep != nil && ep.Record != nil {
		return nil, fmt.Errorf("target %s: the managed skills' plugin %q is also a plugin in the store; pick another name", t.Name, t.ManagedPlugin)
	}
	out := make([]*exportPlugin, 0, len(byID))
	for _, ep := range byID {
		sort.Slice(ep.Skills, func(i, j int) bool { return ep.Skills[i].Short < ep.Skills[j].Short })
		out = append(out, ep)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// composed is a plugin folder as export writes it.
type composed struct {
	Files []skillfs.File // with Data only when loaded
	// Version is the plugin's own version (its manifest's, else its
	// record's, else 0.0.0) with the content's tree id as build metadata
	// (see entryVersion): the version plugin.json and the catalog carry.
	Version     string
	Description string
	// Manifest is the plugin.json written.
	Manifest []byte
}

// compose lays out ep's folder: the parts (what fl's agent reads), the
// manifest rewritten for the catalog, and each skill under skills/NAME/.
// With load, files carry their content; without, only their blob ids,
// enough for the folder's tree id.
func (ep *exportPlugin) compose(r *store.Reader, fl flavor, load bool) (*composed, error) {
	var files []skillfs.File
	var manifest map[string]json.RawMessage
	if !ep.Parts.IsZero() {
		parts, err := r.Files(ep.Parts)
		if err != nil {
			return nil, fmt.Errorf("plugin %s: parts: %w", ep.ID, err)
		}
		for _, f := range parts {
			if f.Path == ".claude-plugin/plugin.json" || f.Path == fl.manifestDir+"/plugin.json" {
				data, err := r.Blob(f.ID)
				if err != nil {
					return nil, fmt.Errorf("plugin %s: %s: %w", ep.ID, f.Path, err)
				}
				// The agent's own manifest wins over Claude Code's.
				if manifest == nil || f.Path == fl.manifestDir+"/plugin.json" {
					manifest = nil
					if err := json.Unmarshal(data, &manifest); err != nil {
						return nil, fmt.Errorf("plugin %s: %s: %w", ep.ID, f.Path, err)
					}
				}
				continue
			}
			if strings.HasPrefix(f.Path, "skills/") || !fl.parts(f.Path) {
				continue
			}
			files = append(files, f)
		}
	}
	for _, sk := range ep.Skills {
		sf, err := r.Files(sk.Tree)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sk.Name, err)
		}
		for _, f := range sf {
			f.Path = path.Join("skills", sk.Short, f.Path)
			files = append(files, f)
		}
	}
	skillfs.Sort(files)
	// The folder's content without its manifest, which the manifest's
	// version names.
	content, err := skillfs.TreeID(files)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", ep.ID, err)
	}
	c, data, err := ep.manifest(manifest, fl, files, content)
	if err != nil {
		return nil, err
	}
	c.Manifest = data
	files = append(files, skillfs.File{Path: fl.manifestDir + "/plugin.json", Mode: skillfs.Regular, ID: skillfs.BlobID(data), Data: data, Size: int64(len(data))})
	if load {
		for i := range files {
			if files[i].Data != nil {
				continue
			}
			if files[i].Data, err = r.Blob(files[i].ID); err != nil {
				return nil, fmt.Errorf("plugin %s: %s: %w", ep.ID, files[i].Path, err)
			}
		}
	}
	skillfs.Sort(files)
	c.Files = files
	return c, nil
}

// manifest is the plugin.json export writes: the plugin's own (from its
// parts) or one made from its record, named after the plugin, without
// custom skill paths (the skills sit in the default skills/), and with a
// version that changes with the folder's content (content is the tree id
// of the folder without its manifest): both agents install each plugin
// version into a cache folder of its own and update only when the version
// changes.
func (ep *exportPlugin) manifest(m map[string]json.RawMessage, fl flavor, parts []skillfs.File, content skillfs.ID) (*composed, []byte, error) {
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	str := func(key string) string {
		var v string
		if raw, ok := m[key]; ok {
			_ = json.Unmarshal(raw, &v)
		}
		return v
	}
	if name := str("name"); name != "" && name != ep.ID {
		return nil, nil, &ManifestNameError{Plugin: ep.ID, Manifest: name}
	}
	c := &composed{Version: str("version"), Description: str("description")}
	if c.Version == "" && ep.Record != nil {
		c.Version = ep.Record.Version
	}
	if c.Version == "" {
		c.Version = "0.0.0"
	}
	if c.Description == "" {
		c.Description = ep.defaultDescription()
	}
	set := func(key string, v any) {
		raw, _ := json.Marshal(v)
		m[key] = raw
	}
	c.Version = entryVersion(c.Version, content)
	set("name", ep.ID)
	set("version", c.Version)
	set("description", c.Description)
	if _, ok := m["author"]; !ok {
		set("author", map[string]string{"name": "skillstore"})
	}
	delete(m, "skills")
	if fl.manifestDir == ".codex-plugin" {
		set("skills", "./skills/")
		if _, ok := skillfs.Find(parts, ".mcp.json"); ok {
			set("mcpServers", "./.mcp.json")
		}
		delete(m, "hooks")
		delete(m, "commands")
		delete(m, "agents")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, nil, err
	}
	return c, buf.Bytes(), nil
}

func (ep *exportPlugin) defaultDescription() string {
	if ep.Record == nil {
		return "Managed skills exported by skillstore"
	}
	return "Plugin " + ep.ID + " exported by skillstore"
}

// folder is ep as the reload.Skill export switches (named after the
// plugin), with the tree id computed from blob ids alone so that an
// unchanged plugin is never loaded.
func (ep *exportPlugin) folder(ctx context.Context, s *store.Store, fl flavor) (reload.Skill, *composed, error) {
	var c *composed
	err := s.View(ctx, func(r *store.Reader) error {
		var err error
		c, err = ep.compose(r, fl, false)
		return err
	})
	if err != nil {
		return reload.Skill{}, nil, err
	}
	id, err := skillfs.TreeID(c.Files)
	if err != nil {
		return reload.Skill{}, nil, fmt.Errorf("plugin %s: %w", ep.ID, err)
	}
	return reload.Skill{Name: ep.ID, Tree: id, Load: func() ([]skillfs.File, error) {
		var files []skillfs.File
		err := s.View(ctx, func(r *store.Reader) error {
			full, err := ep.compose(r, fl, true)
			if full != nil {
				files = full.Files
			}
			return err
		})
		return files, err
	}}, c, nil
}

// pluginHotFile says which content-only edits in a plugin folder a running
// agent takes as hot: a skill's SKILL.md text.
func pluginHotFile(p string) bool {
	rest, ok := strings.CutPrefix(p, "skills/")
	if !ok {
		return false
	}
	_, file, ok := strings.Cut(rest, "/")
	return ok && file == skillmd.FileName
}
