//go:build !unix && !windows

package lockfile

import (
	"errors"
	"os"
)

// errNoLocks: this system (plan9, wasm) has no file locks skillstore can
// use; Acquire fails with it, naming the lock file, rather than pretend.
var errNoLocks = errors.New("file locks are not supported on this system")

func tryLock(*os.File, bool) (bool, error) { return false, errNoLocks }

func unlock(*os.File) error { return errNoLocks }

func readOnlyErr(error) bool { return false }

func processGone(int) bool { return false }
