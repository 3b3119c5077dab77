package store

import (
	"fmt"
	"io/fs"
	"path"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// folderFiles reads the skill folder dir of fsys as a flat file list, the
// form the store writes trees from. Executables keep their bit; a symlink
// becomes a File with mode Symlink and its target as Data, and a device or
// socket one with mode Empty, so the safety check can name and refuse them;
// .git folders are left out, and empty folders vanish as they do in git.
func folderFiles(fsys PluginFS, dir string) ([]File, error) {
	var out []File
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := p
		if dir != "." {
			rel = p[len(dir):]
			if rel != "" {
				rel = rel[1:]
			}
		}
		switch t := d.Type(); {
		case t.IsDir():
			if d.Name() == ".git" && p != dir {
				return fs.SkipDir
			}
		case t&fs.ModeSymlink != 0:
			target, err := fsys.ReadLink(p)
			if err != nil {
				return err
			}
			out = append(out, File{Path: rel, Mode: filemode.Symlink, Data: []byte(target), Size: int64(len(target)), Hash: HashBlob([]byte(target))})
		case t.IsRegular():
			data, err := fsys.ReadFile(p)
			if err != nil {
				return err
			}
			mode := filemode.Regular
			if info, err := d.Info(); err == nil && info.Mode().Perm()&0o111 != 0 {
				mode = filemode.Executable
			}
			out = append(out, File{Path: rel, Mode: mode, Data: data, Size: int64(len(data)), Hash: HashBlob(data)})
		default:
			out = append(out, File{Path: rel, Mode: filemode.Empty})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path.Clean(dir), err)
	}
	SortFiles(out)
	return out, nil
}
