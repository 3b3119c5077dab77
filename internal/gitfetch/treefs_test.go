package gitfetch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/skillstore/skillstore/internal/pluginfmt"
)

// wideRepo makes a git repository whose one commit holds skills/a/SKILL.md
// and n empty files in the folder wide, built with git's plumbing
// (mktree, read-tree) so no work tree of n files is written.
func wideRepo(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "wide")
	md := filepath.Join(dir, "skills", "a", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(md), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(md, []byte("---\nname: a\ndescription: A skill.\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, dir, "init", "-q", "-b", "main")
	gitRun(t, dir, "add", "-A")
	empty := strings.TrimSpace(gitRun(t, dir, "hash-object", "-w", "/dev/null"))
	var list strings.Builder
	for i := range n {
		fmt.Fprintf(&list, "100644 blob %s\tf%06d\n", empty, i)
	}
	cmd := exec.Command("git", "mktree")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(list.String())
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git mktree: %v", err)
	}
	gitRun(t, dir, "read-tree", "--prefix=wide/", strings.TrimSpace(string(out)))
	gitRun(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "wide")
	return dir
}

// countingStorer counts the reads of each object.
type countingStorer struct {
	storer.EncodedObjectStorer
	reads map[plumbing.Hash]int
}

func (c *countingStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	c.reads[h]++
	return c.EncodedObjectStorer.EncodedObject(t, h)
}

// Reading every file of a wide folder decodes that folder's tree once, not
// once per file: go-git's FindEntry decoded it again for each of them, so
// a plugin with 100,000 files in one folder took minutes to read.
func TestTreeFSDecodesEachFolderOnce(t *testing.T) {
	const n = 2000
	dir := wideRepo(t, n)
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	head, err := repo.Head()
	if err != nil {
		t.Fatal(err)
	}
	c, err := repo.CommitObject(head.Hash())
	if err != nil {
		t.Fatal(err)
	}
	st := &countingStorer{EncodedObjectStorer: repo.Storer, reads: map[plumbing.Hash]int{}}
	root, err := object.GetTree(st, c.TreeHash)
	if err != nil {
		t.Fatal(err)
	}
	wide, err := root.Tree("wide")
	if err != nil {
		t.Fatal(err)
	}
	st.reads = map[plumbing.Hash]int{}
	fsys := NewTreeFS(st, root)
	entries, err := fsys.ReadDir("wide")
	if err != nil || len(entries) != n {
		t.Fatalf("ReadDir(wide) = %d entries, %v; want %d", len(entries), err, n)
	}
	for _, e := range entries {
		p := "wide/" + e.Name()
		if _, err := fsys.Lstat(p); err != nil {
			t.Fatal(err)
		}
		if data, err := fsys.ReadFile(p); err != nil || len(data) != 0 {
			t.Fatalf("ReadFile(%s) = %q, %v", p, data, err)
		}
	}
	if got := st.reads[wide.Hash]; got != 1 {
		t.Errorf("the tree of wide was read %d times for %d files, want once", got, n)
	}
	if data, err := fsys.ReadFile("skills/a/SKILL.md"); err != nil || !strings.Contains(string(data), "name: a") {
		t.Errorf("ReadFile(skills/a/SKILL.md) = %q, %v", data, err)
	}
	for _, bad := range []string{"wide/missing", "skills/a/SKILL.md/x", "nope/x", "wide/f000001/x"} {
		if _, err := fsys.Lstat(bad); !os.IsNotExist(err) {
			t.Errorf("Lstat(%s) = %v, want not exist", bad, err)
		}
	}
	if _, err := fsys.ReadDir("skills/a/SKILL.md"); err == nil {
		t.Error("ReadDir of a file succeeded")
	}
}

// A skill folder whose tree object cannot be read (lost, or moved by
// another process the reader cannot see) is an error for the layout, not
// a missing skill: taken for absence, sync reported such skills as
// removed upstream.
func TestUnreadableFolderIsNoMissingSkill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "up")
	for _, name := range []string{"a", "b"} {
		md := filepath.Join(dir, "skills", name, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(md), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(md, []byte("---\nname: "+name+"\ndescription: A skill.\n---\nbody\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, dir, "init", "-q", "-b", "main")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "two skills")
	b := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD:skills/b"))
	if err := os.Remove(filepath.Join(dir, ".git", "objects", b[:2], b[2:])); err != nil {
		t.Fatal(err)
	}
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	head, err := repo.Head()
	if err != nil {
		t.Fatal(err)
	}
	c, err := repo.CommitObject(head.Hash())
	if err != nil {
		t.Fatal(err)
	}
	root, err := c.Tree()
	if err != nil {
		t.Fatal(err)
	}
	fsys := NewTreeFS(repo.Storer, root)
	if _, err := fsys.Lstat("skills/b/SKILL.md"); err == nil || os.IsNotExist(err) {
		t.Errorf("Lstat in an unreadable folder = %v, want an error that is not 'does not exist'", err)
	}
	layout, err := pluginfmt.Read(fsys, pluginfmt.Options{})
	if err == nil {
		t.Fatalf("layout of a tree with an unreadable skill folder = %+v, want an error", layout.Plugins[0].Skills)
	}
	if !strings.Contains(err.Error(), "skills/b") {
		t.Errorf("error %q does not name the folder skills/b", err)
	}
}
