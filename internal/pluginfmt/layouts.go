package pluginfmt

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
)

// Kind names the layout a plugin's skills were found in. [Read] decides it,
// and it is the one place that does: plugin add, sync, import and discover
// all read a repository through it.
type Kind string

// The layouts [Read] recognises, in the order it tries them. A plugin
// manifest (of any dialect: see pluginFormats) names its skill folders or
// defaults to skills/; without a manifest the folder is a catalog or a plain
// skills/ tree, else a single skill, else a flat repository.
const (
	KindClaudePlugin Kind = "claude-plugin" // .claude-plugin/plugin.json
	KindCodexPlugin  Kind = "codex-plugin"  // .codex-plugin/plugin.json
	// KindCatalog is openai/skills' layout: skills/.<category>/<name>/SKILL.md
	// (.curated, .system, .experimental), plain skills/<name> beside them.
	KindCatalog    Kind = "catalog"
	KindSkillsTree Kind = "skills-tree"  // skills/<name>/SKILL.md
	KindSingle     Kind = "single-skill" // SKILL.md at the root
	KindFlat       Kind = "flat"         // <name>/SKILL.md at the root
	// KindMarketplaceEntry is a plugin whose skills its marketplace entry lists.
	KindMarketplaceEntry Kind = "marketplace-entry"
)

// lookedFor is what a folder that matches no layout is told was looked for,
// in the order [Read] tries the layouts.
var lookedFor = []string{
	strings.Join(MarketplaceFiles(), ", ") + " (a marketplace)",
	strings.Join(pluginManifestFiles(), ", ") + " (a plugin)",
	"skills/.<category>/<name>/SKILL.md (a catalog such as openai/skills)",
	"skills/<name>/SKILL.md (a skills tree)",
	"SKILL.md (a single skill)",
	"<name>/SKILL.md (a flat repository)",
}

// ErrNoSkills means a folder matches none of the layouts [Read] knows; its
// text lists them.
var ErrNoSkills = errors.New("no skills found; looked for " + strings.Join(lookedFor, ", "))

// Options tune [Read].
type Options struct {
	// Selector is the part after '#' in "SOURCE#plugin-name": one plugin
	// of a marketplace; empty means all.
	Selector string
	// RootName names a skill whose SKILL.md sits at the top of the source
	// (the single-skill layout), which has no folder name of its own. The
	// caller decides it: the SKILL.md's frontmatter name, else the
	// repository's or folder's base name. This package parses no YAML.
	RootName string
	// Dialect, when set, reads the source through that agent's
	// marketplace file and plugin manifests only (a repository that ships
	// for several agents whose manifests disagree); "" reads every one.
	Dialect Dialect
}

// defaultSkills finds the skills of a plugin root whose manifest (if any)
// names none, trying the layouts in order: the skills/ folder (plain and
// hidden category folders), then, only when there is no manifest, a
// SKILL.md at the root and <name>/SKILL.md folders. A plugin with a manifest
// keeps to skills/, as the agents loading it do.
func defaultSkills(fsys PluginFS, root, rootName string, manifest bool) (Kind, []SkillDir, error) {
	dirs, categories, err := skillsFolder(fsys, root)
	if err != nil || len(dirs) > 0 || manifest {
		if categories {
			return KindCatalog, dirs, err
		}
		return KindSkillsTree, dirs, err
	}
	single, err := isFile(fsys, path.Join(root, skillmd.FileName))
	if err != nil {
		return "", nil, err
	}
	if single {
		name := rootName
		if root != "." {
			name = path.Base(root)
		}
		if name == "" {
			return "", nil, fmt.Errorf("%s is a single skill at the top of the source, and no name was given for it", path.Join(root, skillmd.FileName))
		}
		if err := skillfs.CheckName(name); err != nil {
			return "", nil, fmt.Errorf("single skill %s: %w", path.Join(root, skillmd.FileName), err)
		}
		return KindSingle, []SkillDir{{Name: name, Path: root}}, nil
	}
	dirs, err = skillDirs(fsys, root, ".", false)
	var flat []SkillDir
	for _, d := range dirs {
		if !strings.HasPrefix(path.Base(d.Path), ".") {
			flat = append(flat, d)
		}
	}
	return KindFlat, flat, err
}

// skillsFolder lists the skills under root's skills/ folder: its
// <name>/SKILL.md folders and those of its hidden category folders
// (.curated, .system, .experimental or any other). Every category is
// included; a name found twice is an error naming both folders. categories
// reports whether a category folder held a skill.
func skillsFolder(fsys PluginFS, root string) (dirs []SkillDir, categories bool, err error) {
	plain, err := skillDirs(fsys, root, defaultSkillsDir, false)
	if err != nil {
		return nil, false, err
	}
	dir, err := resolveInRoot(fsys, root, defaultSkillsDir)
	if err != nil {
		return nil, false, err
	}
	if info, err := fsys.Lstat(dir); err != nil || !info.IsDir() || (len(plain) == 1 && plain[0].Path == dir) {
		return plain, false, nil // no skills/ folder, or skills/ is itself a skill
	}
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, false, fmt.Errorf("skills path %q: %w", defaultSkillsDir, err)
	}
	seen := map[string]string{}
	for _, d := range plain {
		seen[d.Name] = d.Path
		dirs = append(dirs, d)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, ".") || !e.IsDir() || skillfs.IgnoredDir(name) {
			continue
		}
		if _, isSkill := seen[name]; isSkill {
			continue // a hidden skill folder, already listed
		}
		in, err := skillDirs(fsys, root, defaultSkillsDir+"/"+name, true)
		if err != nil {
			return nil, false, err
		}
		for _, d := range in {
			if prev, dup := seen[d.Name]; dup {
				return nil, false, fmt.Errorf("two skills named %q: %s and %s; add the one you want on its own with --path and its folder", d.Name, prev, d.Path)
			}
			seen[d.Name] = d.Path
			dirs = append(dirs, d)
			categories = true
		}
	}
	return dirs, categories, nil
}

// notFound is the error for a root that matches no layout.
func notFound(root string) error {
	if root == "." {
		return ErrNoSkills
	}
	return fmt.Errorf("%s: %w", root, ErrNoSkills)
}
