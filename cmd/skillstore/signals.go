package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
)

// stopGrace is how long a command has, after SIGINT or SIGTERM cancelled
// its context, to stop at its next check and release the store lock the
// ordinary way.
const stopGrace = 3 * time.Second

// exitSignalled is the exit code of a command ended by a signal it could
// not stop for in time (128 + SIGTERM's number, as a shell reports it).
const exitSignalled = 128 + int(syscall.SIGTERM)

// signalContext returns a context that SIGINT and SIGTERM cancel. Every
// command checks it between steps and returns, which releases the store
// lock. One stuck where no check comes (a system call the signal does not
// interrupt) is ended after stopGrace, or at a second signal, by exiting:
// the kernel then releases the lock file's flock with the process, so the
// next command never finds the store busy.
func signalContext(stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case sig := <-sigs:
			cancel()
			select {
			case <-done:
				return
			case <-sigs:
			case <-time.After(stopGrace):
			}
			cliout.Printf(stderr, "skillstore: error: stopped by %v\n", sig)
			os.Exit(exitSignalled)
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}
