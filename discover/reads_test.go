package discover

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/skillmd"
)

// discoverBounded runs Discover and fails the test if it does not end
// within a minute (the reads below used to block forever).
func discoverBounded(t *testing.T, opts Options) *Result {
	t.Helper()
	type out struct {
		res *Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := Discover(context.Background(), opts)
		done <- out{res, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatal(o.err)
		}
		return o.res
	case <-time.After(time.Minute):
		t.Fatal("Discover blocked on a file that is not a regular file")
		return nil
	}
}

// A cloned project's files and Claude Code's record are read only when
// they are regular files: a FIFO (a read waits for a writer forever) and a
// link to /dev/zero (a read never ends) are each one warning naming the
// file, and the other skills are still found.
func TestReadsRefuseFIFOsAndDevices(t *testing.T) {
	base := t.TempDir()
	tree(t, base, map[string]string{
		"home/.claude/skills/notes/SKILL.md":    skillMD("notes", "Notes.", "user"),
		"work/app/.git/HEAD":                    "ref: refs/heads/main\n",
		"work/app/.claude/skills/tidy/SKILL.md": skillMD("tidy", "Tidy.", "project"),
	})
	app := filepath.Join(base, "work", "app")
	if err := mkfifo(filepath.Join(app, ManifestFile)); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if err := os.MkdirAll(filepath.Join(base, "home", ".claude", "plugins"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(base, "home", ClaudePluginsFile)); err != nil {
		t.Fatal(err)
	}
	res := discoverBounded(t, Options{Home: filepath.Join(base, "home"), WorkDir: app})
	names := map[string]bool{}
	for _, s := range res.Skills {
		names[s.QualifiedName()] = true
	}
	if !names["notes"] || !names["tidy"] {
		t.Errorf("skills %v, want notes and tidy", names)
	}
	var fifo, device bool
	for _, d := range res.AllDiagnostics() {
		fifo = fifo || strings.HasSuffix(d.File, ManifestFile) && strings.Contains(d.Message, "not a regular file: a FIFO")
		device = device || strings.HasSuffix(d.File, "installed_plugins.json") && strings.Contains(d.Message, "not a regular file: a device")
	}
	if !fifo || !device {
		t.Errorf("diagnostics %v: want one naming the FIFO %s and one naming the device link installed_plugins.json", res.AllDiagnostics(), ManifestFile)
	}
}

// A SKILL.md that is a FIFO is an error naming it, not a read that waits.
func TestSkillFileFIFO(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "stuck")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, skillmd.FileName)
	if err := mkfifo(file); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan *Diagnostic, 1)
	go func() {
		_, d := readSkillFile(file, "stuck/SKILL.md")
		done <- d
	}()
	select {
	case d := <-done:
		if d == nil || d.File != "stuck/SKILL.md" || !strings.Contains(d.Message, "not a regular file: a FIFO") {
			t.Errorf("readSkillFile of a FIFO: %+v", d)
		}
	case <-time.After(time.Minute):
		t.Fatal("readSkillFile blocked on a FIFO")
	}
}
