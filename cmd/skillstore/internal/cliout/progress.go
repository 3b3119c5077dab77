package cliout

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// ProgressDelay is how long work runs before its progress line appears:
// quick commands never show one. Tests set it to zero.
var ProgressDelay = time.Second

// Progress runs fn while a progress line on w (stderr) says what is being
// done and for how long ("importing 3200 skill folders (12s)"), rewritten
// in place every second. Only on a terminal (a command printing --json
// passes io.Discard); the line is erased when fn returns, so what the
// command prints next starts clean.
func Progress(w io.Writer, label string, fn func() error) error {
	if !IsTerminal(w) {
		return fn()
	}
	start := time.Now()
	raw := Raw(w) // the control sequences are ours; the label is escaped
	show := func() { fmt.Fprintf(raw, "\r\x1b[K%s (%ds)", Quote(label), int(time.Since(start).Seconds())) }
	// Without a delay the first line is written before the work starts,
	// so even instant work shows it (tests rely on that).
	shown := ProgressDelay <= 0
	if shown {
		show()
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		timer := time.NewTimer(max(ProgressDelay, time.Second))
		defer timer.Stop()
		for {
			select {
			case <-done:
				if shown {
					fmt.Fprint(raw, "\r\x1b[K")
				}
				return
			case <-timer.C:
				shown = true
				show()
				timer.Reset(time.Second)
			}
		}
	}()
	err := fn()
	close(done)
	wg.Wait()
	return err
}
