//go:build !linux && !darwin && !windows

package atomicfile

// Exchange is not available here; callers fall back to two renames.
func Exchange(a, b string) error { return ErrExchangeUnsupported }

// RenameNoReplace renames from to to, failing with fs.ErrExist if to exists
// (checked just before the rename).
func RenameNoReplace(from, to string) error { return renameIfAbsent(from, to) }
