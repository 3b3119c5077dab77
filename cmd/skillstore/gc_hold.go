package main

import (
	"os"
	"time"
)

// Test seams: when one of these names a file, the command writes FILE.held
// at the point named and waits there until FILE is removed. Tests use them
// to run other processes at that moment.
const (
	// gcHoldEnv holds gc once its new pack is written, before it takes
	// the store's exclusive lock to switch to the pack.
	gcHoldEnv = "SKILLSTORE_TEST_GC_HOLD"
	// syncHoldEnv holds sync once it has fetched its sources, before it
	// takes the exclusive lock to apply them.
	syncHoldEnv = "SKILLSTORE_TEST_SYNC_HOLD"
)

// testHold returns the hook that holds a command where env says, or nil.
func testHold(env string) func() {
	path := os.Getenv(env)
	if path == "" {
		return nil
	}
	return func() {
		os.WriteFile(path+".held", []byte("held\n"), 0o644)
		for {
			if _, err := os.Stat(path); err != nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
