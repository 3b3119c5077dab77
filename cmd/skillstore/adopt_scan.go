package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/internal/folderscan"
	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// What 'adopt' reads of an existing installation: the agents' skill
// folders, the 'npx skills' lock files and Claude Code's plugin records.
// Reading never writes; every entry left out is kept with its reason.

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

// adoptSkip is an entry left out, with the reason. NotSkill marks an
// entry that is no skill folder at all (a stray file): listed, but not
// counted as a failure.
type adoptSkip struct {
	Path     string `json:"path"`
	Reason   string `json:"reason"`
	NotSkill bool   `json:"not_skill,omitempty"`
}

// lockSkill is one skill of an 'npx skills' lock file (ECOSYSTEM.md).
type lockSkill struct {
	Source          string `json:"source"`
	SourceType      string `json:"sourceType"`
	SourceURL       string `json:"sourceUrl"`
	SkillPath       string `json:"skillPath"`
	SkillFolderHash string `json:"skillFolderHash"`
	File            string `json:"-"`
}

// knownLockVersions are the lock file versions adopt reads.
var knownLockVersions = map[int]bool{1: true, 2: true, 3: true}

// agentFolders lists the skill folders adopt reads, user scope then project.
func agentFolders(home, project string) [][2]string {
	var out [][2]string
	// The canonical copies of 'npx skills' first: a link elsewhere points at them.
	for _, d := range []string{".agents/skills", ".claude/skills", ".codex/skills"} {
		out = append(out, [2]string{"user", filepath.Join(home, d)})
	}
	if project != "" {
		for _, d := range []string{".agents/skills", ".claude/skills"} {
			out = append(out, [2]string{"project", filepath.Join(project, d)})
		}
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
			skips = append(skips, adoptSkip{Path: dir, Reason: err.Error()})
			continue
		}
		for _, de := range list {
			p := filepath.Join(dir, de.Name())
			e, reason := readAgentEntry(p, root)
			if e == nil {
				skips = append(skips, adoptSkip{Path: p, Reason: reason, NotSkill: reason == notFolder || reason == noSkillFile})
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
				skips = append(skips, adoptSkip{Path: p, Reason: fmt.Sprintf("skill %s differs from %s, taken over first: compare them, then 'skillstore add' the one to keep", e.Name, first.Path)})
			}
		}
	}
	return entries, skips
}

// The reasons for entries that are no skill folder at all.
const (
	notFolder   = "not a folder"
	noSkillFile = "no SKILL.md: not a skill folder"
)

// readAgentEntry reads one entry of an agent folder, following a symlink
// that stays inside root.
func readAgentEntry(p, root string) (*adoptEntry, string) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err.Error()
	}
	e := &adoptEntry{Name: filepath.Base(p), Path: p, Dir: p}
	if fi.Mode()&os.ModeSymlink != 0 {
		e.Link, _ = os.Readlink(p)
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			if strings.Contains(err.Error(), "too many links") {
				return nil, "symlink loop (" + e.Link + ")"
			}
			return nil, "broken symlink to " + e.Link
		}
		rootReal, err := filepath.EvalSymlinks(root)
		if err != nil {
			rootReal = root
		}
		if rel, err := filepath.Rel(rootReal, real); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return nil, "symlink to " + real + ", outside " + root + ": not followed"
		}
		e.Dir = real
		if fi, err = os.Stat(real); err != nil {
			return nil, err.Error()
		}
	}
	if !fi.IsDir() {
		return nil, notFolder
	}
	if _, err := os.Stat(filepath.Join(e.Dir, "SKILL.md")); err != nil {
		return nil, noSkillFile
	}
	return e, ""
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

// lockFileError is a lock file adopt cannot use: Where is the file, with
// the line when known.
type lockFileError struct{ Where, Msg string }

func (e *lockFileError) Error() string { return e.Where + ": " + e.Msg }

// readRecordFile reads a record another tool wrote (an 'npx skills' lock
// file, Claude Code's plugin records), which may sit in a project someone
// else made: only a regular file of at most safefile.RecordLimit bytes is
// read, and a FIFO never blocks the read. A missing file is (nil, nil).
func readRecordFile(path string) ([]byte, error) {
	data, err := safefile.ReadFile(path, safefile.RecordLimit)
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case (errors.Is(err, safefile.ErrNotRegular) || errors.Is(err, safefile.ErrTooLarge)) && errors.As(err, &pe):
		return nil, &lockFileError{Where: path, Msg: pe.Err.Error() + ": not read, nothing in it is used (replace it with the record itself)"}
	}
	return data, err
}

// readLockFile reads an 'npx skills' lock file; a missing one is no error.
func readLockFile(path string) (map[string]lockSkill, error) {
	data, err := readRecordFile(path)
	if data == nil || err != nil {
		return nil, err
	}
	var lock struct {
		Version int                  `json:"version"`
		Skills  map[string]lockSkill `json:"skills"`
	}
	if err := json.Unmarshal(data, &lock); err != nil {
		return nil, jsonFileError(path, data, err)
	}
	if !knownLockVersions[lock.Version] {
		return nil, &lockFileError{path, fmt.Sprintf("unknown lock file version %d (known: 1, 2, 3): its sources are not used", lock.Version)}
	}
	for k, v := range lock.Skills {
		v.File = path
		lock.Skills[k] = v
	}
	return lock.Skills, nil
}

// jsonFileError is a record file that does not parse: its path and, for a
// syntax error, the line.
func jsonFileError(path string, data []byte, err error) *lockFileError {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line := 1 + bytes.Count(data[:min(int(syn.Offset), len(data))], []byte("\n"))
		return &lockFileError{fmt.Sprintf("%s:%d", path, line), "not valid JSON: " + err.Error()}
	}
	return &lockFileError{path, err.Error()}
}
