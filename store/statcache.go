package store

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/skillstore/skillstore/internal/atomicfile"
)

// StatCache maps a file's path and stat data (size, mtime, ctime, inode,
// mode) to its blob id, so a re-import does not re-read and re-hash files
// that did not change, the way git's index does. It is derived data: a
// missing or unreadable cache only costs time. Not safe for concurrent use;
// the store saves it under its write lock.
type StatCache struct {
	path    string
	entries map[string]statEntry
	dirty   bool
}

type statEntry struct {
	size, mtime, ctime int64
	ino                uint64
	mode               uint32
	hash               Hash
}

// racyWindow guards against a file changed again within the timestamp
// granularity right after it was hashed: such a file's stat would still
// match, so entries that new are not cached (git calls them racily clean).
const racyWindow = 100 * time.Millisecond

// maxStatEntries bounds the cache; when exceeded it starts over.
const maxStatEntries = 200_000

// LoadStatCache reads the cache at path; any error yields an empty cache.
func LoadStatCache(path string) *StatCache {
	c := &StatCache{path: path, entries: map[string]statEntry{}}
	data, err := os.ReadFile(path)
	if err != nil {
		return c
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 7)
		if len(f) != 7 {
			continue
		}
		h, ok := ParseHash(f[0])
		if !ok {
			continue
		}
		var e statEntry
		var err1, err2, err3, err4, err5 error
		e.size, err1 = strconv.ParseInt(f[1], 10, 64)
		e.mtime, err2 = strconv.ParseInt(f[2], 10, 64)
		e.ctime, err3 = strconv.ParseInt(f[3], 10, 64)
		e.ino, err4 = strconv.ParseUint(f[4], 10, 64)
		mode, err5 := strconv.ParseUint(f[5], 10, 32)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil {
			continue
		}
		e.mode, e.hash = uint32(mode), h
		c.entries[f[6]] = e
	}
	return c
}

// Lookup returns the cached blob id of the file at abs if its stat data
// is unchanged.
func (c *StatCache) Lookup(abs string, st *syscall.Stat_t) (Hash, bool) {
	if c == nil || st == nil {
		return ZeroHash, false
	}
	e, ok := c.entries[abs]
	if !ok {
		return ZeroHash, false
	}
	cur := entryOf(st)
	cur.hash = e.hash
	if cur != e {
		return ZeroHash, false
	}
	return e.hash, true
}

// Record caches the blob id of the file at abs, read starting at readStart.
func (c *StatCache) Record(abs string, st *syscall.Stat_t, h Hash, readStart time.Time) {
	if c == nil || st == nil {
		return
	}
	e := entryOf(st)
	if time.Unix(0, max(e.mtime, e.ctime)).After(readStart.Add(-racyWindow)) {
		delete(c.entries, abs)
		return
	}
	if len(c.entries) >= maxStatEntries {
		c.entries = map[string]statEntry{}
	}
	e.hash = h
	c.entries[abs] = e
	c.dirty = true
}

// Save writes the cache atomically if it changed.
func (c *StatCache) Save() error {
	if c == nil || !c.dirty {
		return nil
	}
	var b bytes.Buffer
	b.Grow(len(c.entries) * 120)
	for p, e := range c.entries {
		if strings.ContainsAny(p, "\n") {
			continue
		}
		b.WriteString(e.hash.String())
		for _, n := range []int64{e.size, e.mtime, e.ctime} {
			b.WriteByte(' ')
			b.WriteString(strconv.FormatInt(n, 10))
		}
		b.WriteByte(' ')
		b.WriteString(strconv.FormatUint(e.ino, 10))
		b.WriteByte(' ')
		b.WriteString(strconv.FormatUint(uint64(e.mode), 10))
		b.WriteByte(' ')
		b.WriteString(p)
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
