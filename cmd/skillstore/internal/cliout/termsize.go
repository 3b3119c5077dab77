package cliout

import (
	"io"
	"os"
	"strconv"
)

// TermWidth returns the width of the terminal w writes to, and whether it
// is known: the terminal's own size, else $COLUMNS (set by shells, and the
// way to ask for a width when piping). Output is kept to this width only
// where it is known.
func TermWidth(w io.Writer) (int, bool) {
	if f, ok := Raw(w).(*os.File); ok {
		if n, ok := terminalColumns(f); ok {
			return n, true
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n, true
	}
	return 0, false
}
