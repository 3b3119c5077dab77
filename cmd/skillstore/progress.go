package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/urfave/cli/v2"
)

// progressDelay is how long work runs before its progress line appears:
// quick commands never show one. Tests set it to zero.
var progressDelay = time.Second

// withProgress runs fn while a progress line on stderr says what is being
// done and for how long ("importing 3200 skill folders (12s)"), rewritten
// in place every second. Only on a terminal, never with --json; the line
// is erased when fn returns, so what the command prints next starts clean.
func withProgress(c *cli.Context, label string, fn func() error) error {
	e := getEnv(c)
	if c.Bool("json") || !isTerminal(e.stderr) {
		return fn()
	}
	start := time.Now()
	raw := rawWriter(e.stderr) // the control sequences are ours; the label is escaped
	show := func() { fmt.Fprintf(raw, "\r\x1b[K%s (%ds)", quoteText(label), int(time.Since(start).Seconds())) }
	// Without a delay the first line is written before the work starts,
	// so even instant work shows it (tests rely on that).
	shown := progressDelay <= 0
	if shown {
		show()
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		timer := time.NewTimer(max(progressDelay, time.Second))
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
