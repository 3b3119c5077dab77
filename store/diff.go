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
// names no revision, else from → latest), "@REV" (a version of the same
// skill), "OTHER@REV" or "OTHER" (a version, as git diff takes two
// revisions), or a folder path (see diffTarget).
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
			b, err := r.diffTarget(to)
			if err != nil {
				return err
			}
			if oldFiles, err = r.LoadFiles(a.Tree); err != nil {
				return err
			}
			if b != nil {
				res.From, res.To = a.Name(), b.Name()
				if newFiles, err = r.LoadFiles(b.Tree); err != nil {
					return err
				}
				break
			}
			res.From, res.To = a.Name(), to
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

// diffTarget reads diff's second argument when it is not "@REV": a
// version (NAME@REV or NAME, as git diff takes two revisions) or a
// folder (nil). A name that is both, as a folder named "pdf@v2" would be,
// is refused as git refuses an ambiguous argument; a folder "pdf" beside
// the skill pdf is the folder (the usage 'diff NAME DIR' has always had).
func (r *Reader) diffTarget(to string) (*Version, error) {
	info, statErr := os.Stat(to)
	isDir := statErr == nil && info.IsDir()
	if isDir && !strings.Contains(to, "@") {
		return nil, nil
	}
	v, err := r.Resolve(to)
	switch {
	case err == nil && isDir:
		return nil, fmt.Errorf("%s is both a folder and a version: write ./%s for the folder, or @%s for the version", to, to, versionPart(to))
	case err == nil:
		return &v, nil
	case isDir:
		return nil, nil
	case strings.Contains(to, "@"):
		return nil, err
	}
	return nil, fmt.Errorf("%s is neither a folder nor a skill (to compare with a version, write NAME@v2, @v2 or @<commit>)", to)
}

// versionPart is what follows the last "@" of a version spec.
func versionPart(spec string) string {
	_, rev := splitVersionSpec(spec)
	return rev
}
