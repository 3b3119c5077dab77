//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly && !windows

package folderscan

import "io/fs"

// entryOf knows no stat data here: the stat cache caches nothing and every
// file is read and hashed.
func entryOf(fs.FileInfo) (statEntry, bool) { return statEntry{}, false }
