package adopt

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/folderscan"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// What 'adopt' reads of an existing installation's folders: the agents'
// skill folders, each entry a skill folder, a symlink to one, or left out
// with why. Reading never writes.

// adoptEntry is one installed skill folder found in an agent folder.
type adoptEntry struct {
	Name  string `json:"name"`
	Path  string `json:"path"`           // the entry in the agent folder
	Link  string `json:"link,omitempty"` // the symlink's target, when Path is one
	Dir   string `json:"dir"`            // the real folder
	Scope string `json:"scope"`          // "user" or "project"
	// Also lists the other agent folders holding the same folder or
	// identical files.
	Also []string `json:"also,omitempty"`
	// ClaudePlugin is the Claude Code plugin ("plugin@marketplace") whose
	// installed folder holds the skill, for skills of installed plugins.
	ClaudePlugin string `json:"claude_plugin,omitempty"`
}

// adoptSkip is an entry left out, and why. NotSkill marks an entry that
// is no skill folder at all (a stray file): listed, but not counted as a
// failure.
type adoptSkip struct {
	Path     string
	Err      error
	NotSkill bool
}

// MarshalJSON writes the skip as adopt --json shows it: the error as its
// reason.
func (s adoptSkip) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Path     string `json:"path"`
		Reason   string `json:"reason"`
		NotSkill bool   `json:"not_skill,omitempty"`
	}{s.Path, app.ErrorText(s.Err), s.NotSkill})
}

// skipOf is the skip of the record file at path that cannot be used.
func skipOf(path string, err error) adoptSkip {
	var re *recordError
	if errors.As(err, &re) {
		return adoptSkip{Path: re.Where, Err: re.Err}
	}
	return adoptSkip{Path: path, Err: err}
}

// npxCanonicalDir is where 'npx skills' keeps the canonical copies, which
// its links in other agent folders point at: adopt reads it first.
const npxCanonicalDir = ".agents/skills"

// agentFolders lists the skill folders adopt reads, user scope then
// project: the agents' folders (discover.AgentDirs), npx's canonical
// folder first.
func agentFolders(home, project string) [][2]string {
	var out [][2]string
	add := func(scope, root string, dirs []discover.AgentDir) {
		paths := []string{npxCanonicalDir}
		for _, d := range dirs {
			if d.Path != npxCanonicalDir {
				paths = append(paths, d.Path)
			}
		}
		for _, p := range paths {
			out = append(out, [2]string{scope, filepath.Join(root, p)})
		}
	}
	add("user", home, discover.AgentDirs(false))
	if project != "" {
		add("project", project, discover.AgentDirs(true))
	}
	return out
}

// scanAgentFolders reads every agent folder: one entry per skill (identical
// copies folded into the first), the rest skipped with a reason.
func scanAgentFolders(home, project string) ([]*adoptEntry, []adoptSkip) {
	var entries []*adoptEntry
	var skips []adoptSkip
	byName := map[string]*adoptEntry{}
	for _, af := range agentFolders(home, project) {
		scope, dir := af[0], af[1]
		root := home
		if scope == "project" {
			root = project
		}
		list, err := os.ReadDir(dir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			skips = append(skips, adoptSkip{Path: dir, Err: err})
			continue
		}
		for _, de := range list {
			p := filepath.Join(dir, de.Name())
			e, err := readAgentEntry(p, root)
			if err != nil {
				skips = append(skips, adoptSkip{Path: p, Err: err, NotSkill: errors.Is(err, errNotFolder) || errors.Is(err, errNoSkillFile)})
				continue
			}
			e.Scope = scope
			first, seen := byName[e.Name]
			switch {
			case !seen:
				byName[e.Name] = e
				entries = append(entries, e)
			case first.Dir == e.Dir || sameFiles(first.Dir, e.Dir):
				if e.Link != "" {
					p += " -> " + e.Link
				}
				first.Also = append(first.Also, p)
			default:
				skips = append(skips, adoptSkip{Path: p, Err: fmt.Errorf("skill %s differs from %s, taken over first: compare them, then 'skillstore add' the one to keep", e.Name, first.Path)})
			}
		}
	}
	return entries, skips
}

// The entries that are no skill folder at all.
var (
	errNotFolder   = errors.New("not a folder")
	errNoSkillFile = errors.New("no SKILL.md: not a skill folder")
)

// readAgentEntry reads one entry of an agent folder, following a symlink
// that stays inside root.
func readAgentEntry(p, root string) (*adoptEntry, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	e := &adoptEntry{Name: filepath.Base(p), Path: p, Dir: p}
	if fi.Mode()&os.ModeSymlink != 0 {
		e.Link, _ = os.Readlink(p)
		if _, err := os.Stat(p); errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("symlink loop (%s)", e.Link)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, fmt.Errorf("broken symlink to %s", e.Link)
		}
		rootReal, err := filepath.EvalSymlinks(root)
		if err != nil {
			rootReal = root
		}
		if rel, err := filepath.Rel(rootReal, real); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return nil, fmt.Errorf("symlink to %s, outside %s: not followed", real, root)
		}
		e.Dir = real
		if fi, err = os.Stat(real); err != nil {
			return nil, err
		}
	}
	if !fi.IsDir() {
		return nil, errNotFolder
	}
	if _, err := os.Stat(filepath.Join(e.Dir, "SKILL.md")); err != nil {
		return nil, errNoSkillFile
	}
	return e, nil
}

// sameFiles reports whether folders a and b hold the same files, byte for
// byte, as the one reader of a skill folder reads them (folderscan.Scan:
// ignored files such as editor backups do not count). Only regular files
// of at most the safety check's size cap compare: a folder holding
// anything else, or more files than the cap, or one that cannot be read,
// compares unequal.
func sameFiles(a, b string) bool {
	fa, fb := comparableFiles(a), comparableFiles(b)
	if fa == nil || fb == nil || len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		if fa[i].Path != fb[i].Path || fa[i].ID != fb[i].ID {
			return false
		}
	}
	return true
}

// comparableFiles reads an installed skill folder for sameFiles; nil when
// it cannot be read or holds something other than regular files within
// skillfs.DefaultLimits.
func comparableFiles(dir string) []skillfs.File {
	files, err := folderscan.Scan(dir, skillfs.DefaultLimits, nil)
	if err != nil || len(files) > skillfs.DefaultLimits.MaxFiles {
		return nil
	}
	for _, f := range files {
		if !(f.Mode == skillfs.Regular || f.Mode == skillfs.Executable) || f.Data == nil {
			return nil
		}
	}
	return files
}
