package pluginfmt_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/skillstore/skillstore/internal/folderscan"
	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/internal/safefile"
)

const lintSkill = "---\nname: lint\ndescription: Lint.\n---\n"

// A plugin.json of more than safefile.ManifestLimit bytes, committed to a
// git repository, is refused by its size before it is read, with an error
// naming it; so is a marketplace.json over safefile.RecordLimit.
func TestReadRefusesOversizedManifests(t *testing.T) {
	for _, c := range []struct {
		file  string
		limit int64
	}{
		{pluginfmt.ClaudePluginManifest, safefile.ManifestLimit},
		{pluginfmt.MarketplaceManifest, safefile.RecordLimit},
	} {
		dir := t.TempDir()
		pad := strings.Repeat("a", int(c.limit))
		writeFixture(t, dir, &txtar.Archive{Files: []txtar.File{
			{Name: c.file, Data: []byte(`{"name": "big", "plugins": [], "pad": "` + pad + `"}`)},
			{Name: "skills/lint/SKILL.md", Data: []byte(lintSkill)},
		}})
		_, err := pluginfmt.Read(gitTreeFS(t, dir), pluginfmt.Options{})
		var merr *pluginfmt.Error
		if !errors.Is(err, safefile.ErrTooLarge) || !errors.As(err, &merr) || merr.File != c.file {
			t.Errorf("%s of %d bytes: %v, want ErrTooLarge naming it", c.file, len(pad), err)
		}
	}
}

// In a plugin folder, a plugin.json that is a FIFO is refused at once
// (a read would wait for a writer forever).
func TestReadRefusesFIFOManifest(t *testing.T) {
	dir := t.TempDir()
	writeFixture(t, dir, &txtar.Archive{Files: []txtar.File{{Name: "skills/lint/SKILL.md", Data: []byte(lintSkill)}}})
	if err := os.Mkdir(filepath.Join(dir, ".claude-plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(filepath.Join(dir, filepath.FromSlash(pluginfmt.ClaudePluginManifest))); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	done := make(chan error, 1)
	go func() {
		_, err := pluginfmt.Read(folderscan.NewRootFS(root), pluginfmt.Options{})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, safefile.ErrNotRegular) || err.Error() != pluginfmt.ClaudePluginManifest+": not a regular file: a FIFO" {
			t.Errorf("plugin.json a FIFO: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("reading the layout blocked on a FIFO")
	}
}
