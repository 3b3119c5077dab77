package plugins_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/pluginsync"
)

// baseFixture is a git upstream with three commits, each changing
// skills/one/SKILL.md, added to a store as plugin "kit".
type baseFixture struct {
	s       *store.Store
	commits []store.Hash // oldest first
	bodies  [][]string
}

func newBaseFixture(t *testing.T) *baseFixture {
	t.Helper()
	return newBaseFixtureWith(t, nil)
}

// newBaseFixtureWith also commits the files extra (paths inside the skill
// folder) in the first commit.
func newBaseFixtureWith(t *testing.T, extra map[string]string) *baseFixture {
	t.Helper()
	up := filepath.Join(t.TempDir(), "up")
	storetest.WriteFile(t, filepath.Join(up, "README.md"), "an upstream\n")
	for p, content := range extra {
		storetest.WriteFile(t, filepath.Join(up, "skills", "one", p), content)
	}
	storetest.Git(t, filepath.Dir(up), "init", "-q", "-b", "main", up)
	f := &baseFixture{s: storetest.NewStore(t)}
	body := []string{"step one", "step two", "step three", "step four"}
	for i := range 3 {
		if i > 0 {
			body = append([]string{}, body...)
			body[i] = body[i] + ", revised upstream"
		}
		f.bodies = append(f.bodies, body)
		storetest.WriteFile(t, filepath.Join(up, "skills", "one", "SKILL.md"), storetest.SkillMD("one", body...))
		storetest.Git(t, up, "add", "-A", "--force")
		storetest.Git(t, up, "-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-q", "-m", "change "+string(rune('1'+i)))
		h, ok := store.ParseHash(strings.TrimSpace(storetest.Git(t, up, "rev-parse", "HEAD")))
		if !ok {
			t.Fatal("rev-parse HEAD")
		}
		f.commits = append(f.commits, h)
	}
	src, err := plugins.ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pluginsync.Add(context.Background(), f.s, src, pluginsync.AddOptions{ID: "kit"}); err != nil {
		t.Fatal(err)
	}
	return f
}

// find runs FindBase from the plugin's fetched commit.
func (f *baseFixture) find(t *testing.T, q plugins.BaseQuery) (*plugins.Base, error) {
	t.Helper()
	var b *plugins.Base
	err := f.s.View(context.Background(), func(r *store.Reader) error {
		tip, ok := r.Ref(store.SourceRef("kit"))
		if !ok {
			t.Fatal("plugin kit has no fetched commit")
		}
		if q.Path == "" {
			q.Path = "skills/one"
		}
		q.Tip = tip
		var err error
		b, err = plugins.FindBase(r, q)
		return err
	})
	return b, err
}

func skillFiles(content string) []store.File {
	return []store.File{{Path: "SKILL.md", Mode: skillfs.Regular, Data: []byte(content)}}
}

func TestFindBaseExact(t *testing.T) {
	f := newBaseFixture(t)
	for i, c := range f.commits {
		b, err := f.find(t, plugins.BaseQuery{Files: skillFiles(storetest.SkillMD("one", f.bodies[i]...))})
		if err != nil {
			t.Fatal(err)
		}
		if b.Commit != c || !b.Exact || b.Distance != 0 || b.Walked != 3-i {
			t.Errorf("commit %d: got %+v, want exact %s after %d commits", i+1, b, c, 3-i)
		}
	}
}

// A lock file's skillFolderHash is the folder's git tree id: found with no
// files at all.
func TestFindBaseExactByTreeID(t *testing.T) {
	f := newBaseFixture(t)
	tree, err := store.TreeHash(skillFiles(storetest.SkillMD("one", f.bodies[0]...)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.find(t, plugins.BaseQuery{Tree: tree})
	if err != nil {
		t.Fatal(err)
	}
	if b.Commit != f.commits[0] || !b.Exact || b.Tree != tree {
		t.Errorf("got %+v, want exact %s with tree %s", b, f.commits[0], tree)
	}
}

// A copy of commit 1 with a local edit is closest to commit 1: one file,
// one line changed (a deletion and an insertion).
func TestFindBaseClosest(t *testing.T) {
	f := newBaseFixture(t)
	edited := append([]string{}, f.bodies[0]...)
	edited[3] = "step four, edited locally"
	b, err := f.find(t, plugins.BaseQuery{Files: skillFiles(storetest.SkillMD("one", edited...))})
	if err != nil {
		t.Fatal(err)
	}
	if b.Commit != f.commits[0] || b.Exact || b.Files != 1 || b.Distance != 2 || b.Walked != 3 {
		t.Errorf("got %+v, want closest %s at 1 file, 2 lines", b, f.commits[0])
	}
}

func TestFindBaseNotFound(t *testing.T) {
	f := newBaseFixture(t)
	_, err := f.find(t, plugins.BaseQuery{Path: "skills/two", Files: skillFiles(storetest.SkillMD("two", "x"))})
	if !errors.Is(err, plugins.ErrNoBase) {
		t.Errorf("a path no commit has: %v, want ErrNoBase", err)
	}
	// A tree id the history does not hold, and no files to compare.
	_, err = f.find(t, plugins.BaseQuery{Tree: store.Hash{1, 2, 3}})
	if !errors.Is(err, plugins.ErrNoBase) {
		t.Errorf("an unknown tree id: %v, want ErrNoBase", err)
	}
}

// The walk stops after Limit commits: commit 1, two commits behind the
// tip, is out of reach of a limit of 2.
func TestFindBaseBounded(t *testing.T) {
	f := newBaseFixture(t)
	files := skillFiles(storetest.SkillMD("one", f.bodies[0]...))
	b, err := f.find(t, plugins.BaseQuery{Files: files, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if b.Commit != f.commits[1] || b.Exact || !b.Truncated || b.Walked != 2 {
		t.Errorf("limit 2: got %+v, want the closest of the two newest (%s), truncated", b, f.commits[1])
	}
	tree, _ := store.TreeHash(files)
	// The store holds that tree (fetched with the history), so its files
	// are compared as well.
	b, err = f.find(t, plugins.BaseQuery{Tree: tree, Limit: 2})
	if err != nil || b.Commit != f.commits[1] || b.Exact || !b.Truncated {
		t.Errorf("limit 2 by tree id: %+v, %v, want the closest %s, truncated", b, err, f.commits[1])
	}
	b, err = f.find(t, plugins.BaseQuery{Tree: tree, Limit: 3})
	if err != nil || b.Commit != f.commits[0] || !b.Exact {
		t.Errorf("limit 3 by tree id: %+v, %v, want exact %s", b, err, f.commits[0])
	}
}

// The store drops editor litter (skillfs.Ignored) from every skill, so a
// managed copy lacks the .DS_Store its upstream committed: still exact, by
// its files or by the installed folder's raw tree id, and the base's tree
// is the one without the litter (what a sync snapshot holds).
func TestFindBaseIgnoresLitter(t *testing.T) {
	f := newBaseFixtureWith(t, map[string]string{".DS_Store": "litter"})
	files := skillFiles(storetest.SkillMD("one", f.bodies[0]...))
	clean, err := store.TreeHash(files)
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.find(t, plugins.BaseQuery{Files: files})
	if err != nil {
		t.Fatal(err)
	}
	if b.Commit != f.commits[0] || !b.Exact || b.Tree != clean {
		t.Errorf("by files: got %+v, want exact %s with tree %s", b, f.commits[0], clean)
	}
	raw, err := store.TreeHash(append(skillFiles(storetest.SkillMD("one", f.bodies[0]...)), store.File{Path: ".DS_Store", Mode: skillfs.Regular, Data: []byte("litter")}))
	if err != nil {
		t.Fatal(err)
	}
	b, err = f.find(t, plugins.BaseQuery{Tree: raw})
	if err != nil {
		t.Fatal(err)
	}
	if b.Commit != f.commits[0] || !b.Exact || b.Tree != clean {
		t.Errorf("by raw tree id: got %+v, want exact %s with tree %s", b, f.commits[0], clean)
	}
}
