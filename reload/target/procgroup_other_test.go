//go:build !unix

package target

import "os/exec"

// ownProcessGroup: no process groups here; killProcessGroup ends cmd alone.
func ownProcessGroup(*exec.Cmd) {}

// killProcessGroup kills cmd (the processes it forked are not reached).
func killProcessGroup(cmd *exec.Cmd) { cmd.Process.Kill() }
