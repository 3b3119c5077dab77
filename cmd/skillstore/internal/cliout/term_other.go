//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly && !windows

package cliout

import "os"

// terminalFile: no terminal is recognised here; output stays plain.
func terminalFile(*os.File) bool { return false }

// terminalColumns: the width comes from $COLUMNS only here.
func terminalColumns(*os.File) (int, bool) { return 0, false }
