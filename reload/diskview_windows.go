//go:build windows

package reload

import "github.com/skillstore/skillstore/internal/skillfs"

// diskView is t as a folder on Windows holds it, which is what ReadTree
// reads back from a folder export wrote from t: NTFS keeps no execute
// bit, so an Executable file reads back Regular (git's core.fileMode=false
// case). Export and status compare what they read from a folder with the
// disk view of the tree they expect, so a skill with scripts is not taken
// for locally modified, and an edit is still seen: only the execute bit
// is left out of the comparison, never a file's content or presence.
func diskView(t *Tree) *Tree {
	if t == nil {
		return nil
	}
	var entries []skillfs.File
	for i, e := range t.Entries {
		if e.Mode != skillfs.Executable {
			continue
		}
		if entries == nil {
			entries = append([]skillfs.File(nil), t.Entries...)
		}
		entries[i].Mode = skillfs.Regular
	}
	if entries == nil {
		return t
	}
	id, err := skillfs.TreeID(entries)
	if err != nil {
		return t
	}
	return &Tree{ID: id, Entries: entries}
}

// ExportedModes gives each of files, read with ReadDir from the folder
// folder of the target, the execute bit export last wrote it with there:
// a folder on Windows keeps none, so a captured edit would otherwise make
// every script of the skill lose it. A file at a path the record holds as
// Executable becomes Executable, whatever its content now (git keeps a
// file's mode from its index the same way when core.fileMode is false);
// a new file stays Regular. Without a record entry, files stay as read.
func ExportedModes(target, folder string, files []skillfs.File) {
	rec, err := readRecord(target)
	if err != nil {
		return
	}
	entry := rec.Skills[folder]
	if entry == nil {
		return
	}
	exported := entry.tree()
	for i, f := range files {
		if e, ok := exported.Lookup(f.Path); ok && f.Mode == skillfs.Regular && e.Mode == skillfs.Executable {
			files[i].Mode = skillfs.Executable
		}
	}
}
