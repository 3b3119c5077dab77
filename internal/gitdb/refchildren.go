package gitdb

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// Children returns the sorted distinct components that follow prefix (a
// ref folder ending in '/') in the names of refs under it: the plugin ids
// of refs/heads/plugins/ID/NAME, say. It answers without reading every
// ref: the loose folder is listed, and a sorted packed-refs is crossed by
// one binary search per child (each search skips that child's refs), so
// finding a skill name among a few plugins costs the same in a store of
// fifty thousand refs as in one of fifty. A child may have no refs left
// (git leaves empty loose folders behind): callers look up the full name.
func (rr *RefReader) Children(prefix string) ([]string, error) {
	if !strings.HasSuffix(prefix, "/") {
		return nil, fmt.Errorf("ref children: prefix %q does not end in /", prefix)
	}
	seen := map[string]bool{}
	if rr.all != nil {
		for name := range rr.all {
			if child, ok := childOf(name, prefix); ok {
				seen[child] = true
			}
		}
		return sortedKeys(seen), nil
	}
	entries, err := os.ReadDir(filepath.Join(rr.gitDir, filepath.FromSlash(prefix)))
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return nil, fmt.Errorf("read refs: %w", err)
	}
	for _, e := range entries {
		if n := e.Name(); !strings.HasPrefix(n, ".") && !strings.HasSuffix(n, ".lock") {
			seen[n] = true
		}
	}
	if err := rr.readPacked(); err != nil {
		return nil, err
	}
	if !rr.sorted {
		for data := rr.packed; len(data) > 0; {
			line, rest, _ := bytes.Cut(data, []byte{'\n'})
			if child, ok := childOf(string(refLineName(line)), prefix); ok {
				seen[child] = true
			}
			data = rest
		}
		return sortedKeys(seen), nil
	}
	from := prefix
	for {
		line := seekSortedLines(rr.packed, from)
		child, ok := childOf(string(refLineName(line)), prefix)
		if !ok {
			break
		}
		seen[child] = true
		// '0' follows '/': the first name after every "prefix+child/...".
		from = prefix + child + "0"
	}
	return sortedKeys(seen), nil
}

// childOf is the component of name after prefix, when name is under
// prefix and has one.
func childOf(name, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || rest == "" {
		return "", false
	}
	child, _, _ := strings.Cut(rest, "/")
	return child, child != ""
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// seekSortedLines returns the first ref line of sorted packed-refs data
// whose name is at least key (nil when every name is smaller): a binary
// search over line starts. lo and hi are always line starts (or the end),
// so every probe reads whole lines; a comment or peeled line belongs with
// the ref line before it.
func seekSortedLines(data []byte, key string) []byte {
	want := []byte(key)
	lo, hi := 0, len(data)
	var best []byte
	for lo < hi {
		start := bytes.LastIndexByte(data[:lo+(hi-lo)/2], '\n') + 1
		if start < lo {
			start = lo
		}
		line, next := lineFrom(data, start)
		for refLineName(line) == nil && next < hi {
			line, next = lineFrom(data, next)
		}
		ref := refLineName(line)
		if ref == nil {
			hi = start
			continue
		}
		if bytes.Compare(ref, want) < 0 {
			lo = next
		} else {
			best, hi = line, start
		}
	}
	return best
}

// ChildrenWith returns the sorted children C of prefix (as Children finds
// them) that have a ref named prefix+C+"/"+leaf: the plugins that have a
// skill of a given name. Each child costs one binary search of
// packed-refs, and loose refs one stat per loose child folder, never a
// read of every ref. A corrupt loose ref counts as present (Lookup then
// reports it).
func (rr *RefReader) ChildrenWith(prefix, leaf string) ([]string, error) {
	if !strings.HasSuffix(prefix, "/") || leaf == "" || strings.Contains(leaf, "/") {
		return nil, fmt.Errorf("ref children: prefix %q, leaf %q", prefix, leaf)
	}
	found := map[string]bool{}
	if rr.all != nil {
		for name := range rr.all {
			if rest, ok := strings.CutPrefix(name, prefix); ok {
				if child, l, ok := strings.Cut(rest, "/"); ok && child != "" && l == leaf {
					found[child] = true
				}
			}
		}
		return sortedKeys(found), nil
	}
	dir := filepath.Join(rr.gitDir, filepath.FromSlash(prefix))
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return nil, fmt.Errorf("read refs: %w", err)
	}
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() || strings.HasPrefix(n, ".") || strings.HasSuffix(n, ".lock") {
			continue
		}
		if info, err := os.Stat(filepath.Join(dir, n, leaf)); err == nil && info.Mode().IsRegular() {
			found[n] = true
		}
	}
	if err := rr.readPacked(); err != nil {
		return nil, err
	}
	if !rr.sorted {
		for data := rr.packed; len(data) > 0; {
			line, rest, _ := bytes.Cut(data, []byte{'\n'})
			if r, ok := strings.CutPrefix(string(refLineName(line)), prefix); ok {
				if child, l, ok := strings.Cut(r, "/"); ok && child != "" && l == leaf {
					found[child] = true
				}
			}
			data = rest
		}
		return sortedKeys(found), nil
	}
	from := prefix
	for {
		child, ok := childOf(string(refLineName(seekSortedLines(rr.packed, from))), prefix)
		if !ok {
			break
		}
		if !found[child] && searchSortedLines(rr.packed, prefix+child+"/"+leaf) != nil {
			found[child] = true
		}
		from = prefix + child + "0"
	}
	return sortedKeys(found), nil
}
