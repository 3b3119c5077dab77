package skillfs

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// rawTree encodes entries exactly as given (order, modes, duplicates), as
// git hash-object --literally lets anyone write them.
func rawTree(entries ...[3]string) []byte {
	var b bytes.Buffer
	for _, e := range entries {
		id, _ := ParseID(e[2])
		b.WriteString(e[0] + " " + e[1] + "\x00")
		b.Write(id[:])
	}
	return b.Bytes()
}

// TestCheckTreeAgreesWithGitFsck writes each hostile tree into a real
// repository with git hash-object --literally and checks that git fsck
// --strict and CheckTree both refuse it, and both accept a good tree.
func TestCheckTreeAgreesWithGitFsck(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	blob := BlobID([]byte("x\n")).String()
	sub := HashObject("tree", rawTree([3]string{"100644", "f", blob})).String()
	cases := []struct {
		name    string
		tree    []byte
		gitToo  bool // git fsck --strict refuses it as well
		wantErr string
	}{
		{"good", rawTree([3]string{"100644", "SKILL.md", blob}, [3]string{"100644", "a.b", blob}, [3]string{"40000", "a", sub}, [3]string{"100664", "old", blob}), false, ""},
		{"duplicate SKILL.md", rawTree([3]string{"100644", "SKILL.md", blob}, [3]string{"100644", "SKILL.md", blob}), true, "appears twice"},
		{"file and folder of one name", rawTree([3]string{"100644", "a", blob}, [3]string{"100644", "a-b", blob}, [3]string{"40000", "a", sub}), true, "appears twice"},
		{"dot", rawTree([3]string{"40000", ".", sub}), true, "not a file name"},
		{"dot dot", rawTree([3]string{"40000", "..", sub}), true, "not a file name"},
		{".git", rawTree([3]string{"40000", ".git", sub}), true, "spelling of .git"},
		{".GIT", rawTree([3]string{"40000", ".GIT", sub}), true, "spelling of .git"},
		{".git with a trailing space", rawTree([3]string{"40000", ".git ", sub}), true, "spelling of .git"},
		{".git with a trailing dot", rawTree([3]string{"40000", ".git.", sub}), true, "spelling of .git"},
		{"NTFS short name", rawTree([3]string{"40000", "GIT~1", sub}), true, "spelling of .git"},
		{"HFS ignorable", rawTree([3]string{"40000", ".g\u200cit", sub}), true, "spelling of .git"},
		{"slash", rawTree([3]string{"100644", "a/b", blob}), true, "path separator"},
		{"backslash", rawTree([3]string{"100644", "a\\b", blob}), false, "path separator"},
		{"empty name", rawTree([3]string{"100644", "", blob}), true, "empty entry name"},
		{"zero-padded mode", rawTree([3]string{"040000", "a", sub}), true, "mode"},
		{"unknown mode", rawTree([3]string{"100600", "a", blob}), false, "mode"}, // git fsck only warns (badFilemode is info)
		{"unsorted", rawTree([3]string{"100644", "b", blob}, [3]string{"100644", "a", blob}), true, "out of git's order"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckTree(c.tree)
			if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Errorf("CheckTree: %v, want %q", err, c.wantErr)
			}
			if c.gitToo || c.wantErr == "" {
				if refused := gitFsckRefuses(t, c.tree, blob); refused != (c.wantErr != "") {
					t.Errorf("git fsck --strict refuses: %v, CheckTree: %v", refused, err)
				}
			}
		})
	}
}

// gitFsckRefuses stores tree (and the blob and subtree it names) in a new
// repository with git's plumbing and runs git fsck --strict on it.
func gitFsckRefuses(t *testing.T, tree []byte, blob string) bool {
	dir := t.TempDir()
	git := func(stdin []byte, args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Stdin = bytes.NewReader(stdin)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil && args[0] != "fsck" {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		if err != nil {
			return "refused: " + string(out)
		}
		return string(out)
	}
	git(nil, "init", "-q", "--bare")
	if got := strings.TrimSpace(git([]byte("x\n"), "hash-object", "-w", "--stdin")); got != blob {
		t.Fatalf("blob %s, want %s", got, blob)
	}
	git(rawTree([3]string{"100644", "f", blob}), "hash-object", "-w", "--literally", "-t", "tree", "--stdin")
	id := strings.TrimSpace(git(tree, "hash-object", "-w", "--literally", "-t", "tree", "--stdin"))
	commit := strings.TrimSpace(git(nil, "-c", "user.name=t", "-c", "user.email=t@t", "commit-tree", id, "-m", "m"))
	git(nil, "update-ref", "refs/heads/main", commit)
	return strings.HasPrefix(git(nil, "fsck", "--strict"), "refused")
}

// Names that macOS or Windows take for one are reported with both paths;
// names that differ there are not.
func TestCheckCollisions(t *testing.T) {
	collide := [][]string{
		{"SKILL.md", "skill.md"},
		{"SKILL.md", "Skill.MD"},
		{"caf\u00e9.md", "cafe\u0301.md"},               // NFC and NFD
		{"CAF\u00c9.md", "cafe\u0301.md"},               // and case
		{"docs/a.md", "Docs/b.md"},                      // two folders
		{"ref", "REF/x.md"},                             // a file and a folder
		{"Ke\u0301lvin", "\u212ae\u0301lvin"},           // the Kelvin sign folds to K
		{"a\u200db.md", "ab.md"},                        // HFS+ ignores U+200D
		{"scripts/\u0160um.sh", "scripts/s\u030cum.sh"}, // Latin Extended-A
	}
	for _, c := range collide {
		err := CheckCollisions(c)
		var ce *CollisionError
		if !errors.As(err, &ce) || ce.A == "" || ce.B == "" || ce.A == ce.B {
			t.Errorf("CheckCollisions(%q) = %v, want a collision naming both", c, err)
			continue
		}
		named := func(p string) bool {
			return strings.Contains(err.Error(), QuotePath(p)) || strings.Contains(err.Error(), QuoteBytes(p))
		}
		if !named(ce.A) || !named(ce.B) {
			t.Errorf("%v does not name both paths", err)
		}
	}
	apart := [][]string{
		{"SKILL.md", "references/SKILL.md"}, // different folders
		{"a.md", "b.md"},
		{"stra\u00dfe.md", "strasse.md"}, // full case folding is not applied (NTFS keeps them apart)
		{"docs/a.md", "docs/b.md"},       // one folder, listed twice
		{"\u00e9.md", "\u00e8.md"},       // different accents
	}
	for _, c := range apart {
		if err := CheckCollisions(c); err != nil {
			t.Errorf("CheckCollisions(%q) = %v, want none", c, err)
		}
	}
}
