package skillfs

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Symlinks as git has them. A tree may hold a symlink (mode 120000, the
// target as the blob) when the target stays inside the folder the tree is
// (a skill folder, or a plugin's folder for its parts), the way a
// repository links AGENTS.md to CLAUDE.md. [CheckLinks] says which links
// a store cannot keep; every place that stores, verifies or writes a tree
// applies it, so a link is never followed out of its folder and never
// stored as the content it points at.
//
// A target is checked as the kernel would resolve it, but without ever
// touching a disk: component by component, following the links the tree
// itself holds. Three rules keep that simple and safe:
//   - "..", only at the start of the target: after a name, ".." would
//     climb from wherever that name resolves to (another link's target),
//     not from where the text says, so "a/../.." cannot be judged by
//     reading it;
//   - relative only: an absolute target, a drive letter or a backslash
//     points outside whatever folder the tree is checked out in;
//   - no cycle: a chain of links that comes back to itself, and a link to
//     a folder from which the link itself is reached again (a link to its
//     own folder or to one above it, or two folder links that lead to
//     each other), loops every walker that follows links.
//
// Names are compared folded (FoldName), as macOS and Windows resolve them,
// so a link named in another letter case is still followed.

// MaxLinkTarget bounds a symlink's target, as PATH_MAX bounds it on Linux.
const MaxLinkTarget = 4096

// maxLinkHops bounds the links one resolution follows, as the kernel's
// limit of 40 does.
const maxLinkHops = 40

// LinkError says why a symlink of a tree cannot be kept.
type LinkError struct {
	Path   string // the link, relative to the tree's folder
	Target string // what it points at
	Reason string
}

func (e *LinkError) Error() string {
	return fmt.Sprintf("%s: symlink to %s %s", QuotePath(e.Path), quoteC(e.Target, false), e.Reason)
}

// Reasons a symlink is refused (a LinkError's Reason).
const (
	LinkAbsolute = "is absolute (never followed, never stored)"
	LinkEscapes  = "leaves the folder (never followed, never stored)"
	LinkLoops    = "loops (a chain of links, or a link to a folder that holds it)"
	LinkDotDot   = `has ".." after a name, which resolves through other links (write it as ../x/y)`
	LinkBadText  = "is empty, too long or holds a NUL"
)

// CheckLinks checks every symlink of files (Data holds each link's target)
// against the rules above and returns one error per link that breaks
// them, sorted by path; nil when every link may be kept. A link whose
// target does not exist in files is kept (git keeps a dangling link too):
// it cannot lead outside.
func CheckLinks(files []File) []*LinkError {
	r := linkResolver{links: map[string]string{}, dirs: map[string]bool{"": true}, state: map[string]int{}, resolved: map[string]string{}, faults: map[string]*linkFault{}}
	var paths []string
	for _, f := range files {
		if f.Mode == Symlink {
			r.links[FoldName(f.Path)] = string(f.Data)
			paths = append(paths, f.Path)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	for _, f := range files {
		// Folded once; a folder's folded path is a prefix of it (FoldName
		// folds rune by rune). Each folder is entered once: one found
		// already has the folders above it.
		p := FoldName(f.Path)
		for i := strings.LastIndexByte(p, '/'); i > 0; i = strings.LastIndexByte(p[:i], '/') {
			if r.dirs[p[:i]] {
				break
			}
			r.dirs[p[:i]] = true
		}
	}
	slices.Sort(paths)
	bad := map[string]*LinkError{}
	for _, p := range paths {
		r.hops = 0
		if _, err := r.resolve(p); err != nil {
			bad[p] = &LinkError{Path: p, Target: r.links[FoldName(p)], Reason: err.reason}
		}
	}
	for _, p := range r.folderCycles(paths, bad) {
		bad[p] = &LinkError{Path: p, Target: r.links[FoldName(p)], Reason: LinkLoops}
	}
	var out []*LinkError
	for _, p := range paths {
		if e := bad[p]; e != nil {
			out = append(out, e)
		}
	}
	return out
}

// linkResolver resolves the links of one tree.
type linkResolver struct {
	links    map[string]string // folded path -> target
	dirs     map[string]bool   // folded paths of the tree's folders ("" is the top)
	state    map[string]int    // folded link path -> 1 resolving, 2 done
	resolved map[string]string // folded link path -> folded path it resolves to
	faults   map[string]*linkFault
	hops     int // links followed by the resolution under way
}

type linkFault struct{ reason string }

// resolve returns the folded path link p resolves to ("" for the top).
func (r *linkResolver) resolve(p string) (string, *linkFault) {
	key := FoldName(p)
	switch r.state[key] {
	case 1:
		return "", &linkFault{LinkLoops}
	case 2:
		return r.resolved[key], r.faults[key]
	}
	r.state[key] = 1
	to, fault := r.walk(path.Dir(key), r.links[key])
	r.state[key] = 2
	if fault != nil {
		r.faults[key] = fault
		return "", fault
	}
	r.resolved[key] = to
	return to, nil
}

// checkText refuses a target that is no relative path.
func checkText(target string) *linkFault {
	switch {
	case target == "" || len(target) > MaxLinkTarget || strings.ContainsRune(target, 0):
		return &linkFault{LinkBadText}
	case strings.HasPrefix(target, "/") || strings.ContainsRune(target, '\\') || len(target) >= 2 && target[1] == ':':
		return &linkFault{LinkAbsolute}
	}
	return nil
}

// walk resolves target from the folder dir (folded, "." for the top),
// following the tree's links, and returns the folded path it ends at.
func (r *linkResolver) walk(dir, target string) (string, *linkFault) {
	if fault := checkText(target); fault != nil {
		return "", fault
	}
	// cur is the folded path reached so far ("" the top), grown and cut
	// in place: a step costs its name, not the path.
	var cur []byte
	if dir != "." {
		cur = append(cur, dir...)
	}
	named := false
	for rest := target; rest != ""; {
		c := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			c, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		switch c {
		case "", ".":
			continue
		case "..":
			if named {
				return "", &linkFault{LinkDotDot}
			}
			if len(cur) == 0 {
				return "", &linkFault{LinkEscapes}
			}
			cur = cur[:max(bytes.LastIndexByte(cur, '/'), 0)]
			continue
		}
		named = true
		if len(cur) > 0 {
			cur = append(cur, '/')
		}
		cur = append(cur, FoldName(c)...)
		if _, isLink := r.links[string(cur)]; !isLink {
			continue
		}
		if r.hops++; r.hops > maxLinkHops {
			return "", &linkFault{LinkLoops}
		}
		to, fault := r.resolve(string(cur))
		if fault != nil {
			if fault.reason != LinkLoops {
				// The link it goes through is refused for its own reason;
				// through it, this one leads nowhere a store keeps.
				return "", &linkFault{"goes through a link that " + fault.reason}
			}
			return "", fault
		}
		cur = append(cur[:0], to...)
	}
	return string(cur), nil
}

// folderCycles returns the links (not already refused) from which a walker
// that follows links comes back to the same link: a link to a folder
// leads to every link below that folder.
func (r *linkResolver) folderCycles(paths []string, bad map[string]*LinkError) []string {
	into := map[string][]string{} // link -> links below the folder it resolves to
	for _, p := range paths {
		if bad[p] != nil {
			continue
		}
		to := r.resolved[FoldName(p)]
		if !r.dirs[to] {
			continue // a file, or a name the tree does not hold
		}
		for _, q := range paths {
			if bad[q] == nil && (to == "" || strings.HasPrefix(FoldName(q), to+"/")) {
				into[p] = append(into[p], q)
			}
		}
	}
	var out []string
	for _, p := range paths {
		if reaches(into, p) {
			out = append(out, p)
		}
	}
	return out
}

// reaches reports whether following edges from start comes back to start.
func reaches(edges map[string][]string, start string) bool {
	seen := map[string]bool{}
	next := slices.Clone(edges[start])
	for len(next) > 0 {
		n := next[len(next)-1]
		next = next[:len(next)-1]
		if n == start {
			return true
		}
		if !seen[n] {
			seen[n] = true
			next = append(next, edges[n]...)
		}
	}
	return false
}

// folderOf is the folder of p that is levels deep ("a/b" of "a/b/c" for 2).
func folderOf(p string, levels int) string {
	end := -1
	for range levels {
		i := strings.IndexByte(p[end+1:], '/')
		if i < 0 {
			return p
		}
		end += 1 + i
	}
	return p[:end]
}

// CheckWritable is what a writer of files into a folder (export,
// checkout) checks first, so that it never makes a link out of the folder
// and never writes through a link: every symlink passes CheckLinks, and
// no path lies below a symlink of the same list (a tree git accepts never
// has one; a list built by hand might).
func CheckWritable(files []File) error {
	links := map[string]bool{}
	for _, f := range files {
		if f.Mode == Symlink {
			links[FoldName(f.Path)] = true
		}
	}
	if len(links) == 0 {
		return nil
	}
	for _, f := range files {
		p := FoldName(f.Path) // a folder's folded path is a prefix of it
		for i := strings.LastIndexByte(p, '/'); i > 0; i = strings.LastIndexByte(p[:i], '/') {
			if links[p[:i]] {
				return fmt.Errorf("%s: below the symlink %s: never written through a link", ShortPath(f.Path), ShortPath(folderOf(f.Path, strings.Count(p[:i], "/")+1)))
			}
		}
	}
	if errs := CheckLinks(files); len(errs) > 0 {
		return errs[0]
	}
	return nil
}
