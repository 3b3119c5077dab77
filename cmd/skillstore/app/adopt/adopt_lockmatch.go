package adopt

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/internal/folderscan"
	"github.com/skillstore/skillstore/internal/npxhash"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// Which lock entry names an installed folder. 'npx skills' keys an entry
// by the skill's name and installs it in a folder named after it made
// safe (lower case, other characters a '-': "Agent Development" goes into
// agent-development), so an entry is found by the folder's name, else by
// that made-safe form of its key, else, for a project lock, by its
// computedHash: the folder whose files have that digest is the one it
// installed, whatever its name.

// lockIndex holds the entries of the lock files read, the home's first.
type lockIndex struct {
	byName map[string]lockSkill
	keys   []string // in the order read
}

// add takes the entries of one lock file; a name seen before keeps its
// first entry.
func (ix *lockIndex) add(m map[string]lockSkill) {
	if ix.byName == nil {
		ix.byName = map[string]lockSkill{}
	}
	for k, v := range m {
		if _, ok := ix.byName[k]; !ok {
			ix.byName[k] = v
			ix.keys = append(ix.keys, k)
		}
	}
}

// How an entry was found for a folder.
const (
	byFolderName = "by name"
	bySafeName   = "by the folder name npx skills makes of it"
	byDigest     = "by computedHash"
)

// find is the entry naming e's folder, its key, and how it was found.
func (ix lockIndex) find(e *adoptEntry) (lockSkill, string, string, bool) {
	if l, ok := ix.byName[e.Name]; ok {
		return l, e.Name, byFolderName, true
	}
	for _, k := range ix.keys {
		if npxSafeName(k) == e.Name {
			return ix.byName[k], k, bySafeName, true
		}
	}
	var sum string
	for _, k := range ix.keys {
		l := ix.byName[k]
		if !npxhash.Valid(l.ComputedHash) {
			continue
		}
		if sum == "" {
			if sum = folderDigest(e.Dir); sum == "" {
				return lockSkill{}, "", "", false
			}
		}
		if l.ComputedHash == sum {
			return l, k, byDigest, true
		}
	}
	return lockSkill{}, "", "", false
}

// describe is the entry as adopt --dry-run lists it: the file and its
// version, the source, and whether the installed files still have the
// digest recorded (unedited since the install) when there is one.
func (l lockSkill) describe(key, how string) string {
	s := fmt.Sprintf("recorded in %s (version %d)", l.File, l.Version)
	if how != byFolderName {
		s += fmt.Sprintf(" as %q, found %s", key, how)
	}
	s += fmt.Sprintf(": %s %s", l.SourceType, l.Source)
	if l.Ref != "" {
		s += " at " + l.Ref
	}
	if l.PluginName != "" {
		s += ", plugin " + l.PluginName
	}
	return s
}

// digestNote says whether the folder at dir still has the entry's
// computedHash.
func (l lockSkill) digestNote(dir string) string {
	if !npxhash.Valid(l.ComputedHash) {
		return ""
	}
	if folderDigest(dir) == l.ComputedHash {
		return "computedHash matches the installed files: unedited since the install"
	}
	return "computedHash differs from the installed files: edited since the install, or installed from other files"
}

// folderDigest is npx skills' computedHash of the installed folder at dir,
// read as every skill folder is read (folderscan); "" when it cannot be
// read whole.
func folderDigest(dir string) string {
	files, err := folderscan.Scan(dir, skillfs.DefaultLimits, nil)
	if err != nil || len(files) > skillfs.DefaultLimits.MaxFiles {
		return ""
	}
	for _, f := range files {
		if (f.Mode == skillfs.Regular || f.Mode == skillfs.Executable) && f.Data == nil {
			return ""
		}
	}
	return npxhash.Sum(files)
}

var unsafeRun = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9._]+`) })

// npxSafeName is the folder name npx skills installs a skill named name
// into: lower case, every run of characters other than a-z, 0-9, '.' and
// '_' one '-', no '.' or '-' at either end, at most 255 bytes,
// "unnamed-skill" when nothing is left.
func npxSafeName(name string) string {
	s := unsafeRun().ReplaceAllString(strings.ToLower(name), "-")
	s = strings.Trim(s, ".-")
	if len(s) > 255 {
		s = s[:255]
	}
	if s == "" {
		return "unnamed-skill"
	}
	return s
}
