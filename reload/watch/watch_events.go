package watch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// How the watcher turns file-system events into skills to settle: which
// skill a path belongs to, marking it changed, rescans and the inotify
// watches on every folder of a root (the loop in watch.go calls these).

// skillOf maps a path under a root to its skill folder. ok is false for
// paths that are not part of a skill: the root of a folder of skills
// itself, hidden entries in it, Ignored files.
func (w *Watcher) skillOf(path string) (dir string, ok bool) {
	for _, r := range w.roots {
		rel, err := filepath.Rel(r.dir, path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		rel = filepath.ToSlash(rel)
		if r.single {
			if (rel != "." && skillfs.Ignored(rel)) || !r.wants(filepath.Base(r.dir)) {
				return "", false
			}
			return r.dir, true
		}
		if rel == "." {
			return "", false
		}
		name, rest, _ := strings.Cut(rel, "/")
		if strings.HasPrefix(name, ".") || (rest != "" && skillfs.Ignored(rest)) || skillfs.Ignored(name) || !r.wants(name) {
			return "", false
		}
		return filepath.Join(r.dir, name), true
	}
	return "", false
}

// onEvent marks the event's skill as changed. New directories are watched at
// once, before their contents can change unseen. Chmod-only events are
// ignored: editors and indexers touch attributes constantly, and a real mode
// change is caught by the next rescan.
func (w *Watcher) onEvent(ev fsnotify.Event) {
	if ev.Op == fsnotify.Chmod {
		return
	}
	dir, ok := w.skillOf(ev.Name)
	if !ok {
		if w.isRoot(ev.Name) && ev.Has(fsnotify.Remove|fsnotify.Rename) {
			w.log.Warn("watched folder removed or renamed", "dir", ev.Name)
		}
		return
	}
	if ev.Has(fsnotify.Create) {
		if info, err := os.Lstat(ev.Name); err == nil && info.IsDir() {
			w.watchTree(ev.Name)
		}
	}
	w.log.Debug("event", "op", ev.Op.String(), "path", ev.Name)
	w.mark(dir, time.Now())
}

// mark notes a change to the skill folder dir seen at now: it settles once
// quiet for Debounce, or MaxWait after its change began, if that is sooner.
func (w *Watcher) mark(dir string, now time.Time) {
	began, ok := w.began[dir]
	if !ok {
		began = now
		w.began[dir] = now
	}
	deadline := now.Add(w.opts.Debounce)
	if w.opts.MaxWait > 0 {
		if limit := began.Add(w.opts.MaxWait); limit.Before(deadline) {
			deadline = limit
		}
	}
	w.pending[dir] = deadline
	w.known[dir] = true
}

func (w *Watcher) isRoot(path string) bool {
	for _, r := range w.roots {
		if r.dir == path {
			return true
		}
	}
	return false
}

// onError handles a watcher error: after an overflow events were lost, so
// everything is rescanned; other errors are logged and also rescanned.
func (w *Watcher) onError(err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		w.log.Warn("inotify queue overflowed; rescanning every skill")
	} else {
		w.log.Warn("watch error; rescanning every skill", "err", err)
	}
	w.rescan()
}

// rescan re-adds watches everywhere and marks every skill folder, present
// or gone, as changed; the worker reports only those whose tree differs.
func (w *Watcher) rescan() {
	w.watchAll()
	now := time.Now()
	for _, dir := range w.skillDirs() {
		w.mark(dir, now)
	}
	for dir := range w.known {
		w.mark(dir, now)
	}
}

// watchAll watches every root and every skill folder (a skill folder that
// is a symlink is not reached by walking its root).
func (w *Watcher) watchAll() {
	for _, r := range w.roots {
		w.watchTree(r.dir)
	}
	for _, dir := range w.skillDirs() {
		w.watchTree(dir)
	}
}

// watchTree adds an inotify watch on dir and every folder below it, skipping
// Ignored ones. Adding a watch that exists is cheap and harmless, and
// re-adding after a folder was replaced moves the watch to the new folder.
// When inotify's limits are hit the watcher switches to polling.
func (w *Watcher) watchTree(dir string) {
	if w.notify == nil {
		return
	}
	walkFollowingRoot(dir, func(p string, d fs.DirEntry) error {
		if !d.IsDir() {
			return nil
		}
		if p != dir {
			if _, ok := w.skillOf(p); !ok && !w.isRoot(p) {
				return filepath.SkipDir
			}
		}
		if err := addWatch(w.notify, p); err != nil {
			if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
				w.log.Warn("inotify limit reached; polling instead", "err", err)
				w.closeNotify()
				w.polling = true
				w.switched = true
				return filepath.SkipAll
			}
			w.log.Debug("cannot watch folder", "dir", p, "err", err)
		}
		return nil
	})
}

// addWatch is fsnotify's Add; tests replace it to hit inotify's limits.
var addWatch = (*fsnotify.Watcher).Add

// skillDirs lists the skill folders present under every root.
func (w *Watcher) skillDirs() []string {
	var dirs []string
	for _, r := range w.roots {
		if r.single {
			dirs = append(dirs, r.dir)
			continue
		}
		entries, err := os.ReadDir(r.dir)
		if err != nil {
			w.log.Warn("cannot list folder", "dir", r.dir, "err", err)
			continue
		}
		for _, e := range entries {
			p := filepath.Join(r.dir, e.Name())
			if _, ok := w.skillOf(p); ok && isDirOrLinkToDir(p, e) {
				dirs = append(dirs, p)
			}
		}
	}
	return dirs
}
