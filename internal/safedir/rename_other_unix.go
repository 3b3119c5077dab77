//go:build unix && !linux && !darwin

package safedir

import "errors"

// errUnsupported: this kernel has neither an exchange nor a no-replace
// rename; RenameNoReplace checks then renames, Exchange is refused.
var errUnsupported = errors.New("unsupported")

func renameNoReplace(int, string, int, string) error { return errUnsupported }

func exchange(int, string, int, string) error { return errUnsupported }
