package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
)

// stopGrace is how long a command has, after SIGINT or SIGTERM cancelled
// its context, to stop at its next check and release the store lock the
// ordinary way.
const stopGrace = 3 * time.Second

// exitFor is the exit code of a command ended by sig: 128 + its number, as
// a shell reports it (130 for SIGINT, 143 for SIGTERM).
func exitFor(sig os.Signal) int {
	if n, ok := sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 128 + int(syscall.SIGTERM)
}

// signalContext returns a context that SIGINT and SIGTERM cancel, and
// signalled, which tells which signal did (nil: none). Every command
// checks the context between steps and returns, which releases the store
// lock; the caller then reports "interrupted" and exits with exitFor (see
// runEnv), whatever error the cancelled step returned. One stuck where no
// check comes (a system call the signal does not interrupt) is ended
// after stopGrace, or at a second signal, by exiting: the kernel then
// releases the lock file's flock with the process, so the next command
// never finds the store busy.
func signalContext(stderr io.Writer) (ctx context.Context, stop func(), signalled func() os.Signal) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	var got atomic.Value
	go func() {
		select {
		case <-done:
			return
		case sig := <-sigs:
			got.Store(sig)
			cancel()
			select {
			case <-done:
				return
			case <-sigs:
			case <-time.After(stopGrace):
			}
			cliout.Printf(stderr, "skillstore: interrupted by %s: stopped at once; the store lock went with the process\n", signalName(sig))
			os.Exit(exitFor(sig))
		}
	}()
	stop = func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
	signalled = func() os.Signal {
		sig, _ := got.Load().(os.Signal)
		return sig
	}
	return ctx, stop, signalled
}

// interrupted reports a command that a signal stopped: what it did up to
// its last finished step stays (every write is whole or absent).
func interrupted(stderr io.Writer, sig os.Signal) int {
	cliout.Printf(stderr, "skillstore: interrupted by %s: what was done before it stays, nothing is half-written; run the command again to finish\n", signalName(sig))
	return exitFor(sig)
}

// signalName is how a shell names sig ("SIGINT", "SIGTERM").
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}
