package pluginsync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
)

// prefetchFixture is a store with one git plugin "gitp" (skill "one")
// added from an upstream repository, and a way to commit upstream.
type prefetchFixture struct {
	s   *store.Store
	up  string
	src plugins.Source
}

func newPrefetchFixture(t *testing.T) *prefetchFixture {
	t.Helper()
	f := &prefetchFixture{s: storetest.NewStore(t), up: filepath.Join(t.TempDir(), "up")}
	storetest.WriteFile(t, filepath.Join(f.up, ".codex-plugin", "plugin.json"), `{"name": "gitp", "skills": "./skills/"}`)
	storetest.Git(t, f.up, "init", "-q", "-b", "main")
	f.commit(t, "v1")
	var err error
	if f.src, err = plugins.ParseSource("file://"+f.up, "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := Add(context.Background(), f.s, f.src, AddOptions{}); err != nil {
		t.Fatal(err)
	}
	return f
}

// commit writes body into skill one upstream and commits it.
func (f *prefetchFixture) commit(t *testing.T, body string) store.Hash {
	t.Helper()
	storetest.WriteFile(t, filepath.Join(f.up, "skills", "one", "SKILL.md"), storetest.SkillMD("one", body))
	storetest.Git(t, f.up, "add", "-A")
	storetest.Git(t, f.up, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", body)
	h, _ := store.ParseHash(strings.TrimSpace(storetest.Git(t, f.up, "rev-parse", "HEAD")))
	return h
}

func (f *prefetchFixture) sourceRef(t *testing.T) store.Hash {
	t.Helper()
	var h store.Hash
	f.s.View(context.Background(), func(r *store.Reader) error { h, _ = r.Ref(store.SourceRef("gitp")); return nil })
	return h
}

func (f *prefetchFixture) prefetch(t *testing.T) *plugins.Prefetched {
	t.Helper()
	return plugins.Prefetch(context.Background(), f.s, []plugins.FetchRequest{{Source: f.src, Have: f.sourceRef(t)}}, nil)
}

// syncWith runs a sync whose transaction takes the sources from pre.
func (f *prefetchFixture) syncWith(t *testing.T, pre *plugins.Prefetched) *Report {
	t.Helper()
	var rep *Report
	err := f.s.Update(context.Background(), func(tx *store.Tx) error {
		var err error
		rep, err = syncPlugins(context.Background(), tx, pre, Options{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func (f *prefetchFixture) published(t *testing.T) string {
	t.Helper()
	var body string
	err := f.s.View(context.Background(), func(r *store.Reader) error {
		head, err := r.Head("gitp:one")
		if err != nil {
			return err
		}
		files, err := r.LoadFiles(head.Tree)
		for _, file := range files {
			if file.Path == "SKILL.md" {
				body = string(file.Data)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// TestPrefetchOlderThanStoreIsFetchedAgain: a sync that fetched before
// another sync stored a newer upstream must not take the store back.
func TestPrefetchOlderThanStoreIsFetchedAgain(t *testing.T) {
	f := newPrefetchFixture(t)
	third := f.commit(t, "v2")
	stale := f.prefetch(t)
	if got, ok := stale.Commit(f.src); !ok || got != third {
		t.Fatalf("prefetch = %s, %v; want %s", got, ok, third)
	}
	fourth := f.commit(t, "v3")
	syncOnce(t, f.s, Options{}) // the other sync: takes v3 in
	rep := f.syncWith(t, stale)
	if got := f.sourceRef(t); got != fourth {
		t.Errorf("source ref = %s after a sync with an older prefetch, want %s", got, fourth)
	}
	if body := f.published(t); !strings.Contains(body, "v3") {
		t.Errorf("published SKILL.md went back: %q", body)
	}
	if sk := rep.Plugins[0].Skills[0]; sk.Changed() {
		t.Errorf("sync with an older prefetch changed the skill: %+v", sk)
	}
}

// TestPrefetchNewerThanMovedStoreIsUsed: when another sync stored an older
// upstream meanwhile, the prefetched newer commit is taken, without
// fetching again (the upstream is gone by then).
func TestPrefetchNewerThanMovedStoreIsUsed(t *testing.T) {
	f := newPrefetchFixture(t)
	f.commit(t, "v2")
	older := f.prefetch(t)
	fourth := f.commit(t, "v3")
	newer := f.prefetch(t)
	f.syncWith(t, older) // the other sync: takes v2 in
	if err := os.Rename(f.up, f.up+".gone"); err != nil {
		t.Fatal(err)
	}
	rep := f.syncWith(t, newer)
	if p := rep.Plugins[0]; p.Error != "" {
		t.Fatalf("sync with a newer prefetch fetched again: %s", p.Error)
	}
	if got := f.sourceRef(t); got != fourth {
		t.Errorf("source ref = %s, want %s", got, fourth)
	}
	if body := f.published(t); !strings.Contains(body, "v3") {
		t.Errorf("published SKILL.md = %q, want v3", body)
	}
	if out := storetest.Git(t, f.s.Dir(), "fsck", "--strict"); strings.Contains(out, "error") || strings.Contains(out, "missing") {
		t.Errorf("git fsck: %s", out)
	}
}

// TestPrefetchFailureFailsOnlyItsPlugin: a source whose prefetch failed
// fails its plugin in the transaction, which writes nothing for it.
func TestPrefetchFailureFailsOnlyItsPlugin(t *testing.T) {
	f := newPrefetchFixture(t)
	before := f.sourceRef(t)
	f.commit(t, "v2")
	if err := os.Rename(f.up, f.up+".gone"); err != nil {
		t.Fatal(err)
	}
	pre := f.prefetch(t)
	if pre.Err(f.src) == nil {
		t.Fatal("prefetch of a missing repository succeeded")
	}
	// The repository is back, but the sync takes the prefetched failure:
	// it does not fetch under the lock.
	if err := os.Rename(f.up+".gone", f.up); err != nil {
		t.Fatal(err)
	}
	rep := f.syncWith(t, pre)
	if p := rep.Plugins[0]; !strings.Contains(p.Error, "fetch file://"+f.up) {
		t.Errorf("plugin error = %q, want the prefetch's", p.Error)
	}
	if got := f.sourceRef(t); got != before {
		t.Errorf("source ref moved to %s after a failed fetch", got)
	}
}

// TestSyncReportsFetchProgress: sync reports each fetch as it ends, before
// the lock is taken (a terminal shows it while a slow server is waited on).
func TestSyncReportsFetchProgress(t *testing.T) {
	f := newPrefetchFixture(t)
	var calls []string
	_, err := Run(context.Background(), f.s, Options{FetchProgress: func(url string, done, total int) {
		calls = append(calls, fmt.Sprintf("%s %d/%d", url, done, total))
	}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "file://" + f.up + " 1/1"; len(calls) != 1 || calls[0] != want {
		t.Errorf("fetch progress = %q, want [%q]", calls, want)
	}
}

// TestPrefetchedReuseServesAnUnmovedPin: a whole fetch of a ref serves
// the same source pinned to the commit it found (install fetches a
// locked plugin's source once), and a plugin is added from it with no
// other fetch; a pin to another commit, or a fetch that offered a commit
// as had, is not served.
func TestPrefetchedReuseServesAnUnmovedPin(t *testing.T) {
	ctx := context.Background()
	dir, first, second := storetest.UpstreamRepo(t)
	s := storetest.NewStore(t)
	src, err := plugins.ParseSource("file://"+dir, "main")
	if err != nil {
		t.Fatal(err)
	}
	pin := func(commit string) plugins.Source { p := src; p.Ref = commit; return p }
	pre := plugins.Prefetch(ctx, s, []plugins.FetchRequest{{Source: src}}, nil)
	defer pre.Close()
	if pre.Reuse(pin(first), src) {
		t.Fatal("a fetch of main (at the second commit) served a pin to the first")
	}
	if !pre.Reuse(pin(second), src) {
		t.Fatal("a whole fetch of main did not serve a pin to the commit it found")
	}
	if got, ok := pre.Commit(pin(second)); !ok || got.String() != second {
		t.Fatalf("the pin's commit = %s, %v; want %s", got, ok, second)
	}
	have, _ := store.ParseHash(first)
	partial := plugins.Prefetch(ctx, storetest.NewStore(t), []plugins.FetchRequest{{Source: src, Have: have}}, nil)
	defer partial.Close()
	if err := partial.Err(src); err != nil {
		t.Fatal(err)
	}
	if partial.Reuse(pin(second), src) {
		t.Fatal("a fetch that offered a commit as had served a pin")
	}
	os.RemoveAll(dir) // nothing more is fetched
	if _, err := AddFetched(ctx, s, pre, pin(second), AddOptions{ID: "up"}); err != nil {
		t.Fatalf("add from the reused fetch: %v", err)
	}
}
