//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"golang.org/x/sys/unix"
)

// openPty opens a pseudo-terminal of cols columns and returns its two
// ends: the program writes to tty, the test reads what a terminal would
// show from pty.
func openPty(t *testing.T, cols uint16) (pty, tty *os.File) {
	t.Helper()
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(pty.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(pty.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open tty: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: cols, Row: 24}); err != nil {
		t.Fatalf("set window size: %v", err)
	}
	return pty, tty
}

// onTerminal runs skillstore with stdout and stderr on a fresh terminal of
// cols columns and returns the exit code and what the terminal received,
// with the terminal's \r\n turned back into \n.
func onTerminal(t *testing.T, cols uint16, args ...string) (int, string) {
	t.Helper()
	pty, tty := openPty(t, cols)
	defer pty.Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		io.Copy(&out, pty) // ends with EIO once the tty is closed
		close(done)
	}()
	code := run(append([]string{"skillstore"}, args...), strings.NewReader(""), tty, tty)
	tty.Close()
	<-done
	return code, strings.ReplaceAll(out.String(), "\r\n", "\n")
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

// TestTerminalOutput shows what a person sees on a terminal: coloured diff
// and status words, lines fitted to the terminal's width, a progress line
// for sync; and none of it with NO_COLOR, --json or outside a terminal.
func TestTerminalOutput(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("NO_COLOR", "")
	t.Setenv("COLUMNS", "")
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(dir, ".gitconfig"))
	t.Setenv("SKILLSTORE_DIR", filepath.Join(dir, "store"))
	up := filepath.Join(dir, "up", "skills", "big")
	writeSkill(t, up, "Use the files.\n", 12)
	quiet := func(args ...string) {
		t.Helper()
		var errb bytes.Buffer
		if code := run(append([]string{"skillstore"}, args...), strings.NewReader(""), io.Discard, &errb); code != 0 {
			t.Fatalf("skillstore %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		}
	}
	quiet("init")
	quiet("plugin", "add", "--id", "notes", filepath.Join(dir, "up"))
	quiet("target", "add", "claude", filepath.Join(dir, "agent"))

	// sync on a terminal: a progress line (erased afterwards), then the
	// export's lines coloured and fitted to 60 columns
	writeSkill(t, up, "Use the files, carefully.\n", 12)
	code, screen := onTerminal(t, 60, "sync")
	if code != 0 {
		t.Fatalf("sync: exit %d:\n%s", code, screen)
	}
	if !strings.Contains(screen, "\r\x1b[Ksyncing notes (1/1)") {
		t.Errorf("no progress line on the terminal:\n%q", screen)
	}
	if !strings.Contains(screen, "\x1b[32mfast-forward\x1b[0m, v1 -> v2") {
		t.Errorf("sync's status word is not coloured:\n%q", screen)
	}
	if !strings.Contains(screen, "\x1b[33mcold\x1b[0m") {
		t.Errorf("export's action is not coloured:\n%q", screen)
	}
	for _, line := range strings.Split(ansi.ReplaceAllString(screen, ""), "\n") {
		line = line[strings.LastIndex(line, "\r")+1:] // what is left after the progress line
		if n := utf8.RuneCountInString(line); n > 60 {
			t.Errorf("line of %d columns on a 60-column terminal: %q", n, line)
		}
	}
	if !strings.Contains(screen, " more") {
		t.Errorf("the file list was not summarised:\n%q", screen)
	}

	// an error wraps at a terminal narrower than the report width
	if code, screen := onTerminal(t, 60, "--lock-timeout", "-1s", "list"); code != 2 || !strings.Contains(screen, "\n    ") {
		t.Errorf("--lock-timeout -1s on a terminal: exit %d:\n%s", code, screen)
	} else {
		for _, line := range strings.Split(ansi.ReplaceAllString(screen, ""), "\n") {
			if n := utf8.RuneCountInString(line); n > 60 {
				t.Errorf("error line of %d columns on a 60-column terminal: %q", n, line)
			}
		}
	}

	// a wider terminal shows more of the list
	quiet("target", "add", "wide", filepath.Join(dir, "wide"))
	_, wide := onTerminal(t, 300, "export", "wide")
	if strings.Contains(wide, " more") {
		t.Errorf("a 300-column terminal still summarises 12 files:\n%q", wide)
	}

	// diff: coloured like git's
	_, diff := onTerminal(t, 80, "diff", "notes:big")
	for _, want := range []string{"\x1b[1mdiff --git a/SKILL.md b/SKILL.md\x1b[0m", "\x1b[36m@@", "\x1b[31m-Use the files.\x1b[0m", "\x1b[32m+Use the files, carefully.\x1b[0m"} {
		if !strings.Contains(diff, want) {
			t.Errorf("diff on a terminal lacks %q:\n%q", want, diff)
		}
	}

	// a progress line for import (shown at once here; after a second in use),
	// erased when done; none outside a terminal
	defer func(d time.Duration) { cliout.ProgressDelay = d }(cliout.ProgressDelay)
	cliout.ProgressDelay = 0
	more := filepath.Join(dir, "more")
	writeSkillNamed(t, filepath.Join(more, "one"), "one")
	writeSkillNamed(t, filepath.Join(more, "two"), "two")
	code, imported := onTerminal(t, 80, "import", "--dry-run", more)
	if code != 0 || !strings.Contains(imported, "\r\x1b[Kimporting 2 skill folders (0s)\r\x1b[K") {
		t.Errorf("import on a terminal: exit %d, no progress line erased before the report:\n%q", code, imported)
	}
	var pipedImport bytes.Buffer
	run([]string{"skillstore", "import", "--dry-run", more}, strings.NewReader(""), &pipedImport, &pipedImport)
	if strings.Contains(pipedImport.String(), "importing") {
		t.Errorf("a progress line outside a terminal:\n%q", pipedImport.String())
	}

	// never colour with --json, with NO_COLOR, or outside a terminal
	_, js := onTerminal(t, 80, "diff", "--json", "notes:big")
	t.Setenv("NO_COLOR", "1")
	_, nocolor := onTerminal(t, 80, "diff", "notes:big")
	t.Setenv("NO_COLOR", "")
	var piped bytes.Buffer
	run([]string{"skillstore", "diff", "notes:big"}, strings.NewReader(""), &piped, io.Discard)
	for name, out := range map[string]string{"--json": js, "NO_COLOR": nocolor, "a pipe": piped.String()} {
		if strings.Contains(out, "\x1b[") {
			t.Errorf("colour with %s:\n%q", name, out)
		}
		if !strings.Contains(out, "Use the files, carefully.") {
			t.Errorf("no diff with %s:\n%q", name, out)
		}
	}
}

// writeSkill writes a skill folder with body and files-1 extra files.
func writeSkill(t *testing.T, dir, body string, files int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "ref"), 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: big\ndescription: A skill with many files.\n---\n" + body
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < files; i++ {
		if err := os.WriteFile(filepath.Join(dir, "ref", fmt.Sprintf("notes-%02d.md", i)), []byte("notes\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writeSkillNamed writes a one-file skill folder.
func writeSkillNamed(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\nBody.\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
}
