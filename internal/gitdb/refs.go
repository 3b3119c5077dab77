package gitdb

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/internal/atomicfile"
)

// CorruptRefError reports a ref file that does not hold an object id.
type CorruptRefError struct {
	Path    string
	Content string
}

func (e *CorruptRefError) Error() string {
	return fmt.Sprintf("ref file %s is corrupt (holds %q)", e.Path, e.Content)
}

// Refs is every ref of a repository: packed-refs overlaid with loose ref
// files, as git resolves them.
type Refs map[string]ID

// ReadRefs reads all refs of the repository at gitDir. Symbolic refs are
// skipped (the repositories this package is for keep none besides HEAD),
// and so are the files git itself ignores (dot files, *.lock). A corrupt
// ref file fails the read with a *CorruptRefError.
func ReadRefs(gitDir string) (Refs, error) {
	return ReadRefsReport(gitDir, nil)
}

// ReadRefsReport is ReadRefs that, given a non-nil corrupt callback, reports
// corrupt loose ref files to it and goes on (for a check that lists every
// problem).
func ReadRefsReport(gitDir string, corrupt func(*CorruptRefError)) (Refs, error) {
	refs, err := readPackedRefs(gitDir)
	if err != nil {
		var ce *CorruptRefError
		if corrupt == nil || !errors.As(err, &ce) {
			return nil, err
		}
		corrupt(ce)
		refs = Refs{}
	}
	root := filepath.Join(gitDir, "refs")
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // a ref directory removed under us; readers hold the lock, so only by hand
			}
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && strings.HasPrefix(name, ".") {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".lock") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		content := strings.TrimSpace(string(data))
		if strings.HasPrefix(content, "ref: ") {
			return nil
		}
		h, ok := parseID(content)
		if !ok {
			ce := &CorruptRefError{Path: path, Content: content}
			if corrupt == nil {
				return ce
			}
			corrupt(ce)
			return nil
		}
		rel, _ := filepath.Rel(gitDir, path)
		refs[filepath.ToSlash(rel)] = h
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read refs: %w", err)
	}
	return refs, nil
}

func readPackedRefs(gitDir string) (Refs, error) {
	refs := Refs{}
	path := filepath.Join(gitDir, "packed-refs")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return refs, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read refs: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		hex, name, ok := strings.Cut(line, " ")
		h, okHash := parseID(hex)
		if !ok || !okHash {
			return nil, &CorruptRefError{Path: fmt.Sprintf("%s:%d", path, n), Content: line}
		}
		refs[name] = h
	}
	return refs, sc.Err()
}

// Names returns the sorted ref names starting with prefix.
func (t Refs) Names(prefix string) []string {
	var out []string
	for name := range t {
		if strings.HasPrefix(name, prefix) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// RefUpdate sets ref Name from Old to New; a zero New deletes the ref.
type RefUpdate struct {
	Name     string
	Old, New ID
}

// BulkRefThreshold is the number of ref updates above which they are
// written as one new packed-refs file instead of one loose file each.
const BulkRefThreshold = 32

// ApplyRefUpdates writes ref updates. The caller holds the repository's
// write lock and has written (and synced) every object the new values
// reach; a ref whose current value is not Old fails the whole update
// before anything is written.
//
// It never uses go-git's compare-and-swap (go-git issue #2399 leaves an empty
// loose ref behind when a CAS on a new ref fails): each loose ref is written
// whole with atomicfile, and a bulk update replaces packed-refs atomically.
// Every step leaves each ref at either its old or its new value: packed-refs
// is rewritten before stale loose files are removed, so a crash in between
// shows the old loose value, never a missing ref.
func ApplyRefUpdates(gitDir string, updates []RefUpdate) error {
	if len(updates) == 0 {
		return nil
	}
	// Each ref is looked up alone (its loose file, else packed-refs by
	// binary search): a small update costs the same in a store of any size.
	cur := NewRefReader(gitDir)
	defer cur.Close()
	bulk := len(updates) > BulkRefThreshold
	needPacked := bulk
	for _, u := range updates {
		h, _, err := cur.Lookup(u.Name)
		if err != nil {
			return err
		}
		if h != u.Old {
			return fmt.Errorf("ref %s moved from %s to %s during the update", u.Name, short(u.Old), short(h))
		}
		if u.New.IsZero() && !needPacked {
			_, inPacked, err := cur.lookupPacked(u.Name)
			if err != nil {
				return err
			}
			needPacked = inPacked
		}
	}
	if needPacked {
		if err := updatePackedRefs(gitDir, updates, bulk); err != nil {
			return err
		}
	}
	dirs := map[string]bool{}
	for _, u := range updates {
		path := filepath.Join(gitDir, filepath.FromSlash(u.Name))
		if u.New.IsZero() || bulk {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("update ref %s: %w", u.Name, err)
			}
			dirs[filepath.Dir(path)] = true
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("update ref %s: %w", u.Name, err)
		}
		if err := atomicfile.WriteFile(path, []byte(u.New.String()+"\n"), 0o644); err != nil {
			return fmt.Errorf("update ref %s: %w", u.Name, err)
		}
	}
	for dir := range dirs {
		if err := atomicfile.SyncDir(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// updatePackedRefs rewrites packed-refs without the deleted refs that it
// holds and, for a bulk update, with every new value.
func updatePackedRefs(gitDir string, updates []RefUpdate, bulk bool) error {
	packed, err := readPackedRefs(gitDir)
	if err != nil {
		return err
	}
	rewritePacked := false
	for _, u := range updates {
		_, inPacked := packed[u.Name]
		switch {
		case u.New.IsZero() && inPacked:
			delete(packed, u.Name)
			rewritePacked = true
		case !u.New.IsZero() && bulk:
			packed[u.Name] = u.New
			rewritePacked = true
		}
	}
	if !rewritePacked {
		return nil
	}
	return writePackedRefs(gitDir, packed)
}

// writePackedRefs replaces packed-refs with refs, sorted, in the format
// git writes, atomically. It writes no peeled lines: it is for refs that
// point at commits.
func writePackedRefs(gitDir string, refs Refs) error {
	var b bytes.Buffer
	b.WriteString("# pack-refs with: peeled fully-peeled sorted \n")
	for _, name := range refs.Names("") {
		h := refs[name]
		b.WriteString(h.String())
		b.WriteByte(' ')
		b.WriteString(name)
		b.WriteByte('\n')
	}
	return atomicfile.WriteFile(filepath.Join(gitDir, "packed-refs"), b.Bytes(), 0o644)
}

// PackAllRefs moves every loose ref into packed-refs (git pack-refs --all).
func PackAllRefs(gitDir string) error {
	all, err := ReadRefs(gitDir)
	if err != nil {
		return err
	}
	if err := writePackedRefs(gitDir, all); err != nil {
		return err
	}
	root := filepath.Join(gitDir, "refs")
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") || strings.HasSuffix(d.Name(), ".lock") {
			return nil
		}
		rel, _ := filepath.Rel(gitDir, path)
		if _, ok := all[filepath.ToSlash(rel)]; ok {
			return os.Remove(path)
		}
		return nil
	})
}

// short abbreviates an id for messages.
func short(h ID) string {
	if h.IsZero() {
		return "nothing"
	}
	return h.String()[:12]
}
