package target

import (
	"bytes"
	"fmt"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
	"github.com/skillstore/skillstore/store"
)

// A plugin's skill exported under another folder name (see flat.go) gets
// its frontmatter name changed to that folder, because agents load a skill
// by its folder and several (the Agent Skills specification, OpenCode,
// Microsoft's agent framework) skip one whose name differs. Only the
// frontmatter's top-level `name:` entry changes (skillmd.NameEntry: the
// key's line and any indented lines continuing its value). Capture puts
// the stored entry back.

// renamedLine is the name entry export writes for folder (skillmd.SetName
// writes it).
func renamedLine(folder string) []byte { return []byte("name: " + folder) }

// renameSkill returns files with SKILL.md's frontmatter name set to
// folder. A SKILL.md without a name entry is left as it is (agents then
// use the folder's name). The other files are shared, not copied.
func renameSkill(files []skillfs.File, folder string) ([]skillfs.File, error) {
	out := make([]skillfs.File, len(files))
	copy(out, files)
	for i, f := range out {
		if f.Path != skillmd.FileName {
			continue
		}
		if f.Data == nil && !f.ID.IsZero() {
			return nil, fmt.Errorf("rename %s: %s has no content loaded", folder, skillmd.FileName)
		}
		if _, _, ok := skillmd.NameEntry(f.Data); !ok {
			return out, nil
		}
		data := skillmd.SetName(f.Data, folder)
		out[i] = skillfs.File{Path: f.Path, Mode: f.Mode, Size: int64(len(data)), Data: data, ID: skillfs.BlobID(data)}
		return out, nil
	}
	return out, nil
}

// restoreName undoes renameSkill on an edited SKILL.md: when its name
// entry is still the one export wrote for folder, it becomes the entry of
// the stored version (original) again. A name the person changed is left
// as they wrote it.
func restoreName(edited, original []byte, folder string) []byte {
	ostart, oend, ok := skillmd.NameEntry(original)
	if !ok {
		return edited
	}
	es, ee, ok := skillmd.NameEntry(edited)
	if !ok || !bytes.Equal(edited[es:ee], renamedLine(folder)) {
		return edited
	}
	out := make([]byte, 0, len(edited)+(oend-ostart))
	out = append(out, edited[:es]...)
	out = append(out, original[ostart:oend]...)
	return append(out, edited[ee:]...)
}

// unrename returns the files of a folder edited in a target as the store
// names them (see restoreName), and the store's tree the edit started
// from. A renamed folder whose store version is not known (an edit that
// raced an export of an older version) is refused: its base is not in the
// store.
func unrename(tx *store.Tx, st SkillStatus, files []skillfs.File) ([]skillfs.File, store.Hash, error) {
	if st.StoreTree.IsZero() {
		if st.Folder != "" && st.Folder != shortName(st.Skill) {
			return nil, store.Hash{}, fmt.Errorf("the edit in %s started from a version of %s that was renamed for this target and is no longer recorded; copy the change into the folder %s by hand, then capture it",
				st.Dir, st.Skill, st.Folder)
		}
		return files, st.Exported, nil
	}
	stored, err := tx.Files(st.StoreTree)
	if err != nil {
		return nil, store.Hash{}, fmt.Errorf("version %s of %s: %w", st.StoreTree, st.Skill, err)
	}
	orig, ok := skillfs.Find(stored, skillmd.FileName)
	edited, ok2 := skillfs.Find(files, skillmd.FileName)
	if !ok || !ok2 {
		return files, st.StoreTree, nil
	}
	original, err := tx.Blob(orig.ID)
	if err != nil {
		return nil, store.Hash{}, fmt.Errorf("version %s of %s: %w", st.StoreTree, st.Skill, err)
	}
	data := restoreName(edited.Data, original, st.folder())
	out := make([]skillfs.File, len(files))
	copy(out, files)
	for i, f := range out {
		if f.Path == skillmd.FileName {
			out[i] = skillfs.File{Path: f.Path, Mode: f.Mode, Size: int64(len(data)), Data: data, ID: skillfs.BlobID(data)}
		}
	}
	return out, st.StoreTree, nil
}
