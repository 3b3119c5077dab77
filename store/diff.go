package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/internal/folderscan"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store/treediff"
)

// DiffResult is the difference between two trees.
type DiffResult struct {
	From    string                `json:"from"`
	To      string                `json:"to"`
	Changes []treediff.FileChange `json:"changes"`
}

// Diff compares two versions of a skill, or a version and a folder.
// from is "NAME" or "NAME@REV"; to is "" (from's predecessor → from when from
// names no revision, else from → latest), "@REV", or a folder path.
func (s *Store) Diff(ctx context.Context, from, to string) (DiffResult, error) {
	var res DiffResult
	err := s.View(ctx, func(r *Reader) error {
		name, rev := splitVersionSpec(from)
		a, err := r.Resolve(from)
		if err != nil {
			return err
		}
		var oldFiles, newFiles []File
		switch {
		case to == "" && rev == "":
			// What the latest version changed.
			res.To = a.Name()
			if newFiles, err = r.LoadFiles(a.Tree); err != nil {
				return err
			}
			res.From = "(nothing)"
			if len(a.Parents) > 0 {
				prev, err := r.VersionAt(name, a.Parents[0])
				if err != nil {
					return err
				}
				res.From = prev.Name()
				if oldFiles, err = r.LoadFiles(prev.Tree); err != nil {
					return err
				}
			}
		case to == "" || strings.HasPrefix(to, "@"):
			spec := name
			if to != "" {
				spec = name + to
			}
			b, err := r.Resolve(spec)
			if err != nil {
				return err
			}
			res.From, res.To = a.Name(), b.Name()
			if oldFiles, err = r.LoadFiles(a.Tree); err != nil {
				return err
			}
			if newFiles, err = r.LoadFiles(b.Tree); err != nil {
				return err
			}
		default:
			res.From, res.To = a.Name(), to
			if oldFiles, err = r.LoadFiles(a.Tree); err != nil {
				return err
			}
			info, err := os.Stat(to)
			if err != nil || !info.IsDir() {
				return fmt.Errorf("%s is not a folder (to compare with a version, write @v2 or @<commit>)", to)
			}
			abs, _ := filepath.Abs(to)
			if newFiles, err = folderscan.Scan(abs, skillfs.DefaultLimits, nil); err != nil {
				return err
			}
		}
		res.Changes = treediff.Files(oldFiles, newFiles)
		return nil
	})
	return res, err
}
