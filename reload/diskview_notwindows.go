//go:build !windows

package reload

import "github.com/skillstore/skillstore/internal/skillfs"

// diskView is t as a folder on this system holds it, which is what
// ReadTree reads back from a folder export wrote from t: here every mode
// is kept, so t itself. (See the Windows version.)
func diskView(t *Tree) *Tree { return t }

// ExportedModes leaves files as they were read: this system's folders
// keep the execute bit. (See the Windows version.)
func ExportedModes(target, folder string, files []skillfs.File) {}
