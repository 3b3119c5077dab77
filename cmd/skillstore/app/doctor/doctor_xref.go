package doctor

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"regexp"
	"sort"
	"sync"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
)

// Claude Code names a plugin's skill PLUGIN:NAME, and plugins' skills refer
// to each other that way ("use superpowers:writing-plans"). In a flat
// target the agent sees the skill as NAME (or PLUGIN-NAME, flat.go), so
// such a reference names nothing there. CrossReferences finds them.
//
// The rule, strict to avoid false positives: a reference is LEFT:RIGHT in
// a Markdown file of a skill (SKILL.md's body, after the frontmatter, and
// any other *.md file), where LEFT is the id or the manifest name of a
// plugin in the store, RIGHT a skill name, the pair not glued to a word,
// a path or another colon on either side. So https://host, mailto:x,
// 10:30, C:\dir and YAML keys ("name: x", a space after the colon) never
// match, nor does anything naming a plugin the store does not have.

// CrossRef is one qualified reference that does not resolve in a flat
// target.
type CrossRef struct {
	Target string `json:"target"`
	// Skill is the skill whose file holds the reference; File and Line
	// (1-based, counted in the whole file) say where.
	Skill string `json:"skill"`
	File  string `json:"file"`
	Line  int    `json:"line"`
	// Ref is the reference as written (PLUGIN:NAME).
	Ref string `json:"ref"`
	// Sees is the folder name the agent knows the referenced skill by in
	// this target, "" when the target holds no such skill.
	Sees string `json:"sees,omitempty"`
}

// Compiled on first use rather than at start-up, which every command pays.
var refRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[^A-Za-z0-9_.:/@\\-])([a-z0-9][a-z0-9._-]*):([a-z0-9][a-z0-9-]*)(?:$|[^A-Za-z0-9_:/@\\-])`)
})

// findRefs lists the qualified references in one file of a skill whose
// left side is in plugins: [line, ref] pairs.
func findRefs(file string, data []byte, plugins map[string]bool) []CrossRef {
	if path.Ext(file) != ".md" {
		return nil
	}
	first := 1
	if file == skillmd.FileName {
		data, first = skipFrontmatter(data)
	}
	var out []CrossRef
	for i, line := range bytes.Split(data, []byte("\n")) {
		if !mayHoldRef(line) {
			continue // most lines: the regular expression is slow to say no
		}
		// Matches may touch (a:b c:d): search again from each match's
		// colon so a shared boundary character is not lost.
		for rest, off := line, 0; len(rest) > 0; {
			m := refRE().FindSubmatchIndex(rest)
			if m == nil {
				break
			}
			left, right := string(rest[m[2]:m[3]]), string(rest[m[4]:m[5]])
			if plugins[left] {
				out = append(out, CrossRef{File: file, Line: first + i, Ref: left + ":" + right})
			}
			off = m[5]
			rest = rest[off:]
		}
	}
	return out
}

// mayHoldRef reports whether line has a colon between a name's last
// character and a skill name's first, which every reference has.
func mayHoldRef(line []byte) bool {
	for i := 1; i+1 < len(line); i++ {
		if line[i] == ':' && nameByte(line[i-1]) && nameByte(line[i+1]) {
			return true
		}
	}
	return false
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// skipFrontmatter returns SKILL.md's body and the line number it starts
// on; a file without frontmatter (or with one never closed) is all body.
func skipFrontmatter(data []byte) ([]byte, int) {
	s, err := skillmd.Cut(data)
	if err != nil {
		return data, 1
	}
	return s.Body, s.BodyLine
}

// crossReferences lists, for each target, the PLUGIN:NAME references in
// the skills it gets that will not resolve there, sorted by target, skill,
// file and line. Every target today is flat (a folder of NAME/SKILL.md).
func crossReferences(ctx context.Context, s *store.Store, targets []target.Target) ([]CrossRef, error) {
	pluginNames := map[string]bool{}
	type skill struct {
		name string
		tree store.Hash
	}
	var active []skill
	err := s.View(ctx, func(r *store.Reader) error {
		ps, err := plugins.List(r)
		if err != nil {
			return err
		}
		for _, p := range ps {
			pluginNames[p.ID] = true
			if p.Name != "" {
				pluginNames[p.Name] = true
			}
		}
		infos, err := r.List(false)
		for _, info := range infos {
			if info.Status == store.StatusActive {
				active = append(active, skill{info.Name, info.Tree})
			}
		}
		return err
	})
	if err != nil || len(pluginNames) == 0 {
		return nil, err
	}
	type wanted struct {
		target string
		skill  skill
		folder map[string]string
	}
	var todo []wanted
	trees := map[store.Hash]bool{}
	for _, t := range targets {
		if t.IsMarketplace() {
			continue // plugins keep their namespace there: references resolve
		}
		var names []string
		for _, sk := range active {
			if t.Wants(sk.name) {
				names = append(names, sk.name)
			}
		}
		folder := target.Folders(names)
		for _, sk := range active {
			if _, ok := folder[sk.name]; ok {
				todo = append(todo, wanted{t.Name, sk, folder})
				trees[sk.tree] = true
			}
		}
	}
	found, err := scanTrees(ctx, s, trees, pluginNames)
	if err != nil {
		return nil, err
	}
	var out []CrossRef
	for _, w := range todo {
		for _, ref := range found[w.skill.tree] {
			ref.Target, ref.Skill = w.target, w.skill.name
			ref.Sees = sees(w.folder, ref.Ref)
			out = append(out, ref)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Target != b.Target {
			return a.Target < b.Target
		}
		if a.Skill != b.Skill {
			return a.Skill < b.Skill
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	return out, nil
}

// scanTrees finds the references in the Markdown files of each tree, in
// one read of the store: each tree once, however many targets get it.
func scanTrees(ctx context.Context, s *store.Store, trees map[store.Hash]bool, plugins map[string]bool) (map[store.Hash][]CrossRef, error) {
	found := map[store.Hash][]CrossRef{}
	err := s.View(ctx, func(r *store.Reader) error {
		for tree := range trees {
			files, err := r.Files(tree)
			if err != nil {
				return err
			}
			var refs []CrossRef
			for _, f := range files {
				if f.Mode == skillfs.Symlink || path.Ext(f.Path) != ".md" {
					continue
				}
				data, err := r.Blob(f.ID)
				if err != nil {
					return fmt.Errorf("%s: %w", f.Path, err)
				}
				refs = append(refs, findRefs(f.Path, data, plugins)...)
			}
			found[tree] = refs
		}
		return nil
	})
	return found, err
}

// sees is the folder a reference PLUGIN:NAME finds in a flat target whose
// skills are in the folders folder: the qualified skill's folder, or,
// while plugin skills are stored under short names, NAME's; "" when the
// target has no such skill.
func sees(folder map[string]string, ref string) string {
	if f, ok := folder[ref]; ok {
		return f
	}
	_, short := store.SplitName(ref)
	return folder[short]
}
