//go:build unix

package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startSkillstore starts the binary and returns the command and a channel
// that receives its exit error.
func startSkillstore(t *testing.T, storeDir string, out *bytes.Buffer, args ...string) (*exec.Cmd, <-chan error) {
	t.Helper()
	cmd := exec.Command(skillstoreBin(t), append([]string{"--store", storeDir}, args...)...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, done
}

// waitExit waits for the process to end; a process still running after
// limit is taken as hung (the limit is generous: it detects a hang, it
// does not measure speed).
func waitExit(done <-chan error, limit time.Duration) (error, bool) {
	select {
	case err := <-done:
		return err, true
	case <-time.After(limit):
		return nil, false
	}
}

// TestSyncDoesNotHangOnFIFOManifest: a FIFO as a folder plugin's
// .claude-plugin/plugin.json (and as marketplace.json for plugin add) is
// reported, not opened for a blocking read; sync ends, and the store lock
// is free for the next command.
func TestSyncDoesNotHangOnFIFOManifest(t *testing.T) {
	tmp := t.TempDir()
	storeDir := filepath.Join(tmp, "store")
	mustRun(t, storeDir, "init")
	plugin := filepath.Join(tmp, "plugin")
	writeTestSkill(t, filepath.Join(plugin, "skills"), "lint", "Lint the code.\n")
	manifest := filepath.Join(plugin, ".claude-plugin", "plugin.json")
	if err := os.MkdirAll(filepath.Dir(manifest), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, []byte(`{"name": "tools"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, storeDir, "plugin", "add", plugin)
	os.Remove(manifest)
	if err := syscall.Mkfifo(manifest, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}

	var out bytes.Buffer
	cmd, done := startSkillstore(t, storeDir, &out, "sync")
	err, exited := waitExit(done, 30*time.Second)
	if !exited {
		cmd.Process.Signal(syscall.SIGTERM)
		_, stopped := waitExit(done, 15*time.Second)
		t.Fatalf("sync on a FIFO manifest hung (after SIGTERM: exited %v)\n%s", stopped, out.String())
	}
	if err == nil || !strings.Contains(out.String(), "not a regular file") {
		t.Errorf("sync = %v, want the FIFO reported:\n%s", err, out.String())
	}
	mustRun(t, storeDir, "--lock-timeout", "1s", "list")

	other := filepath.Join(tmp, "market")
	if err := os.MkdirAll(filepath.Join(other, ".claude-plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(other, ".claude-plugin", "marketplace.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	cmd, done = startSkillstore(t, storeDir, &out, "plugin", "add", other)
	if err, exited = waitExit(done, 30*time.Second); !exited {
		cmd.Process.Kill()
		t.Fatalf("plugin add of a FIFO marketplace.json hung\n%s", out.String())
	}
	if err == nil || !strings.Contains(out.String(), "not a regular file") {
		t.Errorf("plugin add = %v, want the FIFO reported:\n%s", err, out.String())
	}
}

// silentServer listens on 127.0.0.1 and holds every connection open
// without answering, as a wedged git server does; accepted receives them.
func silentServer(t *testing.T) (net.Listener, <-chan net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c // held open, never answered
		}
	}()
	return l, accepted
}

// TestSIGTERMStopsABlockedCommand: a plugin add blocked on a git server
// that accepts and never answers ends on SIGTERM. It fetches before it
// takes the store lock, so the store stays usable meanwhile, and the lock
// is free afterwards.
func TestSIGTERMStopsABlockedCommand(t *testing.T) {
	l, accepted := silentServer(t)
	storeDir := filepath.Join(t.TempDir(), "store")
	mustRun(t, storeDir, "init")
	var out bytes.Buffer
	cmd, done := startSkillstore(t, storeDir, &out, "plugin", "add", "git://"+l.Addr().String()+"/silent.git")
	select {
	case c := <-accepted:
		defer c.Close()
	case <-time.After(30 * time.Second):
		t.Fatalf("plugin add never connected\n%s", out.String())
	}
	// Blocked on the network, it holds no lock: list answers at once.
	mustRun(t, storeDir, "--lock-timeout", "100ms", "list")
	cmd.Process.Signal(syscall.SIGTERM)
	if _, exited := waitExit(done, 30*time.Second); !exited {
		t.Fatalf("a command blocked on the network ignored SIGTERM\n%s", out.String())
	}
	mustRun(t, storeDir, "--lock-timeout", "1s", "list")
}

// TestSIGTERMEndsACommandStuckInASystemCall: a command blocked where no
// context check comes (merge-file opening a FIFO nobody writes) still
// ends on SIGTERM instead of ignoring it.
func TestSIGTERMEndsACommandStuckInASystemCall(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"current", "other"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("line\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "base"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var out bytes.Buffer
	cmd, done := startSkillstore(t, filepath.Join(dir, "store"), &out, "merge-file",
		filepath.Join(dir, "current"), filepath.Join(dir, "base"), filepath.Join(dir, "other"))
	// Let it reach the blocking open (a signal before its handler is set
	// would end it the default way, which proves nothing but fails nothing).
	time.Sleep(time.Second)
	cmd.Process.Signal(syscall.SIGTERM)
	err, exited := waitExit(done, 30*time.Second)
	if !exited {
		cmd.Process.Kill()
		t.Fatalf("merge-file blocked on a FIFO ignored SIGTERM\n%s", out.String())
	}
	if err == nil {
		t.Errorf("a command stopped by SIGTERM exited 0\n%s", out.String())
	}
}

// interruptRuns are the commands TestInterruptSaysInterrupted interrupts,
// each while it waits on a git server that never answers, and the signal
// it sends. TestExitCodes checks that docs/conventions.md gives 130 (SIGINT)
// and 143 (SIGTERM) to these commands and no others.
var interruptRuns = []struct {
	command string // as docs/conventions.md names it
	sig     syscall.Signal
}{
	{"plugin add", syscall.SIGINT},
	{"sync", syscall.SIGINT},
	{"plugin add", syscall.SIGTERM},
	{"sync", syscall.SIGTERM},
	{"pull", syscall.SIGINT},
	{"pull", syscall.SIGTERM},
	{"clone", syscall.SIGINT},
	{"clone", syscall.SIGTERM},
}

// TestInterruptSaysInterrupted: Ctrl-C (SIGINT) or SIGTERM during a plugin
// add, a sync, a pull and a clone, each blocked on a git server that never
// answers, ends the command with "interrupted" and exit 130 (143), not with
// the cancelled fetch's own error; the lock is free and the store verifies
// after each.
func TestInterruptSaysInterrupted(t *testing.T) {
	l, accepted := silentServer(t)
	tmp := t.TempDir()
	storeDir := filepath.Join(tmp, "store")
	mustRun(t, storeDir, "init")
	// A plugin whose source moves to the silent server after it is added,
	// and a remote there.
	up := filepath.Join(tmp, "up")
	writeTestSkill(t, filepath.Join(up, "skills"), "lint", "Lint the code.\n")
	git(t, up, "init", "-q", "-b", "main")
	git(t, up, "add", "-A")
	git(t, up, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "one")
	mustRun(t, storeDir, "plugin", "add", "--id", "tools", "file://"+up)
	silent := "git://" + l.Addr().String() + "/silent.git"
	mustRun(t, storeDir, "plugin", "set", "tools", "--url", silent)
	mustRun(t, storeDir, "remote", "add", "origin", silent)

	for _, r := range interruptRuns {
		args := strings.Fields(r.command)
		switch r.command {
		case "plugin add":
			args = append(args, silent)
		case "clone":
			args = append(args, silent, filepath.Join(tmp, "clone"))
		}
		var out bytes.Buffer
		cmd, done := startSkillstore(t, storeDir, &out, args...)
		select {
		case c := <-accepted:
			defer c.Close()
		case <-time.After(30 * time.Second):
			t.Fatalf("%s never connected\n%s", args, out.String())
		}
		cmd.Process.Signal(r.sig)
		err, exited := waitExit(done, 30*time.Second)
		if !exited {
			t.Fatalf("%s ignored %s\n%s", args, signalName(r.sig), out.String())
		}
		ee, ok := err.(*exec.ExitError)
		if want := 128 + int(r.sig); !ok || ee.ExitCode() != want {
			t.Errorf("%s after %s: %v, want exit %d\n%s", args, signalName(r.sig), err, want, out.String())
		}
		if !strings.Contains(out.String(), "skillstore: interrupted by "+signalName(r.sig)) || strings.Contains(out.String(), "context canceled") {
			t.Errorf("%s after %s printed:\n%s", args, signalName(r.sig), out.String())
		}
		mustRun(t, storeDir, "--lock-timeout", "1s", "verify")
	}
}
