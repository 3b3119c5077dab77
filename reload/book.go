package reload

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/skillstore/skillstore/internal/lockfile"
	"github.com/skillstore/skillstore/internal/safedir"
	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// A target's bookkeeping folder is not ours alone: a project commits
// .claude/skills with whatever sits in it, .skillstore included, so a
// clone can bring a .skillstore that is a link, a retired/ or tmp/ that
// links to a folder elsewhere, a lock that links to a file, or a record
// naming folders outside the target. Every path of the bookkeeping is
// therefore reached through the target's directory handle, one entry at a
// time, never following a link (package safedir): .skillstore and each
// folder and file in it must be a plain folder or file, and anything else
// is refused with an error naming it. Nothing outside the target is ever
// moved, truncated or removed, and the record's folder names are checked
// before use (see readRecord).

// book is a target's bookkeeping folder, opened.
type book struct {
	// target is the target folder; skill folders are its entries.
	target *safedir.Dir
	// dir is target's .skillstore.
	dir *safedir.Dir

	mu   sync.Mutex
	subs map[string]*safedir.Dir // tmp/, retired/, rescued/ once opened
}

// openBook opens target's bookkeeping folder. With create it makes the
// target and the folder (with its .gitignore) when missing; without, a
// missing target or folder is an error matching fs.ErrNotExist. A
// .skillstore that is a link or a file is refused (safedir.ErrNotPlain).
// With root set (ExportOptions.Root), target is reached from root one
// folder at a time, a link on the way refused (safedir.OpenBeneath).
func openBook(target, root string, create bool) (*book, error) {
	t, err := openTarget(target, root, create)
	if err != nil {
		return nil, err
	}
	var d *safedir.Dir
	if create {
		d, err = t.MkSub(skillfs.BookkeepingDir, 0o755)
	} else {
		d, err = t.Sub(skillfs.BookkeepingDir)
	}
	if err != nil {
		t.Close()
		return nil, err
	}
	b := &book{target: t, dir: d, subs: map[string]*safedir.Dir{}}
	if create {
		if err := b.ignore(); err != nil {
			b.close()
			return nil, err
		}
	}
	return b, nil
}

// openTarget opens the target folder: by its path, links in it followed
// (the user chose it), or, with root, from root without following any.
func openTarget(target, root string, create bool) (*safedir.Dir, error) {
	if root != "" {
		rel, err := filepath.Rel(root, target)
		if err != nil {
			return nil, fmt.Errorf("%s is not inside %s", target, root)
		}
		return safedir.OpenBeneath(root, rel, create, 0o755)
	}
	if create {
		if err := os.MkdirAll(target, 0o755); err != nil {
			return nil, err
		}
	}
	return safedir.Open(target)
}

// close closes every handle of b.
func (b *book) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, d := range b.subs {
		d.Close()
	}
	b.subs = nil
	b.dir.Close()
	b.target.Close()
}

// sub opens the bookkeeping folder name (tmp, retired, rescued), creating
// it when create; without, a missing one matches fs.ErrNotExist. A link or
// a file in its place is refused.
func (b *book) sub(name string, create bool) (*safedir.Dir, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if d := b.subs[name]; d != nil {
		return d, nil
	}
	var d *safedir.Dir
	var err error
	if create {
		d, err = b.dir.MkSub(name, 0o755)
	} else {
		d, err = b.dir.Sub(name)
	}
	if err != nil {
		return nil, err
	}
	b.subs[name] = d
	return d, nil
}

// has reports whether the bookkeeping folder has an entry name.
func (b *book) has(name string) bool {
	_, err := b.dir.Mode(name)
	return err == nil
}

// lock takes the target's lock.
func (b *book) lock(ctx context.Context, mode lockfile.Mode, timeout time.Duration) (*lockfile.Lock, error) {
	return lockfile.AcquireIn(ctx, b.dir, lockName, mode, timeout)
}

// lockTarget takes the target's lock, creating the bookkeeping folder,
// and returns the folder opened: release the lock, then close the book.
func lockTarget(ctx context.Context, target, root string, mode lockfile.Mode, timeout time.Duration) (*book, *lockfile.Lock, error) {
	b, err := openBook(target, root, true)
	if err != nil {
		return nil, nil, err
	}
	lock, err := b.lock(ctx, mode, timeout)
	if err != nil {
		b.close()
		return nil, nil, err
	}
	return b, lock, nil
}

// loc is a folder export moves: the entry name of dir (the target, or one
// of its bookkeeping folders).
type loc struct {
	dir  *safedir.Dir
	name string
}

func (l loc) path() string { return l.dir.Join(l.name) }

// move renames from to to (see safedir.Rename).
func move(from, to loc) error { return safedir.Rename(from.dir, from.name, to.dir, to.name) }

// moveNoReplace moves from to to unless to exists (fs.ErrExist).
func moveNoReplace(from, to loc) error {
	return safedir.RenameNoReplace(from.dir, from.name, to.dir, to.name)
}

// removeAll removes the folder at l and everything in it, following no
// link.
func removeAll(l loc) error { return l.dir.RemoveAll(l.name) }

// exchangeDirs swaps two folders atomically (safedir.Exchange); tests
// replace it to exercise the fallback.
var exchangeDirs = func(a, b loc) error { return safedir.Exchange(a.dir, a.name, b.dir, b.name) }

// Bookkeeping is a target's bookkeeping folder opened for a caller that
// keeps records of its own there (a marketplace target's catalog record
// and lock), with the same rules as export's: every file is reached
// through the folder's handle, and a link or anything else where a plain
// file belongs is refused by name.
type Bookkeeping struct{ b *book }

// OpenBookkeeping opens target's bookkeeping folder. With create it makes
// it (and the target) when missing; without, a missing one is an error
// matching fs.ErrNotExist. Close it when done.
func OpenBookkeeping(target string, create bool) (*Bookkeeping, error) {
	b, err := openBook(target, "", create)
	if err != nil {
		return nil, err
	}
	return &Bookkeeping{b: b}, nil
}

// Close closes the folder.
func (k *Bookkeeping) Close() { k.b.close() }

// Lock takes the lock file name in the folder (see lockfile.Acquire).
func (k *Bookkeeping) Lock(ctx context.Context, name string, mode lockfile.Mode, timeout time.Duration) (*lockfile.Lock, error) {
	return lockfile.AcquireIn(ctx, k.b.dir, name, mode, timeout)
}

// ReadFile reads the record name, at most safefile.RecordLimit bytes.
func (k *Bookkeeping) ReadFile(name string) ([]byte, error) {
	return k.b.dir.ReadFile(name, safefile.RecordLimit)
}

// WriteFile replaces the record name atomically.
func (k *Bookkeeping) WriteFile(name string, data []byte) error {
	return k.b.dir.WriteFile(name, data, 0o644)
}
