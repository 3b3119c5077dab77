package mcpserver

import (
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// A refStamp tells cheaply whether any ref of a store may have changed
// since it was taken: every ref update renames a file into its folder or
// rewrites packed-refs, which changes that folder's or that file's
// modification time or size. The stamp records them for packed-refs
// and every folder under refs/; a new folder changes its parent's time.
//
// File system clocks are coarse (a tick of a few milliseconds), so two
// updates in one tick leave one time. A stamp is therefore kept only when
// everything in it is older than settleTime: an update after that moves a
// time it recorded.
type refStamp struct {
	paths map[string]statStamp
}

type statStamp struct {
	mtime time.Time
	size  int64
	exist bool
}

// settleTime is how old every time in a stamp must be for the stamp to
// be trusted: far beyond any file system's timestamp granularity.
const settleTime = 2 * time.Second

// takeRefStamp stamps packed-refs and the folders under refs/ of gitDir,
// and the files extra (records that change what is served without a ref
// moving).
func takeRefStamp(gitDir string, extra ...string) (*refStamp, error) {
	st := &refStamp{paths: map[string]statStamp{}}
	for _, p := range extra {
		st.paths[p] = statOf(p)
	}
	packed := filepath.Join(gitDir, "packed-refs")
	st.paths[packed] = statOf(packed)
	root := filepath.Join(gitDir, "refs")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			st.paths[p] = statOf(p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

func statOf(p string) statStamp {
	info, err := os.Lstat(p)
	if err != nil {
		return statStamp{} // gone (or unreadable): differs from a stamp of it
	}
	return statStamp{mtime: info.ModTime(), size: info.Size(), exist: true}
}

// unchanged reports whether every path stamped is as it was; false for
// a nil stamp.
func (st *refStamp) unchanged() bool {
	if st == nil {
		return false
	}
	for p, want := range st.paths {
		if statOf(p) != want {
			return false
		}
	}
	return true
}

// settled reports whether every time in the stamp is older than
// settleTime, so that a later update cannot share its tick.
func (st *refStamp) settled() bool {
	limit := time.Now().Add(-settleTime)
	for _, s := range st.paths {
		if s.exist && s.mtime.After(limit) {
			return false
		}
	}
	return true
}
