package target

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
)

// The collision policy of a flat target (a folder of NAME/SKILL.md, as
// ~/.claude/skills and .agents/skills are). A skill's name in the store is
// NAME (managed) or PLUGIN:NAME (a plugin's skill), but a flat target has
// one folder per skill and agents name a skill after its folder, so two
// skills with the same short name NAME cannot both be NAME there. Among
// the skills a target wants:
//
//   - a skill whose short name no other wanted skill has is exported as
//     NAME, plugin skill or not;
//   - on a collision the managed skill NAME keeps NAME, and each plugin
//     skill PLUGIN:NAME goes to PLUGIN-NAME, its frontmatter name changed
//     to match (see rename.go). The separator is one hyphen, not "--": the
//     Agent Skills specification forbids consecutive hyphens and some
//     agents skip such a skill, which would hide it;
//   - a folder name that two skills would get (a managed skill that is
//     really called PLUGIN-NAME, or PLUGIN-NAME longer than the 64
//     characters a name may have) is a conflict: the skill that would have
//     to give way is not exported, and export reports it with the other
//     skill's name (reload.ActionConflict). Nothing hides silently.
//
// The folders follow from the wanted set alone, so every run and every
// machine gives the same folders; when a collision appears or goes away,
// export moves the plugin's skill (installed in its new folder first, then
// the old folder switched or removed, each step atomic) and its report
// says so (reload.Result.MovedFrom, Was). Plugin parts (PLUGIN:_plugin:
// manifest, hooks, commands ...) are never exported to a flat target.

// renameSep joins a plugin's id and a skill's short name in the folder of a
// renamed plugin skill.
const renameSep = "-"

// maxFolderName is the longest skill name the specification allows.
const maxFolderName = 64

// placement is where the skills a flat target wants go.
type placement struct {
	// folder maps a store name to its folder.
	folder map[string]string
	// renamed is set for the skills whose folder is not their short name.
	renamed map[string]bool
	// conflicts maps a store name that gets no folder to the reason.
	conflicts map[string]string
}

// Folders gives the folder each of names, the store names of the skills a
// flat target wants, gets in that target by the collision policy export
// applies (place); a name that gets none (a conflict) is absent. Doctor's
// cross-reference check reads it.
func Folders(names []string) map[string]string { return place(names).folder }

// place applies the collision policy to the store names a target wants.
func place(names []string) placement {
	p := placement{folder: map[string]string{}, renamed: map[string]bool{}, conflicts: map[string]string{}}
	byShort := map[string][]string{}
	for _, n := range names {
		if store.IsPluginParts(n) {
			continue
		}
		_, short := store.SplitName(n)
		byShort[short] = append(byShort[short], n)
	}
	// Pass one: a short name held by one skill, or by a managed skill
	// among several, is that skill's folder.
	owner := map[string]string{} // folder → store name
	for short, group := range byShort {
		if len(group) == 1 {
			owner[short] = group[0]
			continue
		}
		for _, n := range group {
			if plugin, _ := store.SplitName(n); plugin == "" {
				owner[short] = n
			}
		}
	}
	for folder, n := range owner {
		p.folder[n] = folder
	}
	// Pass two: the other colliding plugin skills get PLUGIN-NAME, unless
	// that folder is taken or too long.
	wants := map[string][]string{}
	for short, group := range byShort {
		for _, n := range group {
			if owner[short] == n {
				continue
			}
			plugin, _ := store.SplitName(n)
			wants[plugin+renameSep+short] = append(wants[plugin+renameSep+short], n)
		}
	}
	for folder, group := range wants {
		sort.Strings(group)
		switch {
		case owner[folder] != "":
			for _, n := range group {
				p.conflicts[n] = fmt.Sprintf("its folder %s (short name %s is taken) is skill %s's folder; export the plugin to a claude-marketplace target, or narrow the target's skills", folder, shortName(n), owner[folder])
			}
		case len(group) > 1:
			for _, n := range group {
				p.conflicts[n] = fmt.Sprintf("%s and %s would both be exported as %s; narrow the target's skills", n, others(group, n), folder)
			}
		case len(folder) > maxFolderName || skillfs.CheckName(folder) != nil:
			p.conflicts[group[0]] = fmt.Sprintf("its short name is taken and %s cannot be a skill folder (at most %d characters); export the plugin to a claude-marketplace target, or narrow the target's skills", folder, maxFolderName)
		default:
			p.folder[group[0]] = folder
			p.renamed[group[0]] = true
		}
	}
	return p
}

func shortName(n string) string {
	_, s := store.SplitName(n)
	return s
}

func others(group []string, n string) string {
	var out []string
	for _, g := range group {
		if g != n {
			out = append(out, g)
		}
	}
	return strings.Join(out, " and ")
}

// storeName maps a folder back to its store name by the placement ("" when
// no wanted skill goes there).
func (p placement) storeName(folder string) string {
	for n, f := range p.folder {
		if f == folder {
			return n
		}
	}
	return ""
}

// placeSkills turns the published skills a target wants (named by their
// store names) into the folders export writes, and the conflicts export
// reports. A renamed skill's files are loaded and renamed only when export
// needs them; its store tree tells export whether the version changed.
func placeSkills(wanted []reload.Skill) ([]reload.Skill, []reload.Result) {
	names := make([]string, len(wanted))
	for i, s := range wanted {
		names[i] = s.Name
	}
	p := place(names)
	var out []reload.Skill
	for _, s := range wanted {
		folder, ok := p.folder[s.Name]
		if !ok {
			continue
		}
		placed := s
		placed.Name = folder
		if folder != s.Name {
			placed.StoreName = s.Name
		}
		if p.renamed[s.Name] {
			placed.StoreTree, placed.Tree = s.Tree, skillfs.ID{}
			placed.Files, placed.Load = nil, renamingLoader(s, folder)
		}
		out = append(out, placed)
	}
	conflicts := make([]reload.Result, 0, len(p.conflicts))
	for n, why := range p.conflicts {
		conflicts = append(conflicts, reload.Result{Skill: n, Action: reload.ActionConflict, NewTree: treeOf(wanted, n),
			Error: "not exported to this flat target: " + why})
	}
	sort.Slice(conflicts, func(i, j int) bool { return conflicts[i].Skill < conflicts[j].Skill })
	return out, conflicts
}

func treeOf(skills []reload.Skill, name string) skillfs.ID {
	for _, s := range skills {
		if s.Name == name {
			return s.Tree
		}
	}
	return skillfs.ID{}
}

// renamingLoader loads s's files and sets their frontmatter name to folder.
func renamingLoader(s reload.Skill, folder string) func() ([]skillfs.File, error) {
	return func() ([]skillfs.File, error) {
		files := s.Files
		if files == nil && s.Load != nil {
			var err error
			if files, err = s.Load(); err != nil {
				return nil, err
			}
		}
		return renameSkill(files, folder)
	}
}

// WantsFolder is Wants for a folder of the target: a plugin's skill sits
// in a folder named after its short name or PLUGIN-NAME, so the folder is
// mapped to its store name through the export record (read again when a
// folder is not in it) before t's patterns are applied.
func (t Target) WantsFolder() func(folder string) bool {
	origins, _ := reload.Origins(t.Dir)
	var mu sync.Mutex // the watcher may ask from several goroutines
	return func(folder string) bool {
		mu.Lock()
		defer mu.Unlock()
		o, ok := origins[folder]
		if !ok {
			if fresh, err := reload.Origins(t.Dir); err == nil {
				origins = fresh
				o, ok = origins[folder]
			}
		}
		if ok {
			return t.Wants(o.Identity(folder))
		}
		return t.Wants(folder)
	}
}
