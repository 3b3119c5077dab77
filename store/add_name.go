package store

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/internal/problem"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
)

// Which skill a folder given to add or import becomes a version of. A
// folder is named by its SKILL.md (or its folder); that short name may be
// a plugin's skill, and writing a folder from somewhere else onto a
// plugin's history would mix two sources' files under one identity (the
// openai/anthropic skill-creator case). So, without a flag:
//
//   - a managed skill of that name exists: the folder is its next version
//     (the user's own skill, edited);
//   - no skill has the name: it becomes a new managed skill;
//   - only plugins' skills have the name: the folder is recorded onto the
//     one it came from, and refused otherwise. "Came from" is what can be
//     told for sure: its files are exactly those of one of that skill's
//     versions or upstream snapshots (a checkout or an untouched export).
//     An edited copy cannot be told from another source's same-named
//     skill, so it needs the user's word: --into PLUGIN:NAME.
//
// --as NAME records the folder as the managed skill NAME (its SKILL.md's
// name set to NAME); --into NAME records it onto that existing skill, and
// so does --as PLUGIN:NAME (a plugin's skill is never made by add).

// cameFromLimit bounds the versions and snapshots read per skill when
// looking for the folder's files among a plugin skill's history.
const cameFromLimit = 1000

// ForeignFolderError refuses a folder whose skill name only plugins' skills
// have, when its files are no version of any of them.
type ForeignFolderError struct {
	Dir  string
	Name string
	// Skills are the plugins' skills of that name (store names, sorted).
	Skills []string
}

func (e *ForeignFolderError) Error() string { return problem.Format(e.Summary(), e.Details()) }

// Summary says what was refused and why.
func (e *ForeignFolderError) Summary() string {
	return fmt.Sprintf("%s holds a skill named %q, the name of %s, but its files are no version of %s; nothing was recorded for it",
		e.Dir, e.Name, pluginSkillsPhrase(e.Skills), map[bool]string{true: "it", false: "any of them"}[len(e.Skills) == 1])
}

// Details are the choices.
func (e *ForeignFolderError) Details() []string {
	into := e.Skills[0]
	if len(e.Skills) > 1 {
		into = "PLUGIN:" + e.Name
	}
	return []string{
		fmt.Sprintf("a different skill: 'skillstore add --as NEWNAME %s' records it as the managed skill NEWNAME", e.Dir),
		fmt.Sprintf("an edited copy of %s: 'skillstore add --into %s %s' records it as that skill's next version", pluginSkillsPhrase(e.Skills), into, e.Dir),
		fmt.Sprintf("the plugin's skill made your own first: 'skillstore plugin adopt %s', then add it again", strings.Replace(into, ":", " ", 1)),
		"edited where 'skillstore export' wrote it: 'skillstore capture' records a target's edits onto the skill they came from",
	}
}

func pluginSkillsPhrase(skills []string) string {
	if len(skills) == 1 {
		return "plugin skill " + skills[0]
	}
	return "plugin skills " + strings.Join(skills, ", ")
}

// resolveInto resolves opts.Into into opts.intoByName: under "" for one
// folder and one skill (the names need not match), else under each
// skill's short name, which the folder it takes must have.
func (tx *Tx) resolveInto(opts *AddOptions, dirs []string) error {
	opts.As = strings.TrimPrefix(opts.As, ManagedPrefix)
	if plugin, _ := SplitName(opts.As); plugin != "" {
		// --as PLUGIN:NAME records onto that plugin's skill: --into's job.
		opts.Into, opts.As = []string{opts.As}, ""
	}
	if len(opts.Into) == 0 {
		return nil
	}
	opts.intoByName = map[string]string{}
	if len(opts.Into) == 1 && len(dirs) == 1 {
		opts.intoByName[""] = opts.Into[0] // resolved once the folder's name is known
		return nil
	}
	for _, in := range opts.Into {
		name, err := tx.ResolveSkill(in)
		if err != nil {
			return fmt.Errorf("--into %s: %w", in, err)
		}
		_, short := SplitName(name)
		if other, dup := opts.intoByName[short]; dup && other != name {
			return fmt.Errorf("--into %s and --into %s: both are named %q, and a folder can go onto one of them only (add them one at a time)", other, name, short)
		}
		opts.intoByName[short] = name
	}
	return nil
}

// intoUnused reports an --into skill that no folder's name matched (a
// typo would otherwise leave that folder to the rules without flags).
func intoUnused(opts AddOptions, preps []prepared) error {
	for short, name := range opts.intoByName {
		if short == "" {
			continue
		}
		if !slices.ContainsFunc(preps, func(p prepared) bool { return p.Name == name || p.Name == short }) {
			return fmt.Errorf("--into %s: no folder given holds a skill named %q", name, short)
		}
	}
	return nil
}

// chooseAddName sets p.Name to the skill the folder is recorded onto (see
// above); tree is the folder's tree. p.Name is the folder's skill name on
// entry. When --as renames the skill, SKILL.md's name in p.files follows.
func (tx *Tx) chooseAddName(p *prepared, opts AddOptions, tree Hash) error {
	if name, ok := opts.intoByName[p.Name]; ok {
		p.Name = name
		return nil
	}
	if in, ok := opts.intoByName[""]; ok {
		// The skill's own name is what its SKILL.md says and what the
		// validation policy checks: a folder of another skill is not an
		// edited copy of this one.
		if _, own := SplitName(strings.TrimPrefix(in, ManagedPrefix)); own != p.Name {
			return fmt.Errorf("%s names the skill %q: it cannot be recorded as %q", filepath.Join(p.Dir, SkillFile), p.Name, in)
		}
		name, err := tx.ResolveSkill(in)
		if err != nil {
			return fmt.Errorf("--into %s: %w", in, err)
		}
		p.Name = name
		return nil
	}
	if opts.As != "" {
		if err := skillfs.CheckName(opts.As); err != nil {
			return fmt.Errorf("--as: %w", err)
		}
		if opts.As != p.Name {
			renameSkillFile(p.files, opts.As)
		}
		p.Name = opts.As
		return nil
	}
	owners, err := tx.pluginSkillsNamed(p.Name)
	if err != nil || len(owners) == 0 {
		return err
	}
	var from []string
	for _, name := range owners {
		ok, err := tx.cameFrom(name, tree)
		if err != nil {
			return err
		}
		if ok {
			from = append(from, name)
		}
	}
	if len(from) == 1 {
		p.Name = from[0]
		return nil
	}
	// A folder 'checkout' wrote from one of them, edited since.
	if q := tx.s.checkedOutFrom(p.Dir); q != "" && slices.Contains(owners, q) {
		p.Name = q
		return nil
	}
	return &ForeignFolderError{Dir: p.Dir, Name: p.Name, Skills: owners}
}

// pluginSkillsNamed returns the plugins' skills of short name, as
// qualified names, when no managed skill has that name.
func (tx *Tx) pluginSkillsNamed(name string) ([]string, error) {
	if _, ok := tx.Ref(SkillRef(name)); ok {
		return nil, nil // the managed skill
	}
	ids, err := tx.pluginsWithSkill(name)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, id := range ids {
		out = append(out, QualifiedName(id, name))
	}
	return out, nil
}

// cameFrom reports whether tree is the tree of one of the plugin skill's
// published versions or upstream snapshots (newest first, at most
// cameFromLimit of each, along first parents).
func (tx *Tx) cameFrom(qualified string, tree Hash) (bool, error) {
	plugin, short := SplitName(qualified)
	for _, ref := range []string{SkillRef(qualified), UpstreamRef(plugin, short)} {
		h, ok := tx.Ref(ref)
		for n := 0; ok && !h.IsZero() && n < cameFromLimit; n++ {
			c, err := tx.Commit(h)
			if err != nil {
				return false, fmt.Errorf("%s: %w", qualified, err)
			}
			if c.Tree == tree {
				return true, nil
			}
			h = ZeroHash
			if len(c.Parents) > 0 {
				h = c.Parents[0]
			}
		}
	}
	return false, nil
}

// renameSkillFile sets the name in SKILL.md's frontmatter to name: the
// recorded skill is then named as the store names it, wherever it is
// exported.
func renameSkillFile(files []File, name string) {
	for i := range files {
		if files[i].Path != SkillFile || files[i].Data == nil {
			continue
		}
		data := skillmd.SetName(files[i].Data, name)
		files[i].Data, files[i].Size, files[i].ID = data, int64(len(data)), skillfs.BlobID(data)
	}
}
