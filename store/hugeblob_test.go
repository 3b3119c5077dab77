package store

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// zeros reads as an endless run of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// hugeBlobCommit adds to repo's main, with git plumbing, a commit whose
// skill "one" holds big.bin: size zero bytes (git stores it deflated, a
// few hundred KB per GB).
func hugeBlobCommit(t *testing.T, repo string, size int64) {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir = repo
	cmd.Stdin = io.LimitReader(zeros{}, size)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git hash-object: %v", err)
	}
	big := strings.TrimSpace(string(out))
	md := gitPlumb(t, repo, nil, "rev-parse", "main:skills/one/SKILL.md")
	one := gitPlumb(t, repo, []byte("100644 blob "+md+"\tSKILL.md\n100644 blob "+big+"\tbig.bin\n"), "mktree")
	skills := gitPlumb(t, repo, []byte("040000 tree "+one+"\tone\n"), "mktree")
	codex := gitPlumb(t, repo, nil, "rev-parse", "main:.codex-plugin")
	root := gitPlumb(t, repo, []byte("040000 tree "+codex+"\t.codex-plugin\n040000 tree "+skills+"\tskills\n"), "mktree")
	commit := gitPlumb(t, repo, nil, "commit-tree", root, "-p", "main", "-m", "huge")
	gitPlumb(t, repo, nil, "update-ref", "refs/heads/main", commit)
}

// hugeBlobSize is the zero-filled blob the tests below plant: 64 MiB by
// default (four times the fetch cap: a few seconds of git's time); set
// SKILLSTORE_HUGE_BLOB_MB=1024 for the 1 GiB blob of the original report.
func hugeBlobSize(t *testing.T) int64 {
	if mb, err := strconv.Atoi(os.Getenv("SKILLSTORE_HUGE_BLOB_MB")); err == nil && mb > 0 {
		return int64(mb) << 20
	}
	return 64 << 20
}

// TestGitPluginHugeBlobRefusedFromHeader: a huge blob of zeros in a git
// plugin (a 1 GiB one packs to about a megabyte) is refused from the size
// in its pack entry's header, before anything inflates it, by plugin add
// and by sync; the process's peak memory stays far below the blob's size.
func TestGitPluginHugeBlobRefusedFromHeader(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	size := hugeBlobSize(t)
	ctx := context.Background()
	up := filepath.Join(t.TempDir(), "up")
	writeFile(t, filepath.Join(up, ".codex-plugin", "plugin.json"), `{"name": "gitp", "skills": "./skills/"}`)
	writeFile(t, filepath.Join(up, "skills", "one", "SKILL.md"), skillMD("one"))
	gitRun(t, up, "init", "-q", "-b", "main")
	gitRun(t, up, "add", "-A")
	gitRun(t, up, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "good")
	src, err := ParseSource("file://"+up, "main")
	if err != nil {
		t.Fatal(err)
	}
	s := newSyncStore(t)
	if _, err := Add(ctx, s, src, AddPluginOptions{}); err != nil {
		t.Fatal(err)
	}
	hugeBlobCommit(t, up, size)

	before := maxRSS(t)
	rep, err := Run(ctx, s, SyncOptions{})
	want := fmt.Sprintf("blob of %d bytes", size)
	if err == nil && (len(rep.Plugins) != 1 || !strings.Contains(rep.Plugins[0].Error, want)) {
		t.Errorf("sync of a huge blob: %+v", rep.Plugins)
	} else if err != nil && !strings.Contains(err.Error(), want) {
		t.Errorf("sync = %v, want %q", err, want)
	}
	other := newSyncStore(t)
	if _, err := Add(ctx, other, src, AddPluginOptions{}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("plugin add = %v, want %q", err, want)
	}
	if grew := maxRSS(t) - before; grew > size/4 {
		t.Errorf("peak memory grew by %d MB while refusing a %d MB blob", grew>>20, size>>20)
	}
	for _, st := range []*Store{s, other} {
		if out := gitCmd(t, st.Dir(), "fsck", "--strict"); strings.Contains(out, "error") {
			t.Errorf("git fsck --strict: %s", out)
		}
	}
}
