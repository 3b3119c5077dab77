package target

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/internal/pluginfmt"
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
	// LeftOut is what the target's format cannot say of the plugin.
	LeftOut []LeftOut
}

// LeftOut is what a marketplace target's format cannot say of one plugin:
// parts left out of its folder, or keys of its manifest left out of the
// one written, and why.
type LeftOut struct {
	Plugin string   `json:"plugin"`
	Paths  []string `json:"paths"`
	Why    string   `json:"why"`
}

// compose lays out ep's folder in fl's format: the parts, each where fl's
// agent reads it (or left out, saying why), the manifest translated for
// the catalog, and each skill under skills/NAME/. A plugin that came in
// with fl's own manifest keeps its parts where they are. With load, files
// carry their content; without, only their blob ids, enough for the
// folder's tree id.
func (ep *exportPlugin) compose(r *store.Reader, fl *flavor, load bool) (*composed, error) {
	if fl.checkID != nil {
		if err := fl.checkID(ep.ID); err != nil {
			return nil, err
		}
	}
	var parts []skillfs.File
	if !ep.Parts.IsZero() {
		all, err := r.Files(ep.Parts)
		if err != nil {
			return nil, fmt.Errorf("plugin %s: parts: %w", ep.ID, err)
		}
		for _, f := range all {
			if !strings.HasPrefix(f.Path, "skills/") {
				parts = append(parts, f)
			}
		}
	}
	// The agents' manifests among the parts; the one translated is fl's
	// own, else the first in the table's order.
	manifests := map[*flavor]manifestDoc{}
	var base *flavor
	for i := range flavors {
		f := &flavors[i]
		file, ok := skillfs.Find(parts, f.manifest)
		if !ok {
			continue
		}
		data, err := r.Blob(file.ID)
		if err != nil {
			return nil, fmt.Errorf("plugin %s: %s: %w", ep.ID, f.manifest, err)
		}
		var m manifestDoc
		if err := json.Unmarshal(data, &m); err != nil || (f.loose && m.str("name") == "") {
			if f.loose {
				continue // another tool's plugin.json: an ordinary file
			}
			return nil, fmt.Errorf("plugin %s: %s: %w", ep.ID, f.manifest, err)
		}
		manifests[f] = m
		if base == nil || f == fl {
			base = f
		}
	}
	from := base
	if from == nil {
		from = &flavors[0] // no manifest: parts in Claude Code's layout
	}
	context := contextFiles(manifests[flavorFor(pluginfmt.DialectGemini)], parts)
	files, leftOut := placeParts(ep.ID, parts, fl, from, manifests, context)
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
	var m manifestDoc
	if base != nil {
		m = manifests[base]
	}
	c, data, err := ep.manifest(m, base == fl, fl, from, files, content)
	if err != nil {
		return nil, err
	}
	c.Manifest = data
	c.LeftOut = append(leftOut, c.LeftOut...)
	files = append(files, skillfs.File{Path: fl.manifest, Mode: skillfs.Regular, ID: skillfs.BlobID(data), Data: data, Size: int64(len(data))})
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

// flavorFor is the row of dialect d.
func flavorFor(d pluginfmt.Dialect) *flavor {
	for i := range flavors {
		if flavors[i].dialect == d {
			return &flavors[i]
		}
	}
	return nil
}

// placeParts puts each part of plugin (other than its skills and the
// agents' manifests, which the manifest written replaces) where fl's
// agent reads it. The parts came in from's format: when that is fl's,
// each stays where it is. What fl cannot say is left out, grouped by why.
// Two parts that would land on one path: the one already there stays.
func placeParts(plugin string, parts []skillfs.File, fl, from *flavor, manifests map[*flavor]manifestDoc, context []string) ([]skillfs.File, []LeftOut) {
	type placed struct {
		f   skillfs.File
		dst string
	}
	var moves []placed
	whys := map[string][]string{}
	var order []string
	leave := func(p, why string) {
		if whys[why] == nil {
			order = append(order, why)
		}
		whys[why] = append(whys[why], p)
	}
	for _, f := range parts {
		c := classify(f.Path, context)
		if c == compManifest {
			if i := slices.IndexFunc(flavors, func(x flavor) bool { return x.manifest == f.Path }); manifests[&flavors[i]] != nil {
				continue
			}
			c = compOther // a plugin.json that is no agent's manifest
		}
		dst, why := f.Path, ""
		switch {
		case from == fl:
		case c == compHooks || c == compLSP:
			why = fmt.Sprintf("%s in %s's format, which %s does not read", c.noun(), from.agent, fl.agent)
		default:
			dst, why = fl.place(c, f.Path)
		}
		if why == "" && dst == fl.manifest {
			why = "the path of " + fl.agent + "'s manifest"
		}
		if why != "" {
			leave(f.Path, why)
			continue
		}
		moves = append(moves, placed{f, dst})
	}
	// Parts that stay where they are first, so that a moved one never
	// displaces them.
	sort.SliceStable(moves, func(i, j int) bool { return moves[i].f.Path == moves[i].dst && moves[j].f.Path != moves[j].dst })
	taken := map[string]string{}
	var files []skillfs.File
	for _, m := range moves {
		if was, ok := taken[m.dst]; ok {
			leave(m.f.Path, m.dst+" holds "+was+" already")
			continue
		}
		taken[m.dst] = m.f.Path
		m.f.Path = m.dst
		files = append(files, m.f)
	}
	var out []LeftOut
	for _, why := range order {
		out = append(out, LeftOut{Plugin: plugin, Paths: whys[why], Why: why})
	}
	return files, out
}

// componentKeys are manifest keys that point at a plugin's components
// (a path or paths): the components sit where the agent looks by
// default, and what cannot be said of them is said of their files.
var componentKeys = []string{"skills", "commands", "agents", "hooks", "mcpServers", "lspServers", "rules", "outputStyles"}

// manifest is the plugin.json export writes in fl's format from m, the
// plugin's own (of fl's agent when own, else from's) or none (nil): named
// after the plugin, without custom skill paths (the skills sit in the
// default skills/), and with a version that changes with the folder's
// content (content is the tree id of the folder without its manifest):
// the agents install each plugin version into a cache folder of its own
// and update only when the version changes. From another agent's
// manifest only the keys fl's format has are kept; the others are named
// in the result's LeftOut.
func (ep *exportPlugin) manifest(src manifestDoc, own bool, fl, from *flavor, files []skillfs.File, content skillfs.ID) (*composed, []byte, error) {
	m := manifestDoc{}
	for k, v := range src {
		m[k] = v
	}
	if name := m.str("name"); name != "" && name != ep.ID {
		return nil, nil, &ManifestNameError{Plugin: ep.ID, Manifest: name}
	}
	c := &composed{Version: m.str("version"), Description: m.str("description")}
	if c.Version == "" && ep.Record != nil {
		c.Version = ep.Record.Version
	}
	if c.Version == "" {
		c.Version = "0.0.0"
	}
	if c.Description == "" {
		c.Description = ep.defaultDescription()
	}
	var unsaid []string
	if !own {
		for k, v := range m {
			if slices.Contains(fl.keys, k) {
				continue
			}
			delete(m, k)
			var paths []string
			if k == "$schema" || (slices.Contains(componentKeys, k) && (json.Unmarshal(v, new(string)) == nil || json.Unmarshal(v, &paths) == nil)) {
				continue
			}
			unsaid = append(unsaid, k)
		}
		if raw, ok := m["author"]; ok {
			unsaid = append(unsaid, fixAuthor(m, raw, fl.authorKeys)...)
		}
	}
	c.Version = entryVersion(c.Version, content)
	m.set("name", ep.ID)
	m.set("version", c.Version)
	m.set("description", c.Description)
	if _, ok := m["author"]; !ok && fl.authorKeys != nil {
		m.set("author", map[string]string{"name": "skillstore"})
	}
	delete(m, "skills")
	fl.fixManifest(m, own, files)
	if len(unsaid) > 0 {
		sort.Strings(unsaid)
		c.LeftOut = append(c.LeftOut, LeftOut{Plugin: ep.ID, Paths: []string{from.manifest + ": " + strings.Join(unsaid, ", ")},
			Why: "keys " + fl.agent + "'s " + path.Base(fl.manifest) + " does not have"})
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

// fixAuthor keeps of m's author (raw: an object, or a name as npm writes
// it) the keys the format has, and returns those it left out.
func fixAuthor(m manifestDoc, raw json.RawMessage, keys []string) []string {
	var name string
	if json.Unmarshal(raw, &name) == nil {
		m.set("author", map[string]string{"name": name})
		return nil
	}
	var a map[string]json.RawMessage
	if json.Unmarshal(raw, &a) != nil {
		delete(m, "author")
		return []string{"author"}
	}
	var out []string
	for k := range a {
		if !slices.Contains(keys, k) {
			delete(a, k)
			out = append(out, "author."+k)
		}
	}
	if _, ok := a["name"]; !ok {
		delete(m, "author")
		return append(out, "author")
	}
	m.set("author", a)
	return out
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
func (ep *exportPlugin) folder(ctx context.Context, s *store.Store, fl *flavor) (reload.Skill, *composed, error) {
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
