// Package archive unpacks a downloaded archive (tar.gz or zip) into the
// files of a tree, in memory, reading everything in it as hostile: each
// path is checked as a stored path must be (skillfs.CheckPath), sizes and
// counts are capped before the bytes are read (a decompression bomb
// stops at the cap), and links, devices and FIFOs are never made on disk
// (a symlink becomes a git symlink, whose target the intake judges like
// any other; a hard link or device is left out, named).
package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// Limits bound what one archive may unpack to.
type Limits struct {
	MaxFiles     int   // entries that are files
	MaxFileBytes int64 // one file, unpacked
	MaxBytes     int64 // every file together, unpacked
}

// DefaultLimits leave room for a marketplace of many plugins, and make a
// bomb stop early: a file past 8 times a stored file's cap is no skill's.
var DefaultLimits = Limits{MaxFiles: 50_000, MaxFileBytes: 8 * skillfs.DefaultLimits.MaxFileSize, MaxBytes: 512 << 20}

// Tree is an unpacked archive.
type Tree struct {
	Files []skillfs.File // Data and ID set, paths from the archive's top (one folder holding everything is dropped)
	// LeftOut names the entries that are no file, folder or symlink (hard
	// links, devices, FIFOs), each with why.
	LeftOut []string
}

// ErrFormat is wrapped when data is neither a gzip'd tar nor a zip.
var ErrFormat = errors.New("not a tar.gz or zip archive")

// Unpack reads data as a tar.gz (gzip magic) or a zip (its magic).
func Unpack(data []byte, lim Limits) (*Tree, error) {
	var t *Tree
	var err error
	switch {
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		t, err = unpackTarGz(data, lim)
	case bytes.HasPrefix(data, []byte("PK\x03\x04")), bytes.HasPrefix(data, []byte("PK\x05\x06")):
		t, err = unpackZip(data, lim)
	default:
		return nil, ErrFormat
	}
	if err != nil {
		return nil, err
	}
	t.Files = dropTop(t.Files)
	return t, nil
}

// collector checks and gathers the entries of one archive.
type collector struct {
	lim   Limits
	tree  Tree
	total int64
	seen  map[string]bool
}

func newCollector(lim Limits) *collector { return &collector{lim: lim, seen: map[string]bool{}} }

// clean is an entry's name as a stored path: "./" and a trailing "/"
// dropped; anything else that is not clean is refused.
func clean(name string) (string, error) {
	p := strings.TrimSuffix(strings.TrimPrefix(name, "./"), "/")
	if p == "" || p == "." {
		return "", nil
	}
	if err := skillfs.CheckPath(p); err != nil {
		return "", fmt.Errorf("entry %q: %w", name, err)
	}
	return p, nil
}

func (c *collector) add(name string, mode skillfs.Mode, size int64, r io.Reader) error {
	p, err := clean(name)
	if err != nil || p == "" {
		return err
	}
	if c.seen[p] {
		return fmt.Errorf("entry %q is in the archive twice", name)
	}
	if len(c.tree.Files) >= c.lim.MaxFiles {
		return fmt.Errorf("the archive holds more than %d files", c.lim.MaxFiles)
	}
	if size > c.lim.MaxFileBytes {
		return fmt.Errorf("entry %q is %d MiB, more than the %d MiB an archive's file may hold", name, size>>20, c.lim.MaxFileBytes>>20)
	}
	data, err := io.ReadAll(io.LimitReader(r, c.lim.MaxFileBytes+1))
	if err != nil {
		return fmt.Errorf("entry %q: %w", name, err)
	}
	if int64(len(data)) > c.lim.MaxFileBytes {
		return fmt.Errorf("entry %q unpacks to more than the %d MiB an archive's file may hold", name, c.lim.MaxFileBytes>>20)
	}
	if c.total += int64(len(data)); c.total > c.lim.MaxBytes {
		return fmt.Errorf("the archive unpacks to more than %d MiB", c.lim.MaxBytes>>20)
	}
	c.seen[p] = true
	c.tree.Files = append(c.tree.Files, skillfs.File{Path: p, Mode: mode, Size: int64(len(data)), Data: data, ID: skillfs.BlobID(data)})
	return nil
}

func (c *collector) leftOut(name, why string) {
	c.tree.LeftOut = append(c.tree.LeftOut, fmt.Sprintf("%s (%s)", name, why))
}

func unpackTarGz(data []byte, lim Limits) (*Tree, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	c := newCollector(lim)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("tar: %w", err)
		}
		switch h.Typeflag {
		case tar.TypeReg:
			mode := skillfs.Regular
			if h.Mode&0o111 != 0 {
				mode = skillfs.Executable
			}
			if err := c.add(h.Name, mode, h.Size, tr); err != nil {
				return nil, err
			}
		case tar.TypeSymlink:
			if err := c.add(h.Name, skillfs.Symlink, int64(len(h.Linkname)), strings.NewReader(h.Linkname)); err != nil {
				return nil, err
			}
		case tar.TypeDir, tar.TypeXGlobalHeader, tar.TypeXHeader:
			if _, err := clean(h.Name); err != nil {
				return nil, err
			}
		default:
			c.leftOut(h.Name, fmt.Sprintf("a tar entry of type %q, not a file, folder or symlink", h.Typeflag))
		}
	}
	return &c.tree, nil
}

func unpackZip(data []byte, lim Limits) (*Tree, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	c := newCollector(lim)
	for _, f := range zr.File {
		m := f.Mode()
		switch {
		case m.IsDir():
			if _, err := clean(f.Name); err != nil {
				return nil, err
			}
			continue
		case m.Type() == 0, m&fs.ModeSymlink != 0:
		default:
			c.leftOut(f.Name, "not a file, folder or symlink")
			continue
		}
		mode := skillfs.Regular
		switch {
		case m&fs.ModeSymlink != 0:
			mode = skillfs.Symlink
		case m&0o111 != 0:
			mode = skillfs.Executable
		}
		if int64(f.UncompressedSize64) > lim.MaxFileBytes || f.UncompressedSize64 > 1<<62 {
			return nil, fmt.Errorf("entry %q is %d MiB, more than the %d MiB an archive's file may hold", f.Name, f.UncompressedSize64>>20, lim.MaxFileBytes>>20)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("zip entry %q: %w", f.Name, err)
		}
		err = c.add(f.Name, mode, int64(f.UncompressedSize64), rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
	}
	return &c.tree, nil
}

// dropTop drops the one folder that holds every file, as GitHub's and
// npm's archives have ("repo-main/", "package/"): the tree is what is in
// it. A tree with files at its top, or several folders there, is kept.
func dropTop(files []skillfs.File) []skillfs.File {
	if len(files) == 0 {
		return files
	}
	top, _, nested := strings.Cut(files[0].Path, "/")
	if !nested {
		return files
	}
	for _, f := range files[1:] {
		if t, _, ok := strings.Cut(f.Path, "/"); !ok || t != top {
			return files
		}
	}
	for i := range files {
		files[i].Path = strings.TrimPrefix(files[i].Path, top+"/")
	}
	return files
}

// Base is the name of an archive's URL path without its archive suffix
// (".tar.gz", ".tgz", ".zip"): what a plugin from it may be named.
func Base(urlPath string) string {
	b := path.Base(urlPath)
	for _, ext := range []string{".tar.gz", ".tgz", ".zip"} {
		if s, ok := strings.CutSuffix(strings.ToLower(b), ext); ok {
			return b[:len(s)]
		}
	}
	return b
}

// IsArchivePath reports whether a URL's path names an archive by its
// suffix.
func IsArchivePath(urlPath string) bool {
	l := strings.ToLower(urlPath)
	return strings.HasSuffix(l, ".tar.gz") || strings.HasSuffix(l, ".tgz") || strings.HasSuffix(l, ".zip")
}
