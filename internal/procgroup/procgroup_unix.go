//go:build unix

// Package procgroup runs a child process as the leader of a process group
// of its own, so a deadline ends it and everything it started (a shell
// script's sleep, a helper's children), not the leader alone.
package procgroup

import (
	"os/exec"
	"syscall"
)

// New makes cmd the leader of a process group of its own.
func New(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// Kill kills cmd's process and every process it started.
func Kill(cmd *exec.Cmd) error {
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		return cmd.Process.Kill()
	}
	return nil
}
