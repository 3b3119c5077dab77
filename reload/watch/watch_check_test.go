package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/reload"
)

// hookCalls records the events a reload hook was called with.
type hookCalls struct {
	mu  sync.Mutex
	evs []Event
}

func (h *hookCalls) hook(ctx context.Context, ev Event) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.evs = append(h.evs, ev)
	return nil
}

func (h *hookCalls) list() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, ev := range h.evs {
		out = append(out, ev.Skill+":"+string(ev.Action)+":"+string(ev.Class))
	}
	return out
}

// TestWatcherReportsSkillsThatDoNotLoad breaks a skill's SKILL.md: the
// event is a failure with the diagnostics, the hook does not run, and the
// fix is classified against the version the agent still has.
func TestWatcherReportsSkillsThatDoNotLoad(t *testing.T) {
	root := newSkills(t, "alpha")
	var calls hookCalls
	r := startWatcher(t, []string{root}, WatchOptions{OnReload: calls.hook})

	writeTree(t, root, map[string]string{"alpha/SKILL.md": "just text, no frontmatter\n"})
	ev := r.next(t)
	if ev.Skill != "alpha" || ev.Action != EventUpdated || ev.Class != reload.Hot || ev.Outcome != Failure {
		t.Fatalf("broken SKILL.md: %+v", ev)
	}
	md := filepath.Join(root, "alpha", "SKILL.md")
	if len(ev.Diagnostics) != 1 || ev.Diagnostics[0].File != md || ev.Diagnostics[0].Line != 1 ||
		ev.Diagnostics[0].Severity != discover.SeverityError || !strings.Contains(ev.Diagnostics[0].Message, "frontmatter") {
		t.Errorf("diagnostics = %+v", ev.Diagnostics)
	}
	if !strings.Contains(ev.Error, md+":1: error: missing YAML frontmatter") {
		t.Errorf("error = %q", ev.Error)
	}

	// Still broken, and a script added: a new failure, not a reload.
	writeTree(t, root, map[string]string{"alpha/scripts/new.sh*": "#!/bin/sh\n"})
	if ev := r.next(t); ev.Outcome != Failure || ev.Class != reload.Cold || !slices.Equal(ev.Paths, []string{"SKILL.md", "scripts/new.sh"}) {
		t.Fatalf("second broken change: %+v", ev)
	}

	// Fixed: the agent still has v1, so the change is cold and names both
	// paths, although only SKILL.md changed since the last event.
	writeTree(t, root, map[string]string{"alpha/SKILL.md": skillMD("alpha", "v3")})
	ev = r.expect(t, "alpha", reload.Cold, "SKILL.md", "scripts/new.sh")
	if ev.Action != EventUpdated || len(ev.Diagnostics) != 0 {
		t.Errorf("fixed: %+v", ev)
	}
	if got := calls.list(); !slices.Equal(got, []string{"alpha:updated:cold"}) {
		t.Errorf("hook calls = %v, want only the fix", got)
	}
}

// TestWatcherReportsABrokenTreeOnce reloads a broken skill twice, as a
// rescan does: the second time reports nothing.
func TestWatcherReportsABrokenTreeOnce(t *testing.T) {
	root := newSkills(t, "alpha")
	w, err := NewWatcher([]string{root}, WatchOptions{Poll: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []Event
	w.opts.OnEvent = func(ev Event) { got = append(got, ev) }
	writeTree(t, root, map[string]string{"alpha/SKILL.md": "---\nname: alpha\ndescription: [not, a, string]\n---\nbody\n"})
	dir := filepath.Join(root, "alpha")
	w.reload(context.Background(), dir)
	w.reload(context.Background(), dir)
	if len(got) != 1 || got[0].Outcome != Failure || !strings.Contains(got[0].Error, "description must be a string") {
		t.Fatalf("events = %+v", got)
	}
}

// TestWatcherReportsRemovalsAndAdditions deletes a skill folder (removed,
// cold, the hook runs so the agent can unload it), adds one (added), and
// fixes a skill that was broken when watching began (added: the agent never
// loaded it).
func TestWatcherReportsRemovalsAndAdditions(t *testing.T) {
	root := newSkills(t, "alpha", "broken")
	writeTree(t, root, map[string]string{"broken/SKILL.md": "no frontmatter\n"})
	var calls hookCalls
	r := startWatcher(t, []string{root}, WatchOptions{OnReload: calls.hook})

	if err := os.RemoveAll(filepath.Join(root, "alpha")); err != nil {
		t.Fatal(err)
	}
	ev := r.expect(t, "alpha", reload.Cold, "SKILL.md", "scripts/run.sh")
	if ev.Action != EventRemoved || !ev.NewTree.IsZero() || !slices.Equal(ev.Files, []string{"alpha/SKILL.md", "alpha/scripts/run.sh"}) {
		t.Errorf("removal: %+v", ev)
	}

	writeTree(t, root, map[string]string{"broken/SKILL.md": skillMD("broken", "fixed")})
	if ev := r.expect(t, "broken", reload.Cold, "SKILL.md", "scripts/run.sh"); ev.Action != EventAdded || !ev.OldTree.IsZero() {
		t.Errorf("fixed at last: %+v", ev)
	}
	writeTree(t, root, map[string]string{"gamma/SKILL.md": skillMD("gamma", "new")})
	if ev := r.expect(t, "gamma", reload.Cold, "SKILL.md"); ev.Action != EventAdded || ev.Type != EventReload {
		t.Errorf("new skill: %+v", ev)
	}
	want := []string{"alpha:removed:cold", "broken:added:cold", "gamma:added:cold"}
	if got := calls.list(); !slices.Equal(got, want) {
		t.Errorf("hook calls = %v, want %v", got, want)
	}
}

// TestWatcherMaxWaitBoundsTheDebounce writes to a skill every 20 ms, more
// often than the debounce lets it settle, and expects the change reported
// while the writes go on. Without a bound it is reported only after they
// stop.
func TestWatcherMaxWaitBoundsTheDebounce(t *testing.T) {
	root := newSkills(t, "alpha")
	r := startWatcher(t, []string{root}, WatchOptions{Debounce: 200 * time.Millisecond, MaxWait: 300 * time.Millisecond})
	stop := make(chan struct{})
	stopped := make(chan bool, 1) // true when the writer ran out of writes
	go func() {
		for i := range 1000 { // 20 s at most
			select {
			case <-stop:
				stopped <- false
				return
			case <-time.After(20 * time.Millisecond):
			}
			if err := os.WriteFile(filepath.Join(root, "alpha", "notes.md"), []byte(strings.Repeat("x", i)), 0o644); err != nil {
				t.Error(err)
			}
		}
		stopped <- true
	}()
	ev := r.next(t)
	close(stop)
	if <-stopped {
		t.Fatal("the change was reported only after the writes stopped")
	}
	if ev.Skill != "alpha" || ev.Class != reload.Cold || !slices.Contains(ev.Paths, "notes.md") {
		t.Errorf("event = %+v", ev)
	}
}

func TestMaxWaitDefaults(t *testing.T) {
	for _, c := range []struct{ debounce, maxWait, want time.Duration }{
		{0, 0, DefaultMaxWait},
		{5 * time.Second, 0, 5 * time.Second},
		{0, time.Second, time.Second},
		{0, -1, -1},
	} {
		if got := (WatchOptions{Debounce: c.debounce, MaxWait: c.maxWait}).withDefaults().MaxWait; got != c.want {
			t.Errorf("debounce %v, max wait %v: got %v, want %v", c.debounce, c.maxWait, got, c.want)
		}
	}
}

// TestWatcherWatchesWhatATargetWants watches a target folder that export
// wrote: a skill the patterns exclude and a folder export did not create
// fire nothing; the wanted skill is reported, and reported as removed when
// export removes it.
func TestWatcherWatchesWhatATargetWants(t *testing.T) {
	target := t.TempDir()
	ctx := context.Background()
	exportSkills := func(names ...string) {
		t.Helper()
		var skills []reload.Skill
		for _, n := range names {
			skills = append(skills, reload.Skill{Name: n, Files: []skillfs.File{{Path: "SKILL.md", Data: []byte(skillMD(n, "v1"))}}})
		}
		if _, err := reload.Export(ctx, target, skills, reload.ExportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	exportSkills("alpha", "skipped")
	writeTree(t, target, map[string]string{"foreign/SKILL.md": skillMD("foreign", "mine")})
	var calls hookCalls
	r := startRootsWatcher(t, []Root{{Dir: target, Exported: true, Want: func(s string) bool { return s != "skipped" }}},
		WatchOptions{OnReload: calls.hook})

	writeTree(t, target, map[string]string{"foreign/SKILL.md": skillMD("foreign", "edited")})
	writeTree(t, target, map[string]string{"skipped/SKILL.md": skillMD("skipped", "edited")})
	writeTree(t, target, map[string]string{"alpha/SKILL.md": skillMD("alpha", "edited")})
	if ev := r.expect(t, "alpha", reload.Hot, "SKILL.md"); ev.Action != EventUpdated {
		t.Errorf("edit: %+v", ev)
	}
	if err := os.RemoveAll(filepath.Join(target, "foreign")); err != nil {
		t.Fatal(err)
	}
	// alpha is now locally modified, so export leaves it: export a new
	// skill, then drop alpha after putting export's version back.
	writeTree(t, target, map[string]string{"alpha/SKILL.md": skillMD("alpha", "v1")})
	r.expect(t, "alpha", reload.Hot, "SKILL.md")
	exportSkills("beta")
	var got []string
	for range 2 {
		ev := r.next(t)
		got = append(got, ev.Skill+":"+string(ev.Action))
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"alpha:removed", "beta:added"}) {
		t.Errorf("after export: %v", got)
	}
	for _, c := range calls.list() {
		if strings.HasPrefix(c, "foreign") || strings.HasPrefix(c, "skipped") {
			t.Errorf("hook ran for %s", c)
		}
	}
}

func startRootsWatcher(t *testing.T, roots []Root, opts WatchOptions) *running {
	t.Helper()
	r := &running{events: make(chan Event, 1000), done: make(chan error, 1)}
	opts.OnEvent = func(ev Event) { r.events <- ev }
	w, err := NewRootsWatcher(roots, opts)
	if err != nil {
		t.Fatal(err)
	}
	r.w = w
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-r.done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return r
}

// TestCheckSkillFollowsALinkedSkillMD validates a SKILL.md that is a
// symlink through the link, as agents read it.
func TestCheckSkillFollowsALinkedSkillMD(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "alpha")
	writeTree(t, dir, map[string]string{"docs/main.md": skillMD("alpha", "linked"), "SKILL.md": "->docs/main.md"})
	files, _, err := readSkill(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diags := errorsOnly(checkSkill(dir, files)); len(diags) != 0 {
		t.Errorf("linked SKILL.md: %v", diags)
	}
	if err := os.Remove(filepath.Join(dir, "docs", "main.md")); err != nil {
		t.Fatal(err)
	}
	files, _, _ = readSkill(dir)
	if diags := errorsOnly(checkSkill(dir, files)); len(diags) != 1 || !strings.Contains(diags[0].Message, "cannot read through the symlink") {
		t.Errorf("dangling SKILL.md: %v", diags)
	}
}
