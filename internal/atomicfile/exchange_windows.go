//go:build windows

package atomicfile

import "golang.org/x/sys/windows"

// Exchange is not available on Windows: NTFS has no call that swaps two
// names, and a rename cannot replace a folder. Callers fall back to two
// renames (the old folder aside, the new one in) and say so; a reader sees
// the old folder, then for the moment between the two renames none, then
// the new one, never a mix of the two.
func Exchange(a, b string) error { return ErrExchangeUnsupported }

// RenameNoReplace renames from to to with MoveFileEx without
// MOVEFILE_REPLACE_EXISTING, which fails when to exists: the check and the
// rename are one step, as with renameat2(RENAME_NOREPLACE). Whatever is at
// to (a file or a folder) is left as it was, with an error matching
// fs.ErrExist.
func RenameNoReplace(from, to string) error {
	return moveFile(from, to, windows.MOVEFILE_WRITE_THROUGH)
}
