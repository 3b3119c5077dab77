package app

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
)

// RefuseTargetFolder refuses a checkout into the folder a target exports
// to, or into a folder holding one (its parent, a home folder): checkout
// would put one skill's files among the agent's skills, and --force would
// delete them all. Both checkout commands call it before writing.
func RefuseTargetFolder(ctx context.Context, s *store.Store, dir string) error {
	targets, err := target.List(ctx, s, nil)
	if err != nil {
		return err
	}
	d := realPath(dir)
	for _, t := range targets {
		if !target.Inside(realPath(t.Dir), d) {
			continue
		}
		what := "holds"
		if realPath(t.Dir) == d {
			what = "is"
		}
		return WithHint(fmt.Errorf("%s %s the folder of target %s (%s): nothing was written", dir, what, t.Name, t.Dir),
			"check out into a folder of its own; 'skillstore export' writes the skills into targets")
	}
	return nil
}

// realPath is dir made absolute, with its links resolved where it exists.
func realPath(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return filepath.Clean(dir)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}
