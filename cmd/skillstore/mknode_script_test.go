package main

import (
	"net"

	"github.com/rogpeppe/go-internal/testscript"
)

// mknode fifo|socket PATH makes a FIFO or a Unix socket at PATH: entries a
// skill folder cannot hold, which a person or a program can leave in a
// target (an editor's socket, a named pipe).
func init() { addScriptCmd("mknode", cmdMkNode) }

func cmdMkNode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mknode fifo|socket PATH")
	}
	p := ts.MkAbs(args[1])
	switch args[0] {
	case "fifo":
		ts.Check(mkfifo(p))
	case "socket":
		l, err := net.ListenUnix("unix", &net.UnixAddr{Name: p, Net: "unix"})
		ts.Check(err)
		l.SetUnlinkOnClose(false) // the socket file stays, as a dead server's does
		ts.Check(l.Close())
	default:
		ts.Fatalf("mknode: unknown kind %q", args[0])
	}
}
