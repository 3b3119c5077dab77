// Package projectlock is a project's record of the skills its agents'
// folders hold, for a teammate or CI to restore exactly: the lock file
// skillstore-lock.json at the project's root, written by [Build] (the
// command 'skillstore lock') and restored by [Install] ('skillstore
// install', 'install --frozen' in CI).
//
// The file is JSON, written sorted and indented so that the same store
// and targets always give the same bytes (a diff shows what moved):
//
//		{
//		  "version": 1,
//		  "remote": {"name": "origin", "url": "git@git.example.com:team/skills.git"},
//		  "plugins": [
//		    {"id": "acme", "kind": "git", "url": "https://github.com/acme/skills.git",
//		     "ref": "main", "commit": "<40 hex>", "select": ["deploy"]}
//		  ],
//		  "skills": [
//		    {"name": "acme:deploy", "version": "v3", "tree": "<40 hex>"},
//		    {"name": "notes", "version": "v2", "tree": "<40 hex>", "local": true}
//		  ],
//		  "targets": [
//		    {"name": "app-claude", "dir": ".claude/skills", "skills": ["acme:deploy", "notes"]}
//		  ]
//		}
//
//	  - version: the format's version, 1. A newer one is refused whole.
//	  - remote: the team remote (a store remote: push, pull) that holds the
//	    versions only stores have; absent when the store that wrote the lock
//	    has none. A password in its URL is never written.
//	  - plugins: each plugin owning a locked skill: its id, its source as
//	    the store records it (kind "git", "folder", or a kind fetched over
//	    http(s): "archive", "skill-md", "well-known", "npm"; url, ref, tags:
//	    the release range it follows, sha256: an archive's digest, path
//	    inside the repository, selector: the plugin of a marketplace), the
//	    commit of the source its skills were read from (every kind but a
//	    folder) and its skill selection (absent: every skill).
//	  - skills: each skill a target holds, by qualified name (PLUGIN:NAME,
//	    or NAME for a managed skill), with the git tree id of the version:
//	    the tree is what install restores and what --frozen compares;
//	    version is the number it had in the store that wrote the lock, for
//	    people. local marks a version no upstream has (a managed skill, or
//	    a plugin's skill edited locally): install takes it from the team
//	    remote.
//	  - targets: the project's targets: name, folder relative to the
//	    project's root, its selection (select and except: the patterns of
//	    target set --only and --except, absent: every skill) and the skills
//	    it holds.
//
// The file comes from outside (a cloned project): it is read with a size
// bound, every name, path, id and URL is checked as the commands check
// what users type, and a bad entry is refused alone, named with its line,
// while the rest is used ([Read]).
//
// An 'npx skills' skills-lock.json in the same project is another
// installer's record: 'skillstore adopt --project DIR' reads it to take
// those skills over, and 'skillstore lock' then writes skillstore-lock.json.
// Neither command writes or reads the other's file.
package projectlock

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"sort"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/skillsel"
)

// FileName is the lock file's name in a project's root. It names the tool
// so that it is never mistaken for npx skills' skills-lock.json beside it.
const FileName = "skillstore-lock.json"

// FormatVersion is the version of the format this package writes and reads.
const FormatVersion = 1

// Lock is a lock file.
type Lock struct {
	Version int      `json:"version"`
	Remote  *Remote  `json:"remote,omitempty"`
	Plugins []Plugin `json:"plugins"`
	Skills  []Skill  `json:"skills"`
	Targets []Target `json:"targets"`
}

// Remote is the team remote the lock names.
type Remote struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// Plugin is a plugin owning a locked skill, at the commit locked.
type Plugin struct {
	ID       string   `json:"id"`
	Kind     string   `json:"kind"`
	URL      string   `json:"url"`
	Ref      string   `json:"ref,omitempty"`
	Tags     string   `json:"tags,omitempty"`   // the release range a source follows (plugins.Source.Tags)
	SHA256   string   `json:"sha256,omitempty"` // the digest an archive source must have
	Path     string   `json:"path,omitempty"`
	Selector string   `json:"selector,omitempty"`
	Commit   string   `json:"commit,omitempty"`
	Select   []string `json:"select,omitempty"`
}

// Skill is a locked version of a skill.
type Skill struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Tree    string `json:"tree"`
	Local   bool   `json:"local,omitempty"`
}

// Target is a project's target and the skills it holds.
type Target struct {
	Name   string   `json:"name"`
	Dir    string   `json:"dir"`
	Select []string `json:"select,omitempty"`
	Except []string `json:"except,omitempty"`
	Skills []string `json:"skills"`
}

// selection is the target's choice of skills, as the lock recorded it.
func (t Target) selection() skillsel.Selection {
	return skillsel.Selection{Only: t.Select, Except: t.Except}
}

// Path is the lock file of the project at root.
func Path(root string) string { return filepath.Join(root, FileName) }

// Marshal renders l as the file holds it: every list sorted, two-space
// indented, one trailing newline; the same lock always gives the same bytes.
func (l *Lock) Marshal() ([]byte, error) {
	c := *l
	c.Version = FormatVersion
	c.Plugins = sortedBy(c.Plugins, func(p Plugin) string { return p.ID })
	c.Skills = sortedBy(c.Skills, func(s Skill) string { return s.Name })
	c.Targets = sortedBy(c.Targets, func(t Target) string { return t.Name })
	for i := range c.Targets {
		c.Targets[i].Skills = sortedBy(c.Targets[i].Skills, func(s string) string { return s })
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write writes l to path atomically: a reader sees the old file or the
// new one, never a part.
func (l *Lock) Write(path string) error {
	data, err := l.Marshal()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, 0o644)
}

// sortedBy returns a sorted copy of list, never nil (an empty list is
// written as []).
func sortedBy[T any](list []T, key func(T) string) []T {
	out := append(make([]T, 0, len(list)), list...)
	sort.SliceStable(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
	return out
}
