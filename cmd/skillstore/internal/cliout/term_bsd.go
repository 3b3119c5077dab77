//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package cliout

import "golang.org/x/sys/unix"

// ioctlReadTermios is the ioctl that reads a terminal's settings; it fails
// on anything that is not a terminal.
const ioctlReadTermios = unix.TIOCGETA
