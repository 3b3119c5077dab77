package gitdb

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// RefReader resolves the refs of one repository on demand, so that a
// command about one skill costs the same in a store of a hundred refs or
// of fifty thousand: a name is looked up in its loose file, then in
// packed-refs by binary search (git writes it sorted, and so does
// writePackedRefs), without parsing every ref. All reads every ref once,
// for the commands that list them. What it read is kept: the caller holds
// the lock that keeps refs still meanwhile.
type RefReader struct {
	gitDir string
	packed []byte // packed-refs, mapped on first need
	unmap  func()
	read   bool // packed was read (it may be absent)
	sorted bool // its header says sorted
	all    Refs // every ref, once All was called
	cache  map[string]ID
}

// NewRefReader reads the refs of the repository at gitDir. It does no
// I/O until asked.
func NewRefReader(gitDir string) *RefReader {
	return &RefReader{gitDir: gitDir, cache: map[string]ID{}}
}

// NewRefReaderOf is a RefReader that answers from refs, read already
// (by ReadRefsReport, which skips what is corrupt).
func NewRefReaderOf(gitDir string, refs Refs) *RefReader {
	return &RefReader{gitDir: gitDir, cache: map[string]ID{}, all: refs}
}

// Lookup returns the object ref name points at, as ReadRefs would resolve
// it: its loose file, else its packed-refs line. Symbolic refs and the
// names ReadRefs skips are not found. A corrupt loose file or packed-refs
// line of this name gives a *CorruptRefError.
func (rr *RefReader) Lookup(name string) (ID, bool, error) {
	if rr.all != nil {
		h, ok := rr.all[name]
		return h, ok, nil
	}
	if h, ok := rr.cache[name]; ok {
		return h, !h.IsZero(), nil
	}
	h, ok, err := rr.lookup(name)
	if err != nil {
		return ID{}, false, err
	}
	rr.cache[name] = h // zero: absent
	return h, ok, nil
}

func (rr *RefReader) lookup(name string) (ID, bool, error) {
	if !lookupName(name) {
		return ID{}, false, nil
	}
	path := filepath.Join(rr.gitDir, filepath.FromSlash(name))
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		content := strings.TrimSpace(string(data))
		if strings.HasPrefix(content, "ref: ") {
			return ID{}, false, nil
		}
		h, ok := parseID(content)
		if !ok {
			return ID{}, false, fmt.Errorf("read refs: %w", &CorruptRefError{Path: path, Content: content})
		}
		return h, true, nil
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.EISDIR):
		// not loose: packed, or absent
	default:
		return ID{}, false, fmt.Errorf("read refs: %w", err)
	}
	return rr.lookupPacked(name)
}

// lookupName reports whether name is one ReadRefs could return: under
// refs/, no empty, dot-led or .lock component.
func lookupName(name string) bool {
	if !strings.HasPrefix(name, "refs/") {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") {
			return false
		}
	}
	return true
}

func (rr *RefReader) readPacked() error {
	if rr.read {
		return nil
	}
	data, unmap, err := mapFile(filepath.Join(rr.gitDir, "packed-refs"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read refs: %w", err)
	}
	rr.packed, rr.unmap, rr.read = data, unmap, true
	if first, _, _ := bytes.Cut(data, []byte{'\n'}); bytes.HasPrefix(first, []byte("# pack-refs with:")) {
		rr.sorted = bytes.Contains(first, []byte(" sorted ")) || bytes.HasSuffix(first, []byte(" sorted"))
	}
	return nil
}

// lookupPacked finds name's line in packed-refs: by binary search over
// its lines when the file is sorted, else by a scan.
func (rr *RefReader) lookupPacked(name string) (ID, bool, error) {
	if err := rr.readPacked(); err != nil {
		return ID{}, false, err
	}
	data := rr.packed
	var line []byte
	if rr.sorted {
		line = searchSortedLines(data, name)
	} else {
		line = scanLines(data, name)
	}
	if line == nil {
		return ID{}, false, nil
	}
	hex, _, _ := bytes.Cut(line, []byte{' '})
	h, ok := parseID(string(hex))
	if !ok {
		return ID{}, false, fmt.Errorf("read refs: %w", &CorruptRefError{Path: filepath.Join(rr.gitDir, "packed-refs"), Content: string(line)})
	}
	return h, true, nil
}

// refLineName is the ref name of a packed-refs line ("<hex> <name>"), or
// nil for a comment or peeled line.
func refLineName(line []byte) []byte {
	if len(line) == 0 || line[0] == '#' || line[0] == '^' {
		return nil
	}
	_, name, ok := bytes.Cut(line, []byte{' '})
	if !ok {
		return nil
	}
	return name
}

// searchSortedLines binary-searches the sorted ref lines of data for
// name, skipping comment and peeled lines; nil when absent.
func searchSortedLines(data []byte, name string) []byte {
	line := seekSortedLines(data, name)
	if line == nil || !bytes.Equal(refLineName(line), []byte(name)) {
		return nil
	}
	return line
}

// lineFrom returns the line starting at i and where the next one starts.
func lineFrom(data []byte, i int) (line []byte, next int) {
	end := bytes.IndexByte(data[i:], '\n')
	if end < 0 {
		return data[i:], len(data)
	}
	return data[i : i+end], i + end + 1
}

// scanLines finds name's line in unsorted packed-refs data.
func scanLines(data []byte, name string) []byte {
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte{'\n'})
		if n := refLineName(line); n != nil && string(n) == name {
			return line
		}
		data = rest
	}
	return nil
}

// Close releases packed-refs; lookups after Close read it again.
func (rr *RefReader) Close() {
	if rr.unmap != nil {
		rr.unmap()
	}
	rr.packed, rr.unmap, rr.read = nil, nil, false
}

// All returns every ref, as ReadRefs does, read once.
func (rr *RefReader) All() (Refs, error) {
	if rr.all == nil {
		all, err := ReadRefs(rr.gitDir)
		if err != nil {
			return nil, err
		}
		rr.all = all
	}
	return rr.all, nil
}

// Names returns the sorted names of the refs starting with prefix.
func (rr *RefReader) Names(prefix string) ([]string, error) {
	all, err := rr.All()
	if err != nil {
		return nil, err
	}
	return all.Names(prefix), nil
}
