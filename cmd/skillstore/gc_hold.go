package main

import (
	"os"
	"time"
)

// gcHoldEnv is a test seam: when it names a file, gc writes FILE.held
// once its new pack is written and waits, before it takes the store's
// exclusive lock to switch to the pack, until FILE is removed. Tests use
// it to run readers and writers while gc holds no store lock.
const gcHoldEnv = "SKILLSTORE_TEST_GC_HOLD"

// gcHold returns the hook that holds gc before its switch, or nil.
func gcHold() func() {
	path := os.Getenv(gcHoldEnv)
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
