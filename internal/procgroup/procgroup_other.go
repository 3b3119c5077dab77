//go:build !unix

package procgroup

import "os/exec"

// New does nothing where process groups are not Unix's.
func New(cmd *exec.Cmd) {}

// Kill kills cmd's process.
func Kill(cmd *exec.Cmd) error { return cmd.Process.Kill() }
