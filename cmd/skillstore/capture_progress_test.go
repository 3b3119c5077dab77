//go:build linux

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair: the controlling side and the
// terminal a child process writes to.
func openPTY(t *testing.T) (ctl, term *os.File) {
	t.Helper()
	ctl, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(ctl.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ctl.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("pty number: %v", err)
	}
	term, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pty: %v", err)
	}
	return ctl, term
}

// TestCaptureProgressOnTerminal edits three exported skills and captures
// them twice: with stderr on a terminal a progress line counts the skills;
// with stderr in a pipe nothing but the result is printed.
func TestCaptureProgressOnTerminal(t *testing.T) {
	work := t.TempDir()
	storeDir := filepath.Join(work, "store")
	mustRun(t, storeDir, "init")
	args := []string{"add"}
	for _, name := range []string{"a", "b", "c"} {
		writeTestSkill(t, filepath.Join(work, "src", name), name, "one")
		args = append(args, filepath.Join(work, "src", name))
	}
	mustRun(t, storeDir, args...)
	mustRun(t, storeDir, "target", "add", "claude", filepath.Join(work, "agent"))
	mustRun(t, storeDir, "export")
	edit := func(body string) {
		for _, name := range []string{"a", "b", "c"} {
			writeTestSkill(t, filepath.Join(work, "agent", name), name, body)
		}
	}

	edit("two")
	ctl, term := openPTY(t)
	defer ctl.Close()
	cmd := exec.Command(skillstoreBin(t), "--store", storeDir, "capture")
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, term
	if err := cmd.Run(); err != nil {
		t.Fatalf("capture: %v\n%s", err, stdout.String())
	}
	term.Close()
	ctl.SetReadDeadline(time.Now().Add(5 * time.Second))
	var onTerm bytes.Buffer
	io.Copy(&onTerm, ctl) // ends with EIO once the terminal side is closed
	if !strings.Contains(onTerm.String(), "capturing 3/3") {
		t.Errorf("no progress on the terminal: %q", onTerm.String())
	}
	if strings.Count(stdout.String(), "captured as") != 3 {
		t.Errorf("stdout = %q", stdout.String())
	}

	edit("three")
	out, errOut, code := runSkillstore(t, storeDir, "capture")
	if code != 0 || errOut != "" || strings.Count(out, "captured as") != 3 {
		t.Errorf("capture into a pipe: exit %d, stderr %q, stdout %q", code, errOut, out)
	}
}
