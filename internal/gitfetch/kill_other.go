//go:build !unix

package gitfetch

import "os/exec"

// newProcessGroup does nothing where process groups are not Unix's.
func newProcessGroup(cmd *exec.Cmd) {}

// killProcessGroup kills cmd's process.
func killProcessGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }
