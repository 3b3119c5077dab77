// Command skillstore is a git-backed, versioned store for agent skills.
//
// The binary is thin: it reads each command's flags once into the typed
// options of package app (cmd_<group>.go), calls the workflow, and maps
// the error it ends with to an exit code and hints (errors.go). What a
// command does lives in cmd/skillstore/app, on top of the packages store,
// reload, discover and merge; how it prints, in internal/cliout.
package main

import "os"

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
