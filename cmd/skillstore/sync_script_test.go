package main

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/skillstore/skillstore/internal/lockfile"
)

func init() {
	addScriptCmd("holdlock", holdLock)
}

// holdLock takes (holdlock), takes the shared side of (holdlock shared),
// or releases (holdlock release) the store lock of $SKILLSTORE_DIR from
// the test process, so a scenario can show what another skillstore command
// does while the store is busy: written to (the exclusive side) or read
// (the shared side, as every reading command takes it).
func holdLock(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! holdlock")
	}
	switch {
	case len(args) == 0 || len(args) == 1 && args[0] == "shared":
		mode := lockfile.Exclusive
		if len(args) == 1 {
			mode = lockfile.Shared
		}
		path := filepath.Join(ts.Getenv("SKILLSTORE_DIR"), "skillstore", "lock")
		l, err := lockfile.Acquire(context.Background(), path, mode, 5*time.Second)
		ts.Check(err)
		heldMu.Lock()
		heldLocks[ts] = l
		heldMu.Unlock()
		ts.Defer(func() { l.Release() })
	case len(args) == 1 && args[0] == "release":
		heldMu.Lock()
		l, ok := heldLocks[ts]
		delete(heldLocks, ts)
		heldMu.Unlock()
		if !ok {
			ts.Fatalf("holdlock release: no lock held")
		}
		ts.Check(l.Release())
	default:
		ts.Fatalf("usage: holdlock [shared|release]")
	}
}

// heldLocks are the locks holdlock took, per running scenario.
var (
	heldMu    sync.Mutex
	heldLocks = map[*testscript.TestScript]*lockfile.Lock{}
)
