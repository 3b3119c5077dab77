package folderscan

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/internal/safefile"
)

// ErrNotRegular is returned for a manifest that is not a regular file: a
// FIFO, a device or a socket there would block a read forever or stream
// without end.
var ErrNotRegular = safefile.ErrNotRegular

// maxManifestSize bounds a manifest read from a plugin folder.
const maxManifestSize = 4 << 20

// RootFS is a local plugin folder as pluginfmt.ReadLayout reads it, through
// os.Root (so nothing escapes the folder), whose ReadFile opens only
// regular files: it lstats first, opens without blocking (O_NONBLOCK: a
// FIFO swapped in between does not block the open) and checks the opened
// file again, so a FIFO named .claude-plugin/plugin.json cannot hang sync
// while it holds the store lock.
type RootFS struct {
	pluginfmt.PluginFS
	root *os.Root
}

// NewRootFS wraps root, the opened plugin folder.
func NewRootFS(root *os.Root) *RootFS {
	return &RootFS{PluginFS: root.FS().(pluginfmt.PluginFS), root: root}
}

// ReadFile reads a regular file of at most maxManifestSize bytes.
func (f *RootFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	info, err := f.root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, safefile.NotRegular(name, info.Mode())
	}
	file, err := f.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if info, err = file.Stat(); err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, safefile.NotRegular(name, info.Mode())
	}
	data, err := io.ReadAll(io.LimitReader(file, maxManifestSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxManifestSize {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("larger than %d bytes", maxManifestSize)}
	}
	return data, nil
}
