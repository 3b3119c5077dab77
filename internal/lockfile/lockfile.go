// Package lockfile is a cross-process reader/writer lock on a file, built on
// flock(2) on Unix and LockFileEx on Windows. A writer takes the exclusive
// side and records its pid and command line in the file, so a process that
// gives up waiting can name the holder. Readers take the shared side. The
// kernel drops a lock when its holder dies, so a crashed process never
// leaves the lock taken. A waiting writer goes before readers that arrive
// after it (see Acquire), and readers work on a store they cannot write.
//
// The system calls live in lock_unix.go and lock_windows.go behind four
// functions (tryLock, unlock, readOnlyErr, processGone); everything else,
// the gate, the holder record and the timeout, is the same code everywhere.
package lockfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skillstore/skillstore/internal/safedir"
	"github.com/skillstore/skillstore/internal/safefile"
)

// Mode is the side of the lock to take.
type Mode int

const (
	// Shared is taken by readers; any number may hold it at once.
	Shared Mode = iota
	// Exclusive is taken by the one writer; it excludes readers and writers.
	Exclusive
)

func (m Mode) String() string {
	if m == Exclusive {
		return "exclusive"
	}
	return "shared"
}

// ErrBusy is matched (errors.Is) by the *BusyError returned when the lock
// could not be taken before the timeout.
var ErrBusy = errors.New("lock busy")

// Holder identifies the process that holds the exclusive side, as written in
// the lock file. PID is 0 when the lock is held by readers only or the
// recorded holder has exited.
type Holder struct {
	PID     int
	Command string
}

// BusyError reports a lock that stayed taken for the whole timeout.
type BusyError struct {
	Path   string
	Mode   Mode
	Waited time.Duration
	Holder Holder
}

func (e *BusyError) Error() string {
	who := "other readers or a writer that has not recorded itself"
	if e.Holder.PID > 0 {
		who = "pid " + strconv.Itoa(e.Holder.PID)
		if e.Holder.Command != "" {
			who += " (" + e.Holder.Command + ")"
		}
	}
	return fmt.Sprintf("%s is locked by %s; gave up after %s", e.Path, who, e.Waited)
}

func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// Lock is a held lock. Release it exactly once.
type Lock struct {
	f    *os.File // nil: a reader of a store it cannot lock (see Acquire)
	path string
	mode Mode
}

// A writer waiting for readers to finish would starve if new readers kept
// arriving, since flock has no queue: readers overlap and the shared side
// never drops. So a writer first takes the exclusive side of a second file,
// the gate (path+".gate"), and holds it while it waits for the lock; every
// reader passes the gate (takes and drops its shared side) before it takes
// the lock. New readers therefore wait behind a waiting writer, the ones
// already reading finish, and the writer gets the lock. A process that
// already holds the shared side skips the gate: a nested read waiting
// behind a writer that waits for the outer read would deadlock.
const gateSuffix = ".gate"

var (
	sharedMu   sync.Mutex
	sharedHeld = map[string]int{} // path → shared locks this process holds
)

// Acquire takes the lock at path (created if missing) in the given mode,
// retrying until it succeeds, timeout passes (a *BusyError), or ctx is done.
// A timeout of zero tries once. A waiting writer goes before readers that
// arrive after it.
//
// The lock file and its gate are opened in their folder without following
// a link, never blocking on a FIFO: anything but a regular file there is
// refused with a *safedir.NotPlainError naming it, and nothing is written
// to it (a planted link would otherwise have the holder's record
// truncate the file it points at).
//
// A reader of a store it cannot write (a read-only mount, no write
// permission) opens the lock file read-only, which flock allows; when the
// lock file does not exist and cannot be created it reads without a lock,
// since no writer can change the store through that path either.
func Acquire(ctx context.Context, path string, mode Mode, timeout time.Duration) (*Lock, error) {
	dir, err := safedir.Open(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	defer dir.Close()
	return AcquireIn(ctx, dir, filepath.Base(path), mode, timeout)
}

// AcquireIn is Acquire of the lock file name in the folder dir, for a
// caller that opened the folder itself (a target's bookkeeping folder,
// checked to be a plain folder of ours).
func AcquireIn(ctx context.Context, dir *safedir.Dir, name string, mode Mode, timeout time.Duration) (*Lock, error) {
	start := time.Now()
	lf := lockFile{dir: dir, name: name, path: dir.Join(name)}
	f, err := lf.open(mode)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return &Lock{path: lf.path, mode: mode}, nil
	}
	if mode == Exclusive {
		gate, err := dir.OpenFile(name+gateSuffix, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			f.Close()
			return nil, lockError(dir.Join(name+gateSuffix), err)
		}
		defer gate.Close() // closing drops the gate once the lock is taken (or given up)
		if err := lf.poll(ctx, gate, true, mode, start, timeout); err != nil {
			f.Close()
			return nil, err
		}
		_ = gate.Truncate(0)
		_, _ = gate.WriteAt([]byte(strconv.Itoa(os.Getpid())+" "+command()+"\n"), 0)
		defer gate.Truncate(0)
	} else if !holdsShared(lf.path) {
		if err := lf.passGate(ctx, start, timeout); err != nil {
			f.Close()
			return nil, err
		}
	}
	if err := lf.poll(ctx, f, mode == Exclusive, mode, start, timeout); err != nil {
		f.Close()
		return nil, err
	}
	l := &Lock{f: f, path: lf.path, mode: mode}
	if mode == Exclusive {
		// Best effort: the record only improves a waiter's error message.
		_ = f.Truncate(0)
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+" "+command()+"\n"), 0)
	} else {
		sharedMu.Lock()
		sharedHeld[lf.path]++
		sharedMu.Unlock()
	}
	return l, nil
}

// lockFile is the lock file name in dir (path for messages and for the
// process's count of shared holds).
type lockFile struct {
	dir        *safedir.Dir
	name, path string
}

// lockError wraps an error of opening the lock file path; a refused entry
// names itself already.
func lockError(path string, err error) error {
	if errors.Is(err, safedir.ErrNotPlain) {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("open lock %s: %w", path, err)
}

// open opens the lock file; see Acquire for a reader on a read-only
// store (a nil file and no error: read without the lock).
func (lf lockFile) open(mode Mode) (*os.File, error) {
	f, err := lf.dir.OpenFile(lf.name, os.O_RDWR|os.O_CREATE, 0o644)
	if err == nil {
		return f, nil
	}
	if mode == Shared && readOnlyErr(err) {
		f, rerr := lf.dir.OpenFile(lf.name, os.O_RDONLY, 0)
		if rerr == nil {
			return f, nil
		}
		if errors.Is(rerr, fs.ErrNotExist) {
			return nil, nil
		}
	}
	return nil, lockError(lf.path, err)
}

func holdsShared(path string) bool {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	return sharedHeld[path] > 0
}

// passGate waits until no writer is waiting for the lock.
func (lf lockFile) passGate(ctx context.Context, start time.Time, timeout time.Duration) error {
	gate, err := lf.dir.OpenFile(lf.name+gateSuffix, os.O_RDONLY, 0)
	if errors.Is(err, safedir.ErrNotPlain) {
		return err
	}
	if err != nil {
		return nil // no writer ever waited here, or a read-only store without one
	}
	defer gate.Close()
	if err := lf.poll(ctx, gate, false, Shared, start, timeout); err != nil {
		return err
	}
	return unlock(gate)
}

// poll takes the lock on f (its exclusive side when exclusive), retrying
// with a growing delay until timeout has passed since start.
func (lf lockFile) poll(ctx context.Context, f *os.File, exclusive bool, mode Mode, start time.Time, timeout time.Duration) error {
	delay := time.Millisecond
	for {
		taken, err := tryLock(f, exclusive)
		if err != nil {
			return fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		if taken {
			return nil
		}
		waited := time.Since(start)
		if waited >= timeout {
			holder := lf.holder(lf.name)
			if holder.PID == 0 && mode == Shared {
				holder = lf.holder(lf.name + gateSuffix) // a writer waiting for readers
			}
			return &BusyError{Path: lf.path, Mode: mode, Waited: waited.Round(time.Millisecond), Holder: holder}
		}
		t := time.NewTimer(min(delay, timeout-waited))
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("lock %s: %w", lf.path, ctx.Err())
		case <-t.C:
		}
		delay = min(delay*2, 50*time.Millisecond)
	}
}

// holder reads the writer recorded in the file name of the lock's folder.
func (lf lockFile) holder(name string) Holder {
	data, err := lf.dir.ReadFile(name, holderLimit)
	if err != nil {
		return Holder{}
	}
	return parseHolder(data)
}

// Mode returns the side of the lock held.
func (l *Lock) Mode() Mode { return l.mode }

// Release drops the lock. The exclusive holder clears its record first.
func (l *Lock) Release() error {
	if l.f == nil {
		return nil
	}
	if l.mode == Exclusive {
		_ = l.f.Truncate(0)
	} else {
		sharedMu.Lock()
		if sharedHeld[l.path]--; sharedHeld[l.path] <= 0 {
			delete(sharedHeld, l.path)
		}
		sharedMu.Unlock()
	}
	err := unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("release lock %s: %w", l.f.Name(), err)
	}
	return nil
}

// holderLimit bounds what is read of a lock file: a pid and a command
// line of at most a few hundred bytes.
const holderLimit = 4 << 10

// ReadHolder returns the writer recorded in the lock file at path, or the
// zero Holder if none is recorded or the recorded process no longer exists.
// A link, FIFO or folder at path records nothing.
func ReadHolder(path string) Holder {
	data, err := safefile.ReadFileWith(path, holderLimit, safefile.Options{NoFollow: true})
	if err != nil {
		return Holder{}
	}
	return parseHolder(data)
}

func parseHolder(data []byte) Holder {
	line, _, _ := strings.Cut(string(data), "\n")
	pidText, cmd, _ := strings.Cut(line, " ")
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 {
		return Holder{}
	}
	if processGone(pid) {
		return Holder{}
	}
	return Holder{PID: pid, Command: cmd}
}

func command() string {
	cmd := strings.Join(os.Args, " ")
	cmd = strings.ReplaceAll(cmd, "\n", " ")
	if len(cmd) > 200 {
		cmd = cmd[:200] + "..."
	}
	return cmd
}
