//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package cliout

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminalFile reports whether f is a terminal: reading its settings
// (ioctlReadTermios) fails on anything else.
func terminalFile(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), ioctlReadTermios)
	return err == nil
}

// terminalColumns returns the width of the terminal f, if it is one.
func terminalColumns(f *os.File) (int, bool) {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 {
		return 0, false
	}
	return int(ws.Col), true
}
