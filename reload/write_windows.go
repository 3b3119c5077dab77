//go:build windows

package reload

import (
	"errors"
	"os"
	"path"
	"strings"

	"golang.org/x/sys/windows"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// writeFile writes a staged file and syncs it. Windows has no call that
// flushes a whole file system for an ordinary account (atomicfile.SyncFS
// can only check the folder there), so each file is made durable on its
// own before any folder is switched: without it, a power loss just after
// the switch could leave a skill whose files NTFS reads back as zeros.
func writeFile(p string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeLink makes the symbolic link f at p. Windows lets an account make
// one only with Developer Mode on or as an administrator; otherwise
// (ERROR_PRIVILEGE_NOT_HELD) a link whose target is a file of the same
// skill is written as a copy of that file, so an agent reads the same
// content, and any other link (to a folder, outside the skill, to another
// link) is left out. The returned note says which; it is empty when the
// link was made.
func writeLink(p string, f skillfs.File, files []skillfs.File) (string, error) {
	err := os.Symlink(string(f.Data), p)
	if err == nil || !errors.Is(err, windows.ERROR_PRIVILEGE_NOT_HELD) {
		return "", err
	}
	target, ok := linkTarget(f, files)
	if !ok {
		return "link " + skillfs.QuotePath(f.Path) + " left out: this account cannot make symbolic links (turn on Developer Mode) and its target " + skillfs.QuotePath(string(f.Data)) + " is not a file of the skill", nil
	}
	perm := os.FileMode(0o644)
	if target.Mode == skillfs.Executable {
		perm = 0o755
	}
	if err := writeFile(p, target.Data, perm); err != nil {
		return "", err
	}
	return "link " + skillfs.QuotePath(f.Path) + " written as a copy of " + skillfs.QuotePath(target.Path) + ": this account cannot make symbolic links (turn on Developer Mode)", nil
}

// linkTarget returns the file of files the link f points at, when that is
// a regular file of the same skill (relative, not leaving the skill).
func linkTarget(f skillfs.File, files []skillfs.File) (skillfs.File, bool) {
	t := string(f.Data)
	if t == "" || path.IsAbs(t) || strings.ContainsAny(t, "\\:") {
		return skillfs.File{}, false
	}
	p := path.Join(path.Dir(f.Path), t)
	if skillfs.CheckPath(p) != nil {
		return skillfs.File{}, false
	}
	for _, g := range files {
		if g.Path == p && (g.Mode == skillfs.Regular || g.Mode == skillfs.Executable) && g.Data != nil {
			return g, true
		}
	}
	return skillfs.File{}, false
}
