package adopt

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSameFilesAppliesTheIgnoreRule: two installed copies of a skill that
// differ only in files no skill holds (an editor's backup, Finder's
// .DS_Store) are the same skill; a changed byte, an extra file or a
// symlink makes them differ.
func TestSameFilesAppliesTheIgnoreRule(t *testing.T) {
	write := func(dir string, files map[string]string) string {
		for name, body := range files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	skill := map[string]string{"SKILL.md": "---\nname: a\ndescription: d\n---\nbody\n", "scripts/run.sh": "echo\n"}
	a := write(t.TempDir(), skill)
	b := write(t.TempDir(), skill)
	write(b, map[string]string{".DS_Store": "finder", "SKILL.md~": "backup", "scripts/.run.sh.swp": "swap"})
	if !sameFiles(a, b) {
		t.Errorf("copies differing only in ignored files compare unequal")
	}
	c := write(t.TempDir(), skill)
	write(c, map[string]string{"scripts/run.sh": "echo changed\n"})
	if sameFiles(a, c) {
		t.Errorf("copies with different content compare equal")
	}
	d := write(t.TempDir(), skill)
	write(d, map[string]string{"notes.md": "extra"})
	if sameFiles(a, d) {
		t.Errorf("a copy with an extra file compares equal")
	}
	e := write(t.TempDir(), skill)
	f := write(t.TempDir(), skill)
	for _, dir := range []string{e, f} {
		if err := os.Symlink("SKILL.md", filepath.Join(dir, "link.md")); err != nil {
			t.Skip("symlink:", err)
		}
	}
	if sameFiles(e, f) {
		t.Errorf("copies holding a symlink compare equal: only regular files compare")
	}
}
