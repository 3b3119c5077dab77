// Package lockfile is a cross-process reader/writer lock on a file, built on
// flock(2). A writer takes the exclusive side and records its pid and command
// line in the file, so a process that gives up waiting can name the holder.
// Readers take the shared side. The kernel drops a lock when its holder dies,
// so a crashed process never leaves the lock taken.
package lockfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
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
	f    *os.File
	mode Mode
}

// Acquire takes the lock at path (created if missing) in the given mode,
// retrying until it succeeds, timeout passes (a *BusyError), or ctx is done.
// A timeout of zero tries once.
func Acquire(ctx context.Context, path string, mode Mode, timeout time.Duration) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	how := unix.LOCK_SH
	if mode == Exclusive {
		how = unix.LOCK_EX
	}
	start := time.Now()
	delay := time.Millisecond
	for {
		err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		waited := time.Since(start)
		if waited >= timeout {
			f.Close()
			return nil, &BusyError{Path: path, Mode: mode, Waited: waited.Round(time.Millisecond), Holder: ReadHolder(path)}
		}
		t := time.NewTimer(min(delay, timeout-waited))
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, ctx.Err())
		case <-t.C:
		}
		delay = min(delay*2, 50*time.Millisecond)
	}
	l := &Lock{f: f, mode: mode}
	if mode == Exclusive {
		// Best effort: the record only improves a waiter's error message.
		_ = f.Truncate(0)
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+" "+command()+"\n"), 0)
	}
	return l, nil
}

// Mode returns the side of the lock held.
func (l *Lock) Mode() Mode { return l.mode }

// Release drops the lock. The exclusive holder clears its record first.
func (l *Lock) Release() error {
	if l.mode == Exclusive {
		_ = l.f.Truncate(0)
	}
	err := unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("release lock %s: %w", l.f.Name(), err)
	}
	return nil
}

// ReadHolder returns the writer recorded in the lock file at path, or the
// zero Holder if none is recorded or the recorded process no longer exists.
func ReadHolder(path string) Holder {
	data, err := os.ReadFile(path)
	if err != nil {
		return Holder{}
	}
	line, _, _ := strings.Cut(string(data), "\n")
	pidText, cmd, _ := strings.Cut(line, " ")
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 {
		return Holder{}
	}
	if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
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
