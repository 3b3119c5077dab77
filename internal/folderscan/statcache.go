package folderscan

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// StatCache maps a file's path and stat data (size, mtime, ctime, inode,
// mode; see entryOf for each platform's) to its blob id, so a re-import does not re-read and re-hash files
// that did not change, the way git's index does. It also keeps the names
// in each folder scanned, keyed by the folder's own stat data: creating,
// removing or renaming an entry changes a folder's mtime and ctime, so an
// unchanged folder need not be listed again (git's untracked cache works
// the same way). It is derived data: a missing or unreadable cache only
// costs time. Safe for concurrent use (folders may be scanned on several
// goroutines); callers save it under their write lock.
type StatCache struct {
	mu      sync.Mutex
	path    string
	entries map[string]statEntry
	dirs    map[string]dirListing
	dirty   bool
}

type statEntry struct {
	size, mtime, ctime int64
	ino                uint64
	mode               uint32
	hash               skillfs.ID
}

// dirListing is a folder's stat data (hash unused) and its entries,
// sorted by name.
type dirListing struct {
	stat    statEntry
	entries []DirName
}

// DirName is a folder entry as the cache keeps it: its name and type bits
// (fs.ModeDir, fs.ModeSymlink, ...; zero for a regular file).
type DirName struct {
	Name string
	Type fs.FileMode
}

// typeLetters name the entry types in the cache file.
var typeLetters = map[fs.FileMode]byte{
	0: 'f', fs.ModeDir: 'd', fs.ModeSymlink: 'l', fs.ModeNamedPipe: 'p', fs.ModeSocket: 's',
	fs.ModeDevice: 'b', fs.ModeDevice | fs.ModeCharDevice: 'c', fs.ModeIrregular: '?',
}

var letterTypes = func() map[byte]fs.FileMode {
	m := map[byte]fs.FileMode{}
	for t, l := range typeLetters {
		m[l] = t
	}
	return m
}()

// RacyWindow guards against a file changed again within the timestamp
// granularity right after it was hashed: such a file's stat would still
// match, so entries that new are not cached (git calls them racily clean).
const RacyWindow = 100 * time.Millisecond

// maxStatEntries bounds the cache; when exceeded it starts over.
const maxStatEntries = 200_000

// maxDirNames bounds the folders whose names are kept (each is one line of
// the cache file); bigger ones are listed every time.
const maxDirNames = 2000

// dirLinePrefix starts a folder's line in the cache file. A file's line
// starts with its blob id, so readers that know only files skip these.
const dirLinePrefix = "D "

// LoadStatCache reads the cache at path; any error yields an empty cache.
func LoadStatCache(path string) *StatCache {
	c := &StatCache{path: path, entries: map[string]statEntry{}, dirs: map[string]dirListing{}}
	data, err := os.ReadFile(path)
	if err != nil {
		return c
	}
	// One string for the whole file: paths and names are slices of it.
	for rest := string(data); rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if d, ok := strings.CutPrefix(line, dirLinePrefix); ok {
			c.loadDir(d)
			continue
		}
		hash, line, _ := strings.Cut(line, " ")
		h, err := skillfs.ParseID(hash)
		if err != nil {
			continue
		}
		e, p, ok := parseStatFields(line)
		if !ok || p == "" {
			continue
		}
		e.hash = h
		c.entries[p] = e
	}
	return c
}

// parseStatFields parses size, mtime, ctime, inode and mode, each followed
// by a space, and returns the rest of s.
func parseStatFields(s string) (statEntry, string, bool) {
	var f [5]string
	for i := range f {
		var ok bool
		if f[i], s, ok = strings.Cut(s, " "); !ok {
			return statEntry{}, "", false
		}
	}
	var e statEntry
	var err1, err2, err3, err4, err5 error
	e.size, err1 = strconv.ParseInt(f[0], 10, 64)
	e.mtime, err2 = strconv.ParseInt(f[1], 10, 64)
	e.ctime, err3 = strconv.ParseInt(f[2], 10, 64)
	e.ino, err4 = strconv.ParseUint(f[3], 10, 64)
	mode, err5 := strconv.ParseUint(f[4], 10, 32)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil {
		return statEntry{}, "", false
	}
	e.mode = uint32(mode)
	return e, s, true
}

// loadDir parses a folder's line (after its prefix): the five stat fields,
// the quoted path, then each entry as its type letter and quoted name,
// space-separated.
func (c *StatCache) loadDir(line string) {
	e, rest, ok := parseStatFields(line)
	if !ok {
		return
	}
	dir, rest, ok := cutQuoted(rest)
	if !ok {
		return
	}
	var entries []DirName
	for rest != "" {
		if len(rest) < 2 || rest[0] != ' ' {
			return
		}
		typ, ok := letterTypes[rest[1]]
		if !ok {
			return
		}
		var name string
		if name, rest, ok = cutQuoted(rest[2:]); !ok {
			return
		}
		entries = append(entries, DirName{Name: name, Type: typ})
	}
	c.dirs[dir] = dirListing{stat: e, entries: entries}
}

// cutQuoted unquotes the Go-quoted string s starts with and returns the
// rest after it.
func cutQuoted(s string) (string, string, bool) {
	if len(s) >= 2 && s[0] == '"' {
		// Fast path: no escapes before the closing quote.
		if end := strings.IndexByte(s[1:], '"'); end >= 0 && !strings.ContainsRune(s[1:1+end], '\\') {
			return s[1 : 1+end], s[2+end:], true
		}
	}
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", "", false
	}
	u, err := strconv.Unquote(q)
	if err != nil {
		return "", "", false
	}
	return u, s[len(q):], true
}

// Lookup returns the cached blob id of the file at abs if its stat data
// (info, from an lstat of abs) is unchanged.
func (c *StatCache) Lookup(abs string, info fs.FileInfo) (skillfs.ID, bool) {
	cur, known := entryOf(info)
	if c == nil || !known {
		return skillfs.ID{}, false
	}
	c.mu.Lock()
	e, ok := c.entries[abs]
	c.mu.Unlock()
	if !ok {
		return skillfs.ID{}, false
	}
	cur.hash = e.hash
	if cur != e {
		return skillfs.ID{}, false
	}
	return e.hash, true
}

// Record caches the blob id of the file at abs, read starting at readStart.
func (c *StatCache) Record(abs string, info fs.FileInfo, h skillfs.ID, readStart time.Time) {
	e, known := entryOf(info)
	if c == nil || !known {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if racy(e, readStart) {
		delete(c.entries, abs)
		return
	}
	c.makeRoom()
	e.hash = h
	c.entries[abs] = e
	c.dirty = true
}

// LookupDir returns the cached entries of the folder at abs if its stat
// data (info) is unchanged.
func (c *StatCache) LookupDir(abs string, info fs.FileInfo) ([]DirName, bool) {
	cur, known := entryOf(info)
	if c == nil || !known {
		return nil, false
	}
	c.mu.Lock()
	d, ok := c.dirs[abs]
	c.mu.Unlock()
	if !ok || cur != d.stat {
		return nil, false
	}
	return d.entries, true
}

// RecordDir caches the entries of the folder at abs, whose stat data info
// was taken before the listing (os.ReadDir, sorted) started at readStart.
func (c *StatCache) RecordDir(abs string, info fs.FileInfo, list []fs.DirEntry, readStart time.Time) {
	e, known := entryOf(info)
	if c == nil || !known {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if racy(e, readStart) || len(list) > maxDirNames {
		delete(c.dirs, abs)
		return
	}
	entries := make([]DirName, len(list))
	for i, de := range list {
		entries[i] = DirName{Name: de.Name(), Type: de.Type()}
		if _, ok := typeLetters[entries[i].Type]; !ok {
			return // a type the file cannot name: not cached
		}
	}
	c.makeRoom()
	c.dirs[abs] = dirListing{stat: e, entries: entries}
	c.dirty = true
}

// racy reports whether e changed so close to readStart that a later change
// could leave its stat data the same.
func racy(e statEntry, readStart time.Time) bool {
	return time.Unix(0, max(e.mtime, e.ctime)).After(readStart.Add(-RacyWindow))
}

// makeRoom starts the cache over when it is full. c.mu is held.
func (c *StatCache) makeRoom() {
	if len(c.entries)+len(c.dirs) >= maxStatEntries {
		c.entries, c.dirs = map[string]statEntry{}, map[string]dirListing{}
	}
}

// Save writes the cache atomically if it changed.
func (c *StatCache) Save() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty {
		return nil
	}
	var b bytes.Buffer
	b.Grow(len(c.entries)*120 + len(c.dirs)*160)
	writeStat := func(e statEntry) {
		for _, n := range []int64{e.size, e.mtime, e.ctime} {
			b.WriteString(strconv.FormatInt(n, 10))
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatUint(e.ino, 10))
		b.WriteByte(' ')
		b.WriteString(strconv.FormatUint(uint64(e.mode), 10))
		b.WriteByte(' ')
	}
	for p, e := range c.entries {
		if strings.ContainsAny(p, "\n") {
			continue
		}
		b.WriteString(e.hash.String())
		b.WriteByte(' ')
		writeStat(e)
		b.WriteString(p)
		b.WriteByte('\n')
	}
	for p, d := range c.dirs {
		b.WriteString(dirLinePrefix)
		writeStat(d.stat)
		b.WriteString(strconv.Quote(p))
		for _, n := range d.entries {
			b.WriteByte(' ')
			b.WriteByte(typeLetters[n.Type])
			b.WriteString(strconv.Quote(n.Name))
		}
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(c.path, b.Bytes(), 0o644); err != nil {
		return err
	}
	c.dirty = false
	return nil
}
