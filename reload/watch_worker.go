package reload

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
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

// reload compares a settled skill folder with the tree last seen, and if it
// changed, runs its hook and reports one event.
func (w *Watcher) reload(ctx context.Context, dir string) {
	old := w.last[dir]
	ev := Event{Skill: filepath.Base(dir), Dir: dir, OldTree: old.TreeID(), Paths: []string{}}
	cur, err := ReadTree(resolveDir(dir))
	if errors.Is(err, fs.ErrNotExist) || (err != nil && isNotDir(dir)) {
		cur, err = nil, nil
	}
	if err != nil {
		ev.Outcome, ev.Error = Failure, fmt.Sprintf("read %s: %v", dir, err)
		w.emit(ev)
		return
	}
	change := Classify(old, cur)
	if change.Class == Unchanged {
		return
	}
	if cur == nil {
		delete(w.last, dir)
	} else {
		w.last[dir] = cur
	}
	ev.Class, ev.NewTree = change.Class, cur.TreeID()
	ev.Paths = append(ev.Paths, change.Paths...)
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
