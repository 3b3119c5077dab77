package remote

import (
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/store"
)

// The tests' own helpers; those shared with the other store packages'
// tests are storetest's and synctest's.

// outputOf is what a helper process printed.
func outputOf(cmd *exec.Cmd) string { return cmd.Stdout.(*strings.Builder).String() }

// actorName is the actor of a store made by these tests, which live in a
// folder named after their actor (newActorStore, clones into "bob").
func actorName(s *store.Store) string { return filepath.Base(s.Dir()) }
