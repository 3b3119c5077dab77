package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
	"github.com/skillstore/skillstore/reload"
)

// work reloads settled skills one at a time until ctx is done.
func (w *Watcher) work(ctx context.Context) {
	for {
		dir, ok := w.queue.pop(ctx)
		if !ok {
			return
		}
		w.reload(ctx, dir)
	}
}

// reload compares a settled skill folder with the tree the agent last
// loaded, and if it changed, checks that it loads, runs its hook, and
// reports one event. A skill that does not load is reported once per
// distinct broken tree, runs no hook, and leaves the last tree as it was,
// so the change that fixes it is classified against what the agent has.
func (w *Watcher) reload(ctx context.Context, dir string) {
	old := w.last[dir]
	skill := filepath.Base(dir)
	ev := Event{Type: EventReload, Skill: skill, Dir: dir, OldTree: old.TreeID(), Paths: []string{}, Files: []string{}}
	report := w.inScope(dir)
	files, cur, err := readSkill(dir)
	if err != nil {
		if report {
			ev.Action = actionOf(old, old)
			ev.Outcome, ev.Error = Failure, fmt.Sprintf("read %s: %v", dir, err)
			w.emit(ev)
		}
		return
	}
	change := reload.Classify(old, cur)
	if change.Class == reload.Unchanged || (cur != nil && w.failed[dir] == cur.ID) {
		if change.Class == reload.Unchanged {
			delete(w.failed, dir)
		}
		return
	}
	ev.Action, ev.Class, ev.NewTree = actionOf(old, cur), change.Class, cur.TreeID()
	ev.Paths = append(ev.Paths, change.Paths...)
	for _, p := range change.Paths {
		ev.Files = append(ev.Files, skill+"/"+p)
	}
	if cur != nil {
		if diags := errorsOnly(checkSkill(dir, files)); len(diags) > 0 {
			w.failed[dir] = cur.ID
			if report {
				ev.Outcome, ev.Diagnostics = Failure, diags
				ev.Error = notLoadable(diags)
				w.emit(ev)
			}
			return
		}
	}
	delete(w.failed, dir)
	if cur == nil {
		delete(w.last, dir)
	} else {
		w.last[dir] = cur
	}
	if !report {
		return
	}
	ev.Outcome = Success
	if fn := w.hook(ev.Skill); fn != nil {
		w.stamp(&ev)
		if err := callHook(ctx, fn, ev); err != nil {
			ev.Outcome, ev.Error = Failure, err.Error()
		}
	}
	w.emit(ev)
}

func isNotDir(dir string) bool {
	info, err := os.Lstat(dir)
	return err == nil && !info.IsDir()
}

func actionOf(old, cur *reload.Tree) EventAction {
	switch {
	case cur == nil:
		return EventRemoved
	case old == nil:
		return EventAdded
	}
	return EventUpdated
}

// readSkill reads the skill folder dir (following it if it is a symlink).
// A folder that is gone, or is no longer a folder, gives nil files and tree.
func readSkill(dir string) ([]skillfs.File, *reload.Tree, error) {
	files, err := reload.ReadDir(resolveDir(dir))
	if errors.Is(err, fs.ErrNotExist) || (err != nil && isNotDir(dir)) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	t, err := reload.NewTree(files)
	return files, t, err
}

// checkSkill validates the SKILL.md of the skill folder dir, read as files,
// by the validation policy (discover.Check, lenient: what agents load).
// Diagnostics name dir's SKILL.md.
func checkSkill(dir string, files []skillfs.File) []discover.Diagnostic {
	path := filepath.Join(dir, skillmd.FileName)
	f, ok := skillfs.Find(files, skillmd.FileName)
	if !ok {
		return []discover.Diagnostic{{Severity: discover.SeverityError, File: path,
			Message: "missing: a skill folder needs a " + skillmd.FileName + "; agents do not load this folder"}}
	}
	data := f.Data
	if f.Mode == skillfs.Symlink {
		// Agents follow the link. It may lead to a FIFO or a device: the
		// file is read only when regular, and bounded.
		var err error
		if data, err = safefile.ReadFile(filepath.Join(resolveDir(dir), skillmd.FileName), discover.MaxFileSize); err != nil {
			return []discover.Diagnostic{{Severity: discover.SeverityError, File: path, Message: fmt.Sprintf("cannot read through the symlink: %v", err)}}
		}
	}
	return discover.Check(path, filepath.Base(dir), data, discover.Lenient).Diagnostics
}

func errorsOnly(diags []discover.Diagnostic) []discover.Diagnostic {
	var out []discover.Diagnostic
	for _, d := range diags {
		if d.Severity == discover.SeverityError {
			out = append(out, d)
		}
	}
	return out
}

// notLoadable is the Error of an event whose skill does not load.
func notLoadable(diags []discover.Diagnostic) string {
	parts := make([]string, len(diags))
	for i, d := range diags {
		parts[i] = d.String()
	}
	return "not reloaded, the skill does not load: " + strings.Join(parts, "; ")
}

// inScope reports whether the skill folder dir is reported. In an Exported
// root that is a folder export owns, or owned until now (export just
// removed it, and the removal is reported). A record that cannot be read
// counts as owning everything: better a hook too many than a reload lost.
func (w *Watcher) inScope(dir string) bool {
	r := w.rootOf(dir)
	if r == nil || !r.exported {
		return true
	}
	owned := true
	if names, err := w.owned(r.dir); err != nil {
		w.log.Warn("cannot read export's record; treating every folder as export's", "dir", r.dir, "err", err)
	} else {
		owned = names[filepath.Base(dir)]
	}
	was := w.scoped[dir]
	if owned {
		w.scoped[dir] = true
	} else {
		delete(w.scoped, dir)
	}
	return owned || was
}

// ownedSkills is the names export owns in a target, as of one version of
// its record file.
type ownedSkills struct {
	stamp [3]int64 // size, modification time, inode of the record file
	names map[string]bool
}

// owned returns the skills export owns in target, reading its record only
// when the file changed since the last call (export replaces it by rename),
// so a storm of settles or a large target does not re-read it each time.
func (w *Watcher) owned(target string) (map[string]bool, error) {
	var stamp [3]int64
	// Lstat: a linked record is refused by reload.Exported, not stamped.
	if info, err := os.Lstat(reload.RecordPath(target)); err == nil && info.Mode().IsRegular() {
		stamp = [3]int64{info.Size(), info.ModTime().UnixNano(), int64(inode(info))}
	}
	if c, ok := w.owners[target]; ok && c.stamp == stamp && stamp != [3]int64{} {
		return c.names, nil
	}
	exported, err := reload.Exported(target)
	if err != nil {
		return nil, err
	}
	names := make(map[string]bool, len(exported))
	for name := range exported {
		names[name] = true
	}
	w.owners[target] = ownedSkills{stamp: stamp, names: names}
	return names, nil
}

// rootOf returns the root that holds the skill folder dir.
func (w *Watcher) rootOf(dir string) *watchRoot {
	for i := range w.roots {
		r := &w.roots[i]
		if r.dir == dir || (!r.single && filepath.Dir(dir) == r.dir) {
			return r
		}
	}
	return nil
}

// callHook runs fn, turning a panic into an error so one bad hook cannot
// stop the watcher.
func callHook(ctx context.Context, fn ReloadFunc, ev Event) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("reload hook panicked: %v", r)
		}
	}()
	return fn(ctx, ev)
}

// stamp gives ev its time and ID.
func (w *Watcher) stamp(ev *Event) {
	ev.Time = time.Now().UTC()
	ev.ID = w.runID + "-" + strconv.FormatUint(w.seq.Add(1), 10)
}

func (w *Watcher) emit(ev Event) {
	if ev.ID == "" {
		w.stamp(&ev)
	}
	w.log.Debug("reload", "skill", ev.Skill, "class", ev.Class, "outcome", ev.Outcome, "err", ev.Error)
	if w.opts.OnEvent != nil {
		w.opts.OnEvent(ev)
	}
}

// dirQueue is the worker's queue of settled skill folders: a folder queued
// twice before the worker gets to it is reloaded once.
type dirQueue struct {
	mu     sync.Mutex
	items  []string
	queued map[string]bool
	signal chan struct{}
}

func newDirQueue() *dirQueue {
	return &dirQueue{queued: map[string]bool{}, signal: make(chan struct{}, 1)}
}

func (q *dirQueue) push(dir string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.queued[dir] {
		return
	}
	q.queued[dir] = true
	q.items = append(q.items, dir)
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *dirQueue) pop(ctx context.Context) (string, bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			dir := q.items[0]
			q.items = q.items[1:]
			delete(q.queued, dir)
			q.mu.Unlock()
			return dir, true
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return "", false
		case <-q.signal:
		}
	}
}
