// Command skillstore is a git-backed, versioned store for agent skills.
//
// The binary is thin: it parses flags, formats output and maps errors to exit
// codes. Every behaviour lives in the packages store, merge, discover and reload.
package main

import "os"

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
