package skillfs

import (
	"fmt"
	"strings"
)

// Limits bound what a skill tree may hold: the scan of a folder stops
// reading past them (package folderscan) and the safety check refuses a
// tree that exceeds them (package store/safety).
type Limits struct {
	MaxFileSize int64 // bytes per file
	MaxFiles    int
}

// DefaultLimits are the caps add and sync apply.
var DefaultLimits = Limits{MaxFileSize: 2 << 20, MaxFiles: 1000}

// The shape of a tree is bounded too, whatever the caps above: a path of a
// skill (or of a plugin's parts) is at most MaxPathBytes long, MaxDepth
// levels deep (a file at the top is one level), and each of its names is
// at most MaxNameBytes. Every export target can then write every stored
// path (Linux's PATH_MAX is 4096 and NAME_MAX 255), and no walk of a
// stored tree goes deeper than MaxDepth: the tree walkers (store's
// Reader.Files, folderscan's scan, gitfetch's TreeFS, the plugin parts'
// walk) stop at the first path past a bound with a [*BoundError], before
// building the paths below it, and [CheckPath] refuses such a path
// wherever a tree is written, verified or exported.
const (
	MaxPathBytes = 4096
	MaxDepth     = 128
	MaxNameBytes = 255
)

// BoundError reports a path of a tree past MaxPathBytes, MaxDepth or
// MaxNameBytes. Path is the path as far as the walk that found it went:
// at most one name past the bound.
type BoundError struct {
	Path string
}

func (e *BoundError) Error() string {
	return fmt.Sprintf("%s: %s", ShortPath(e.Path), e.Reason())
}

// Reason says which bound the path is past, without the path.
func (e *BoundError) Reason() string {
	switch {
	case len(e.Path) > MaxPathBytes:
		return fmt.Sprintf("path longer than the limit of %d bytes", MaxPathBytes)
	case strings.Count(e.Path, "/")+1 > MaxDepth:
		return fmt.Sprintf("path deeper than the limit of %d levels", MaxDepth)
	}
	return fmt.Sprintf("name longer than the limit of %d bytes", MaxNameBytes)
}

// CheckBounds returns a *BoundError when the slash-separated path p is
// past a bound of the shape of a tree (see MaxPathBytes). It costs one
// pass over p.
func CheckBounds(p string) error {
	if len(p) > MaxPathBytes {
		return &BoundError{Path: p}
	}
	depth, name := 1, 0
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			name++
			continue
		}
		if name > MaxNameBytes {
			return &BoundError{Path: p[:i]}
		}
		depth, name = depth+1, 0
		if depth > MaxDepth {
			return &BoundError{Path: p}
		}
	}
	if name > MaxNameBytes {
		return &BoundError{Path: p}
	}
	return nil
}

// shortPathBytes is how much of a path ShortPath keeps.
const shortPathBytes = 60

// ShortPath is p quoted (QuotePath) for a message, cut with "…" after its
// first 60 bytes: a message about a path of thousands of folders stays
// one short line.
func ShortPath(p string) string {
	if len(p) <= shortPathBytes {
		return QuotePath(p)
	}
	cut := shortPathBytes
	for cut > 0 && p[cut]&0xc0 == 0x80 {
		cut-- // not inside a UTF-8 sequence
	}
	return QuotePath(p[:cut]) + "…"
}

// ChildPath is the path of the entry name of the folder dir ("" for the
// top: name alone), depth levels down a tree (an entry of the top is at
// depth 1), or a *BoundError when that path is past a bound. Every tree
// walker makes its paths with it, once per entry, before it enters a
// folder: a walk never goes below a bound, and its cost stays linear in
// the tree however the tree is shaped.
func ChildPath(dir, name string, depth int) (string, error) {
	p := name
	if dir != "" {
		p = dir + "/" + name
	}
	if len(p) > MaxPathBytes || depth > MaxDepth || len(name) > MaxNameBytes {
		return "", &BoundError{Path: p}
	}
	return p, nil
}
