package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/skillstore/skillstore/internal/lockfile"
)

// DefaultAuditMaxSize is the size at which an AuditFile is rotated.
const DefaultAuditMaxSize = 1 << 20

// auditLockTimeout bounds the wait for another process appending to the
// same audit file; appends take microseconds.
const auditLockTimeout = 2 * time.Second

// AuditFile appends events as JSON lines to a file it keeps bounded: when
// a line would take the file past its maximum size, the file is renamed to
// NAME.1 (replacing the previous one) and a new file begun, so the audit
// trail keeps the latest events in two files of at most that size each.
// Several processes may append to one audit file (one watcher per target):
// each append, and the rotation it may cause, holds an exclusive lock on
// NAME.lock. An AuditFile is safe for concurrent use.
type AuditFile struct {
	path    string
	maxSize int64
	mu      sync.Mutex
}

// NewAuditFile returns an AuditFile appending to path, rotated at maxSize
// bytes (DefaultAuditMaxSize when maxSize <= 0). Nothing is written yet.
func NewAuditFile(path string, maxSize int64) *AuditFile {
	if maxSize <= 0 {
		maxSize = DefaultAuditMaxSize
	}
	return &AuditFile{path: path, maxSize: maxSize}
}

// Path is the file events are appended to.
func (a *AuditFile) Path() string { return a.path }

// Write appends ev as one line, rotating the file first if the line would
// take it past the maximum size. A line longer than the maximum is written
// to a new file of its own.
func (a *AuditFile) Write(ev Event) error {
	line, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	lock, err := lockfile.Acquire(context.Background(), a.path+".lock", lockfile.Exclusive, auditLockTimeout)
	if err != nil {
		return fmt.Errorf("audit file: %w", err)
	}
	defer lock.Release()
	info, err := os.Stat(a.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("audit file: %w", err)
	case info.Size() > 0 && info.Size()+int64(len(line)) > a.maxSize:
		if err := os.Rename(a.path, a.path+".1"); err != nil {
			return fmt.Errorf("rotate audit file: %w", err)
		}
	}
	f, err := os.OpenFile(a.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("audit file: %w", err)
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return fmt.Errorf("audit file %s: %w", filepath.Base(a.path), err)
	}
	return f.Close()
}
