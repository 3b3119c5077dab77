package target

import (
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
)

func skillMD(data string) []skillfs.File {
	return []skillfs.File{
		{Path: "SKILL.md", Mode: skillfs.Regular, Data: []byte(data), Size: int64(len(data)), ID: skillfs.BlobID([]byte(data))},
		{Path: "scripts/run.sh", Mode: skillfs.Executable, Data: []byte("echo\n"), Size: 5, ID: skillfs.BlobID([]byte("echo\n"))},
	}
}

// TestRenameSkillChangesOnlyTheNameEntry renames and restores SKILL.md
// files of several shapes: only the frontmatter's top-level name entry
// changes, and restoring gives back the exact bytes.
func TestRenameSkillChangesOnlyTheNameEntry(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "---\nname: access\ndescription: Grants access.\n---\nname: in the body stays\n",
			"---\nname: chat-access\ndescription: Grants access.\n---\nname: in the body stays\n"},
		{"quoted, CRLF", "---\r\nname: \"access\"\r\ndescription: d\r\n---\r\nbody\r\n",
			"---\r\nname: chat-access\r\ndescription: d\r\n---\r\nbody\r\n"},
		{"folded value", "---\ndescription: d\nname: >-\n  access\nlicense: MIT\n---\n",
			"---\ndescription: d\nname: chat-access\nlicense: MIT\n---\n"},
		{"nested name key untouched", "---\nmetadata:\n  name: x\nname: access\n---\n",
			"---\nmetadata:\n  name: x\nname: chat-access\n---\n"},
		{"byte order mark", "\ufeff---\nname: access\n---\nbody\n", "\ufeff---\nname: chat-access\n---\nbody\n"},
		{"fence with trailing blank", "--- \nname: access\n---\n", "--- \nname: chat-access\n---\n"},
		{"nothing after ... is read", "---\ndescription: d\n...\nname: x\n---\n", "---\ndescription: d\n...\nname: x\n---\n"},
		{"no name entry", "---\ndescription: d\n---\nname: body\n", "---\ndescription: d\n---\nname: body\n"},
		{"no frontmatter", "name: access\n", "name: access\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := skillMD(c.in)
			out, err := renameSkill(files, "chat-access")
			if err != nil {
				t.Fatal(err)
			}
			if got := string(out[0].Data); got != c.want {
				t.Fatalf("renamed:\n%q\nwant\n%q", got, c.want)
			}
			if out[0].ID != skillfs.BlobID(out[0].Data) || out[0].Size != int64(len(out[0].Data)) {
				t.Errorf("renamed file's id or size is stale")
			}
			if string(files[0].Data) != c.in {
				t.Errorf("renameSkill changed its input")
			}
			if out[1].ID != files[1].ID {
				t.Errorf("other files changed")
			}
			if back := restoreName(out[0].Data, []byte(c.in), "chat-access"); string(back) != c.in {
				t.Errorf("restored:\n%q\nwant\n%q", back, c.in)
			}
		})
	}
}

// TestRestoreNameKeepsEdits: an edit elsewhere survives the restore, and a
// name the person changed is theirs.
func TestRestoreNameKeepsEdits(t *testing.T) {
	orig := "---\nname: access\ndescription: d\n---\nbody\n"
	edited := "---\nname: chat-access\ndescription: d, edited\n---\nbody, edited\n"
	if got := string(restoreName([]byte(edited), []byte(orig), "chat-access")); got != "---\nname: access\ndescription: d, edited\n---\nbody, edited\n" {
		t.Errorf("restore = %q", got)
	}
	mine := "---\nname: my-access\ndescription: d\n---\nbody\n"
	if got := string(restoreName([]byte(mine), []byte(orig), "chat-access")); got != mine {
		t.Errorf("a name the person wrote was changed: %q", got)
	}
}
