package watch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
	"github.com/skillstore/skillstore/reload"
)

// WatchOptions tune a Watcher. The zero value uses the defaults.
type WatchOptions struct {
	// Debounce is how long a skill folder must stay quiet before its change
	// is settled and reloaded. Default 200ms.
	Debounce time.Duration
	// MaxWait bounds the debounce: a change is reported at most this long
	// after it began, even if the folder is still being written (the rest
	// is reported when it settles). Default 2s, or Debounce if longer;
	// negative means no bound.
	MaxWait time.Duration
	// Poll watches by stat polling instead of inotify. The watcher also
	// switches to polling by itself when inotify is unavailable or its
	// limits (max_user_watches, max_user_instances) are hit.
	Poll bool
	// PollInterval is the time between two polls. Default 500ms.
	PollInterval time.Duration
	// Rescan is the period of a full rescan that catches anything events
	// missed (a mode-only change, a folder watched too late). Default 30s;
	// negative disables it.
	Rescan time.Duration
	// OnReload is the reload hook for every skill without its own (see
	// Watcher.Handle). Nil means changes are only reported.
	OnReload ReloadFunc
	// OnEvent receives every event after its reload, in order.
	OnEvent func(Event)
	// Logger receives warnings and debug logs; nil discards them.
	Logger *slog.Logger
}

const (
	// DefaultDebounce is the default quiet period before a change settles.
	DefaultDebounce = 200 * time.Millisecond
	// DefaultMaxWait is the default bound on how long after it began a
	// change is reported, however busy its folder stays.
	DefaultMaxWait      = 2 * time.Second
	defaultPollInterval = 500 * time.Millisecond
	defaultRescan       = 30 * time.Second
)

func (o WatchOptions) withDefaults() WatchOptions {
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	if o.MaxWait == 0 {
		o.MaxWait = max(DefaultMaxWait, o.Debounce)
	}
	if o.PollInterval <= 0 {
		o.PollInterval = defaultPollInterval
	}
	if o.Rescan == 0 {
		o.Rescan = defaultRescan
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Root is a folder to watch: a skill folder itself, or a folder of skill
// folders such as an agent's skills directory, with the skills wanted in it.
type Root struct {
	Dir string
	// Want, when set, picks the skills to watch by folder name (a target's
	// patterns, target.Target.Wants); the others are never read or reported.
	Want func(skill string) bool
	// Exported limits the root to the skill folders Export created in it
	// (a target): any other folder belongs to someone else and fires no
	// hook. A skill export removes is still reported, as removed.
	Exported bool
}

// watchRoot is a Root as the watcher uses it; single is set for a skill
// folder itself.
type watchRoot struct {
	dir      string
	single   bool
	want     func(string) bool
	exported bool
}

func (r *watchRoot) wants(skill string) bool { return r.want == nil || r.want(skill) }

// Watcher watches skill folders and calls a reload hook once per settled
// change of each skill, with the change classified hot or cold against the
// last tree it saw. Create it with NewWatcher, register per-skill hooks with
// Handle, then Run it.
type Watcher struct {
	opts  WatchOptions
	log   *slog.Logger
	roots []watchRoot
	runID string
	seq   atomic.Uint64

	hooksMu sync.Mutex
	hooks   map[string]ReloadFunc

	// Owned by Run's loop.
	notify  *fsnotify.Watcher
	polling bool
	pending map[string]time.Time // skill folder → when it settles
	began   map[string]time.Time // skill folder → first change not yet settled
	stamps  map[string]uint64    // skill folder → stat fingerprint (polling)
	known   map[string]bool      // every skill folder seen, present or gone
	// switched is set when inotify failed mid-run and polling took over.
	switched bool

	// Owned by the worker that reloads settled skills.
	// last is the tree the agent has: the last one that loaded.
	last map[string]*reload.Tree
	// failed is the tree of a skill that does not load, already reported.
	failed map[string]skillfs.ID
	// scoped marks the skill folders of Exported roots that export owns.
	scoped map[string]bool
	// owners caches export's record of each Exported root.
	owners map[string]ownedSkills
	queue  *dirQueue
}

// NewWatcher watches the folders roots with every skill in them; see
// NewRootsWatcher.
func NewWatcher(roots []string, opts WatchOptions) (*Watcher, error) {
	rs := make([]Root, len(roots))
	for i, dir := range roots {
		rs[i] = Root{Dir: dir}
	}
	return NewRootsWatcher(rs, opts)
}

// NewRootsWatcher reads every skill folder under roots, so that the first
// change is classified against what was there, and starts watching them.
// A root holding a SKILL.md is one skill folder; any other root is a folder
// of skill folders (hidden entries are not skills). A skill that does not
// load now counts as absent: once fixed it is reported as added. Changes
// made after NewRootsWatcher returns are reported once Run runs.
func NewRootsWatcher(roots []Root, opts WatchOptions) (*Watcher, error) {
	if len(roots) == 0 {
		return nil, errors.New("watch: no folder to watch")
	}
	opts = opts.withDefaults()
	w := &Watcher{
		opts:    opts,
		log:     opts.Logger,
		runID:   strconv.FormatInt(time.Now().UnixNano(), 36),
		hooks:   map[string]ReloadFunc{},
		pending: map[string]time.Time{},
		began:   map[string]time.Time{},
		stamps:  map[string]uint64{},
		known:   map[string]bool{},
		last:    map[string]*reload.Tree{},
		failed:  map[string]skillfs.ID{},
		scoped:  map[string]bool{},
		owners:  map[string]ownedSkills{},
		queue:   newDirQueue(),
	}
	for _, r := range roots {
		abs, err := filepath.Abs(r.Dir)
		if err != nil {
			return nil, err
		}
		info, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("watch %s: %w", r.Dir, err)
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("watch %s: not a directory", r.Dir)
		}
		_, err = os.Lstat(filepath.Join(abs, skillmd.FileName))
		w.roots = append(w.roots, watchRoot{dir: abs, single: err == nil, want: r.Want, exported: r.Exported})
	}
	if !opts.Poll {
		n, err := fsnotify.NewWatcher()
		if err != nil {
			w.log.Warn("inotify unavailable; polling instead", "err", err)
		} else {
			w.notify = n
		}
	}
	w.polling = w.notify == nil
	for _, dir := range w.skillDirs() {
		w.known[dir] = true
		w.inScope(dir)
		files, t, err := readSkill(dir)
		switch {
		case err != nil:
			w.log.Warn("cannot read skill folder", "dir", dir, "err", err)
		case t == nil:
		case discover.HasErrors(checkSkill(dir, files)):
			w.failed[dir] = t.ID
		default:
			w.last[dir] = t
		}
	}
	w.watchAll()
	if w.polling {
		w.stamps = w.fingerprints()
	}
	return w, nil
}

// Polling reports whether the watcher polls instead of using inotify.
func (w *Watcher) Polling() bool { return w.polling }

// Handle sets the reload hook of the skill named skill (the folder's base
// name), replacing WatchOptions.OnReload for it. Safe to call while running.
func (w *Watcher) Handle(skill string, fn ReloadFunc) {
	w.hooksMu.Lock()
	defer w.hooksMu.Unlock()
	w.hooks[skill] = fn
}

func (w *Watcher) hook(skill string) ReloadFunc {
	w.hooksMu.Lock()
	defer w.hooksMu.Unlock()
	if fn, ok := w.hooks[skill]; ok {
		return fn
	}
	return w.opts.OnReload
}

// Run watches until ctx is done, then returns nil; call it once. Reload
// hooks run one at a time, in a goroutine of their own, so a slow hook never
// stalls the watching; Run returns after the running hook returns (its ctx
// is cancelled).
func (w *Watcher) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		w.work(ctx)
	}()
	defer wg.Wait()
	defer cancel()
	defer w.closeNotify()

	settle := time.NewTimer(time.Hour)
	settle.Stop()
	var armedFor time.Time // zero when the timer is not armed
	arm := func() {
		// A mark can bring a deadline forward (MaxWait), so the timer
		// follows the earliest one.
		if next, ok := w.nextDeadline(); ok && (armedFor.IsZero() || next.Before(armedFor)) {
			settle.Reset(time.Until(next))
			armedFor = next
		}
	}
	var rescan <-chan time.Time
	if w.opts.Rescan > 0 {
		t := time.NewTicker(w.opts.Rescan)
		defer t.Stop()
		rescan = t.C
	}
	poll := time.NewTicker(w.opts.PollInterval)
	defer poll.Stop()

	for {
		var events <-chan fsnotify.Event
		var errs <-chan error
		if w.notify != nil {
			events, errs = w.notify.Events, w.notify.Errors
		}
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				w.lostInotify()
				break
			}
			w.onEvent(ev)
		case err, ok := <-errs:
			if !ok {
				w.lostInotify()
				break
			}
			w.onError(err)
		case <-poll.C:
			if w.polling {
				w.poll()
			}
		case <-rescan:
			w.rescan()
		case <-settle.C:
			armedFor = time.Time{}
			w.settleDue(time.Now())
		}
		if w.switched {
			// Events may have been lost: poll from now and look at everything.
			w.switched = false
			w.stamps = w.fingerprints()
			w.rescan()
		}
		arm()
	}
}

// lostInotify switches to polling when the inotify watcher stopped by itself.
func (w *Watcher) lostInotify() {
	w.log.Warn("inotify watcher stopped; polling instead")
	w.closeNotify()
	w.polling, w.switched = true, true
}

func (w *Watcher) closeNotify() {
	if w.notify != nil {
		w.notify.Close()
		w.notify = nil
	}
}

func (w *Watcher) nextDeadline() (time.Time, bool) {
	var next time.Time
	for _, t := range w.pending {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	return next, !next.IsZero()
}

// settleDue hands every skill whose quiet period has passed to the worker,
// in name order, after making sure its folders are watched.
func (w *Watcher) settleDue(now time.Time) {
	var due []string
	for dir, t := range w.pending {
		if !t.After(now) {
			due = append(due, dir)
			delete(w.pending, dir)
			delete(w.began, dir)
		}
	}
	sort.Strings(due)
	for _, dir := range due {
		w.watchTree(dir)
		w.queue.push(dir)
	}
}
