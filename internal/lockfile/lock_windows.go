//go:build windows

package lockfile

import (
	"errors"
	"math"
	"os"

	"golang.org/x/sys/windows"
)

// Windows byte-range locks are mandatory: while one handle holds a range
// exclusively, reads of that range through any other handle fail. The
// lock therefore covers one byte far past any content (locking beyond the
// end of a file is allowed), so the holder record at the start of the file
// stays readable by a waiter that wants to name the holder, exactly as
// with flock, which locks no bytes at all.
const (
	lockOffsetHigh = 1 << 30 // offset 1<<62
	lockLength     = 1
)

func lockRange() *windows.Overlapped { return &windows.Overlapped{OffsetHigh: lockOffsetHigh} }

// tryLock takes LockFileEx's shared or exclusive lock of the range on f
// without waiting; it reports false when another handle (of this process
// or another) holds a lock of the range that excludes it. Shared locks of
// different handles overlap and an exclusive one excludes every other
// handle, which are flock's rules.
func tryLock(f *os.File, exclusive bool) (bool, error) {
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, lockLength, 0, lockRange())
	if err == nil {
		return true, nil
	}
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return false, nil
	}
	return false, err
}

// unlock drops the lock f holds. Closing the handle, or the end of the
// process, drops it too.
func unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, lockLength, 0, lockRange())
}

// readOnlyErr reports an open that failed because the store cannot be
// written (no write permission, a write-protected volume).
func readOnlyErr(err error) bool {
	return errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_WRITE_PROTECT)
}

// processGone reports whether no running process has the id pid. A
// process that cannot be opened for want of rights exists; one that has
// exited but whose object another handle keeps open is gone.
func processGone(pid int) bool {
	if pid <= 0 || uint64(pid) > math.MaxUint32 {
		return true
	}
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return errors.Is(err, windows.ERROR_INVALID_PARAMETER)
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == windows.WAIT_OBJECT_0
}
