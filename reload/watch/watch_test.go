package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/skillstore/skillstore/reload"
)

// eventTimeout only stops a broken test from hanging; nothing is timed.
const eventTimeout = 30 * time.Second

type running struct {
	w      *Watcher
	events chan Event
	cancel context.CancelFunc
	done   chan error
}

func startWatcher(t *testing.T, roots []string, opts WatchOptions) *running {
	t.Helper()
	rs := make([]Root, len(roots))
	for i, dir := range roots {
		rs[i] = Root{Dir: dir}
	}
	return startRootsWatcher(t, rs, opts)
}

func (r *running) next(t *testing.T) Event {
	t.Helper()
	select {
	case ev := <-r.events:
		return ev
	case <-time.After(eventTimeout):
		t.Fatal("no event arrived")
		return Event{}
	}
}

func (r *running) expect(t *testing.T, skill string, class reload.Class, paths ...string) Event {
	t.Helper()
	ev := r.next(t)
	if ev.Skill != skill || ev.Class != class || !slices.Equal(ev.Paths, paths) || ev.Outcome != Success {
		t.Fatalf("event = %s %s %v %s %q, want %s %s %v success", ev.Skill, ev.Class, ev.Paths, ev.Outcome, ev.Error, skill, class, paths)
	}
	return ev
}

// skillMD is a SKILL.md that loads: frontmatter with a name and a
// description, then body.
func skillMD(name, body string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\n" + body + "\n"
}

func newSkills(t *testing.T, names ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, n := range names {
		writeTree(t, root, map[string]string{
			n + "/SKILL.md":        skillMD(n, "v1"),
			n + "/scripts/run.sh*": "#!/bin/sh\necho v1\n",
		})
	}
	return root
}

func TestWatcherReportsEachKindOfChange(t *testing.T) {
	root := newSkills(t, "alpha", "beta")
	r := startWatcher(t, []string{root}, WatchOptions{})
	before, err := reload.ReadTree(filepath.Join(root, "alpha"))
	if err != nil {
		t.Fatal(err)
	}

	writeTree(t, root, map[string]string{"alpha/SKILL.md": skillMD("alpha", "v2")})
	ev := r.expect(t, "alpha", reload.Hot, "SKILL.md")
	after, _ := reload.ReadTree(filepath.Join(root, "alpha"))
	if ev.OldTree != before.ID || ev.NewTree != after.ID || ev.ID == "" || ev.Time.IsZero() {
		t.Errorf("event trees/id: %+v", ev)
	}

	// A new file in a new subfolder is cold.
	writeTree(t, root, map[string]string{"beta/references/deep/api.md": "api\n"})
	r.expect(t, "beta", reload.Cold, "references/deep/api.md")

	// A file in a folder created after the watch started is seen too.
	writeTree(t, root, map[string]string{"beta/references/deep/more.md": "more\n"})
	r.expect(t, "beta", reload.Cold, "references/deep/more.md")

	// A new skill folder is a first install; removing one is a removal.
	writeTree(t, root, map[string]string{"gamma/SKILL.md": skillMD("gamma", "g")})
	if ev := r.expect(t, "gamma", reload.Cold, "SKILL.md"); !ev.OldTree.IsZero() {
		t.Errorf("new skill has an old tree: %+v", ev)
	}
	if err := os.RemoveAll(filepath.Join(root, "beta")); err != nil {
		t.Fatal(err)
	}
	if ev := r.expect(t, "beta", reload.Cold, "SKILL.md", "references/deep/api.md", "references/deep/more.md", "scripts/run.sh"); !ev.NewTree.IsZero() {
		t.Errorf("removed skill has a new tree: %+v", ev)
	}
}

// TestWatcherHandlesRenameOnSave saves SKILL.md the way vim does (probe
// file, backup by rename, new file, swap file) and expects one hot event.
func TestWatcherHandlesRenameOnSave(t *testing.T) {
	root := newSkills(t, "alpha")
	r := startWatcher(t, []string{root}, WatchOptions{})
	dir := filepath.Join(root, "alpha")
	p := filepath.Join(dir, "SKILL.md")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, ".SKILL.md.swp"), []byte("swap"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "4913"), nil, 0o644))
	must(os.Remove(filepath.Join(dir, "4913")))
	must(os.Rename(p, p+"~"))
	must(os.WriteFile(p, []byte(skillMD("alpha", "saved by vim")), 0o644))
	must(os.Remove(p + "~"))
	r.expect(t, "alpha", reload.Hot, "SKILL.md")
	must(os.Remove(filepath.Join(dir, ".SKILL.md.swp")))

	// An atomic save through a temporary file renamed over SKILL.md.
	tmp := filepath.Join(dir, ".SKILL.md.tmp-123")
	must(os.WriteFile(tmp, []byte(skillMD("alpha", "saved atomically")), 0o644))
	must(os.Rename(tmp, p))
	r.expect(t, "alpha", reload.Hot, "SKILL.md")
}

// TestWatcherIgnoresChmodOnlyEvents changes only a mode, then edits another
// skill: the first event must be the edit.
func TestWatcherIgnoresChmodOnlyEvents(t *testing.T) {
	root := newSkills(t, "alpha", "beta")
	r := startWatcher(t, []string{root}, WatchOptions{Rescan: -1})
	if err := os.Chmod(filepath.Join(root, "alpha", "SKILL.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{"beta/SKILL.md": skillMD("beta", "edited")})
	r.expect(t, "beta", reload.Hot, "SKILL.md")
}

func TestWatcherKeepsGoingAfterHookFailures(t *testing.T) {
	root := newSkills(t, "alpha", "beta")
	var mu sync.Mutex
	var calls []string
	r := startWatcher(t, []string{root}, WatchOptions{
		OnReload: func(ctx context.Context, ev Event) error {
			mu.Lock()
			calls = append(calls, ev.Skill+":"+string(ev.Class))
			mu.Unlock()
			if ev.Skill == "alpha" {
				return errors.New("agent refused the reload")
			}
			return nil
		},
	})
	r.w.Handle("beta", func(ctx context.Context, ev Event) error { panic("hook bug") })

	writeTree(t, root, map[string]string{"alpha/SKILL.md": skillMD("alpha", "v2")})
	if ev := r.next(t); ev.Skill != "alpha" || ev.Outcome != Failure || ev.Error != "agent refused the reload" {
		t.Fatalf("event = %+v", ev)
	}
	writeTree(t, root, map[string]string{"beta/SKILL.md": skillMD("beta", "v2")})
	if ev := r.next(t); ev.Skill != "beta" || ev.Outcome != Failure || !strings.Contains(ev.Error, "hook bug") {
		t.Fatalf("event = %+v", ev)
	}
	r.w.Handle("beta", func(ctx context.Context, ev Event) error { return nil })
	writeTree(t, root, map[string]string{"beta/scripts/run.sh*": "#!/bin/sh\necho v2\n"})
	r.expect(t, "beta", reload.Cold, "scripts/run.sh")
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(calls, []string{"alpha:hot"}) {
		t.Errorf("default hook calls = %v", calls)
	}
}

func TestWatcherPolls(t *testing.T) {
	root := newSkills(t, "alpha")
	single := filepath.Join(newSkills(t, "solo"), "solo")
	r := startWatcher(t, []string{root, single}, WatchOptions{Poll: true, PollInterval: 20 * time.Millisecond})
	if !r.w.Polling() {
		t.Fatal("watcher does not poll")
	}
	writeTree(t, root, map[string]string{"alpha/SKILL.md": skillMD("alpha", "v2")})
	r.expect(t, "alpha", reload.Hot, "SKILL.md")
	writeTree(t, single, map[string]string{"extra.md": "x\n"})
	r.expect(t, "solo", reload.Cold, "extra.md")
}

// TestWatcherSingleSkillRoot watches a skill folder itself, not its parent.
func TestWatcherSingleSkillRoot(t *testing.T) {
	single := filepath.Join(newSkills(t, "solo"), "solo")
	r := startWatcher(t, []string{single}, WatchOptions{})
	writeTree(t, single, map[string]string{"SKILL.md": skillMD("solo", "v2")})
	r.expect(t, "solo", reload.Hot, "SKILL.md")
}

// TestWatcherRescansAfterOverflow checks that a lost-events error marks
// every skill for a rescan, and that the rescan finds a change made while
// no event was delivered.
func TestWatcherRescansAfterOverflow(t *testing.T) {
	root := newSkills(t, "alpha", "beta")
	w, err := NewWatcher([]string{root}, WatchOptions{Poll: true})
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{"beta/SKILL.md": skillMD("beta", "changed while events were lost")})
	w.onError(fsnotify.ErrEventOverflow)
	if len(w.pending) != 2 {
		t.Fatalf("pending after overflow = %v", w.pending)
	}
	var got []Event
	w.opts.OnEvent = func(ev Event) { got = append(got, ev) }
	w.settleDue(time.Now().Add(time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	for range 2 {
		dir, _ := w.queue.pop(ctx)
		w.reload(ctx, dir)
	}
	cancel()
	if len(got) != 1 || got[0].Skill != "beta" || got[0].Class != reload.Hot {
		t.Fatalf("events after rescan = %+v", got)
	}
}

// TestWatcherLatencyEventsArrive makes 20 edits one after the other and
// checks that each arrives as its own event (the timing is a benchmark).
func TestWatcherLatencyEventsArrive(t *testing.T) {
	root := newSkills(t, "alpha")
	r := startWatcher(t, []string{root}, WatchOptions{})
	for i := range 20 {
		writeTree(t, root, map[string]string{"alpha/SKILL.md": skillMD("alpha", fmt.Sprintf("edit %d", i))})
		r.expect(t, "alpha", reload.Hot, "SKILL.md")
	}
}

// TestWatcherStorm writes 1,000 files across 100 skills (50 existing, 50
// created during the storm) within about a second and expects every skill
// reported exactly once after it settles. A sentinel edit made after the
// storm marks the end: its event comes after every storm event.
func TestWatcherStorm(t *testing.T) {
	var names []string
	for i := range 50 {
		names = append(names, fmt.Sprintf("old-%02d", i))
	}
	root := newSkills(t, append(names, "zz-sentinel")...)
	r := startWatcher(t, []string{root}, WatchOptions{Debounce: 500 * time.Millisecond})
	var all []string
	for i := range 100 {
		name := fmt.Sprintf("old-%02d", i)
		if i >= 50 {
			name = fmt.Sprintf("new-%02d", i)
		}
		all = append(all, name)
		files := map[string]string{}
		for f := range 10 {
			switch f % 3 {
			case 0:
				files[fmt.Sprintf("%s/storm-%d.md", name, f)] = "x"
			case 1:
				files[fmt.Sprintf("%s/scripts/storm-%d.sh*", name, f)] = "#!/bin/sh\n"
			default:
				files[fmt.Sprintf("%s/references/a/b/storm-%d.md", name, f)] = "deep"
			}
		}
		if i >= 50 {
			files[name+"/SKILL.md"] = skillMD(name, "new")
		}
		writeTree(t, root, files)
		time.Sleep(5 * time.Millisecond) // spread the storm over about a second
	}
	writeTree(t, root, map[string]string{"zz-sentinel/SKILL.md": skillMD("zz-sentinel", "end of storm")})

	counts := map[string]int{}
	for {
		ev := r.next(t)
		if ev.Outcome != Success || ev.Class != reload.Cold && ev.Skill != "zz-sentinel" {
			t.Errorf("storm event: %+v", ev)
		}
		if ev.Skill == "zz-sentinel" {
			break
		}
		counts[ev.Skill]++
		if len(ev.Paths) < 10 {
			t.Errorf("%s reported with %d paths, want 10 or more: %v", ev.Skill, len(ev.Paths), ev.Paths)
		}
	}
	for _, name := range all {
		if counts[name] != 1 {
			t.Errorf("%s reported %d times, want once", name, counts[name])
		}
	}
	if len(counts) != 100 {
		t.Errorf("%d skills reported, want 100", len(counts))
	}
}

// TestWatcherFallsBackToPolling hits inotify's watch limit (ENOSPC, as when
// fs.inotify.max_user_watches is reached) and expects the watcher to poll
// and still report changes.
func TestWatcherFallsBackToPolling(t *testing.T) {
	root := newSkills(t, "alpha")
	saved := addWatch
	addWatch = func(*fsnotify.Watcher, string) error { return syscall.ENOSPC }
	defer func() { addWatch = saved }()
	r := startWatcher(t, []string{root}, WatchOptions{PollInterval: 20 * time.Millisecond})
	if !r.w.Polling() {
		t.Fatal("watcher did not fall back to polling")
	}
	writeTree(t, root, map[string]string{"alpha/SKILL.md": skillMD("alpha", "v2")})
	r.expect(t, "alpha", reload.Hot, "SKILL.md")
}

// TestWatcherFollowsLinkedSkillFolders watches a skills folder in which a
// skill is a symlink to a folder elsewhere (as people link skills into
// ~/.claude/skills), with inotify and with polling.
func TestWatcherFollowsLinkedSkillFolders(t *testing.T) {
	for _, poll := range []bool{false, true} {
		t.Run(fmt.Sprintf("poll=%v", poll), func(t *testing.T) {
			elsewhere := newSkills(t, "linked")
			root := newSkills(t, "plain")
			if err := os.Symlink(filepath.Join(elsewhere, "linked"), filepath.Join(root, "linked")); err != nil {
				t.Fatal(err)
			}
			r := startWatcher(t, []string{root}, WatchOptions{Poll: poll, PollInterval: 20 * time.Millisecond})
			writeTree(t, elsewhere, map[string]string{"linked/scripts/new.sh*": "#!/bin/sh\n"})
			if ev := r.expect(t, "linked", reload.Cold, "scripts/new.sh"); ev.Dir != filepath.Join(root, "linked") {
				t.Errorf("event dir = %s", ev.Dir)
			}
		})
	}
}
