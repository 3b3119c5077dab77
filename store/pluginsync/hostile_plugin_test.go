package pluginsync

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
)

// hostileCommit makes, with git plumbing only, a commit on main of repo
// whose tree is a Codex plugin with skill "one" whose folder's tree is
// the raw bytes skillTree returns (given SKILL.md's blob id).
func hostileCommit(t *testing.T, repo string, skillTree func(md skillfs.ID) []byte) {
	t.Helper()
	md, _ := skillfs.ParseID(storetest.GitPlumb(t, repo, []byte(storetest.SkillMD("one")), "hash-object", "-w", "--stdin"))
	manifest := storetest.GitPlumb(t, repo, []byte(`{"name": "gitp", "skills": "./skills/"}`), "hash-object", "-w", "--stdin")
	one := storetest.GitPlumb(t, repo, skillTree(md), "hash-object", "-w", "--literally", "-t", "tree", "--stdin")
	skills := storetest.GitPlumb(t, repo, []byte("040000 tree "+one+"\tone\n"), "mktree", "--missing")
	codex := storetest.GitPlumb(t, repo, []byte("100644 blob "+manifest+"\tplugin.json\n"), "mktree")
	root := storetest.GitPlumb(t, repo, []byte("040000 tree "+codex+"\t.codex-plugin\n040000 tree "+skills+"\tskills\n"), "mktree")
	parent := storetest.GitPlumb(t, repo, nil, "rev-parse", "main")
	commit := storetest.GitPlumb(t, repo, nil, "commit-tree", root, "-p", parent, "-m", "hostile")
	storetest.GitPlumb(t, repo, nil, "update-ref", "refs/heads/main", commit)
}

// TestGitPluginHostileTrees: a git plugin whose skill tree git fsck
// --strict rejects (built with hash-object --literally) is refused by
// plugin add and by sync; the store keeps passing git fsck --strict and
// verify, and the plugin's good version stays published.
func TestGitPluginHostileTrees(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	cases := []struct {
		name string
		tree func(md skillfs.ID) []byte
		want string
	}{
		{"two-SKILL.md", func(md skillfs.ID) []byte {
			return storetest.RawEntries("100644", "SKILL.md", md.String(), "100644", "SKILL.md", md.String())
		}, `entry "SKILL.md" appears twice`},
		{"dot-git-dot", func(md skillfs.ID) []byte {
			return storetest.RawEntries("100644", ".git.", md.String(), "100644", "SKILL.md", md.String())
		}, `entry ".git." is a spelling of .git`},
		{"ntfs-short-name", func(md skillfs.ID) []byte {
			return storetest.RawEntries("100644", "GIT~1", md.String(), "100644", "SKILL.md", md.String())
		}, `entry "GIT~1" is a spelling of .git`},
		{"backslash", func(md skillfs.ID) []byte {
			return storetest.RawEntries("100644", "SKILL.md", md.String(), "100644", "a\\b", md.String())
		}, `path separator`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			up := filepath.Join(t.TempDir(), "up")
			storetest.WriteFile(t, filepath.Join(up, ".codex-plugin", "plugin.json"), `{"name": "gitp", "skills": "./skills/"}`)
			storetest.WriteFile(t, filepath.Join(up, "skills", "one", "SKILL.md"), storetest.SkillMD("one"))
			storetest.Git(t, up, "init", "-q", "-b", "main")
			storetest.Git(t, up, "add", "-A")
			storetest.Git(t, up, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "good")
			src := mainSource(t, up)
			s := storetest.NewStore(t)
			if _, err := Add(ctx, s, src, AddOptions{}); err != nil {
				t.Fatal(err)
			}
			hostileCommit(t, up, tc.tree)

			rep, err := Run(ctx, s, Options{})
			if err == nil && (len(rep.Plugins) != 1 || !strings.Contains(rep.Plugins[0].Error, tc.want)) {
				t.Errorf("sync of a hostile tree: %+v", rep.Plugins)
			} else if err != nil && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("sync = %v, want %q", err, tc.want)
			}

			other := storetest.NewStore(t)
			if _, err := Add(ctx, other, src, AddOptions{}); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("plugin add of a hostile tree = %v, want %q", err, tc.want)
			}
			for _, st := range []*store.Store{s, other} {
				if out := storetest.Git(t, st.Dir(), "fsck", "--strict"); strings.Contains(out, "error") {
					t.Errorf("git fsck --strict: %s", out)
				}
				if vr, err := st.Verify(ctx); err != nil || !vr.OK() {
					t.Errorf("verify: %v %v", vr.Problems, err)
				}
			}
		})
	}
}
