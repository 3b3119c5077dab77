package cliout

import (
	"io"
	"os"
)

// ColorEnabled reports whether w is a terminal and NO_COLOR is unset or
// empty (https://no-color.org: "present and not an empty string").
func ColorEnabled(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	return IsTerminal(w)
}

// IsTerminal reports whether w is a terminal (progress output goes only
// there) that reads the escape sequences of colour and of the progress
// line (terminalFile, per platform).
func IsTerminal(w io.Writer) bool {
	f, ok := Raw(w).(*os.File)
	return ok && terminalFile(f)
}
