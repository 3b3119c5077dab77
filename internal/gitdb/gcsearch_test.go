package gitdb

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// repoOfManySkills writes, with git fast-import, 30 versions of 40 skills
// (a SKILL.md and a script each, one line changed per version): about
// 3,700 objects, so the delta search cuts them into many chunks, and
// every SKILL.md shares one name.
func repoOfManySkills(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	gitRun(t, dir, "init", "-q", "--bare")
	var in strings.Builder
	for v := range 30 {
		msg := fmt.Sprintf("edit %d\n", v)
		fmt.Fprintf(&in, "commit refs/heads/main\ncommitter t <t@example.com> %d +0000\ndata %d\n%s", 1700000000+v, len(msg), msg)
		for s := range 40 {
			for _, f := range []string{"SKILL.md", "scripts/run.py"} {
				content := fmt.Sprintf("---\nname: skill-%d\n---\n%s%s: version %d\n", s, strings.Repeat(fmt.Sprintf("skill %d says the same line\n", s), 20+s%7), f, v)
				fmt.Fprintf(&in, "M 100644 inline skills/s%d/%s\ndata %d\n%s\n", s, f, len(content), content)
			}
		}
		in.WriteString("\n")
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	cmd.Stdin = strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	return dir
}

// TestGCPackDoesNotDependOnTheCores gcs two copies of one repository of
// loose objects, on one worker and on four: the delta search is cut into
// chunks by the objects alone, so both packs are the same bytes, and git
// accepts them.
func TestGCPackDoesNotDependOnTheCores(t *testing.T) {
	dir := repoOfManySkills(t)
	explode(t, dir)
	want := catFileAll(t, dir)
	other := filepath.Join(t.TempDir(), "copy.git")
	if out, err := exec.Command("cp", "-a", dir, other).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one := runGC(t, dir, time.Hour)
	runtime.GOMAXPROCS(4)
	four := runGC(t, other, time.Hour)
	if one != four || one.Objects != len(want) || one.Deltas < len(want)/3 {
		t.Fatalf("gc on 1 worker = %+v, on 4 = %+v; want the same, a third of %d objects deltas", one, four, len(want))
	}
	a, b := packFiles(t, dir), packFiles(t, other)
	if len(a) != 1 || len(b) != 1 || filepath.Base(a[0]) != filepath.Base(b[0]) {
		t.Fatalf("packs %v and %v; want one of the same name", a, b)
	}
	da, _ := os.ReadFile(a[0])
	db, _ := os.ReadFile(b[0])
	if !bytes.Equal(da, db) {
		t.Fatal("the packs differ")
	}
	checkLikeGit(t, other, want)
}
