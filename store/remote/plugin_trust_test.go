package remote

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/pluginsync"
)

// TestPulledPluginsWaitForTrust: plugin records a teammate's server
// serves (through a real git daemon) are taken by pull, but sync fetches
// none of them until a person runs plugin trust here: a git source waits
// for approval, a local-folder source is never synced and cannot be
// approved. Pull says what waits.
func TestPulledPluginsWaitForTrust(t *testing.T) {
	ctx := context.Background()
	d := startGitDaemon(t)
	url := d.newRepo(t, "team.git")

	// A git plugin, served by the same daemon, and a folder plugin of
	// mallory's machine (which would make a victim mirror its own folder).
	up := filepath.Join(t.TempDir(), "up")
	storetest.WriteFile(t, filepath.Join(up, ".codex-plugin", "plugin.json"), `{"name": "gitp", "skills": "./skills/"}`)
	storetest.WriteFile(t, filepath.Join(up, "skills", "one", "SKILL.md"), storetest.SkillMD("one", "upstream"))
	remoteGit(t, "", "init", "-q", "-b", "main", up)
	remoteGit(t, up, "add", "-A")
	remoteGit(t, up, "commit", "-q", "-m", "c")
	remoteGit(t, "", "clone", "-q", "--bare", up, d.path("up.git"))
	folder := filepath.Join(t.TempDir(), "home-secrets")
	storetest.WriteFile(t, filepath.Join(folder, "skills", "keys", "SKILL.md"), storetest.SkillMD("keys", "id_rsa lives here"))

	mallory := newActorStore(t, "mallory")
	for _, src := range []string{d.url("up.git"), folder} {
		s, err := plugins.ParseSource(src, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pluginsync.Add(ctx, mallory, s, pluginsync.AddOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	mustAddRemote(t, mallory, "origin", url)
	mustPush(t, mallory, "")

	victim := newActorStore(t, "victim")
	mustAddRemote(t, victim, "origin", url)
	rep := mustPull(t, victim, "")
	if strings.Join(rep.State.Untrusted, " ") != "gitp home-secrets" {
		t.Errorf("untrusted = %v, want both plugins", rep.State.Untrusted)
	}
	if len(rep.State.Refused) != 1 || rep.State.Refused[0].Record != "plugins/home-secrets" {
		t.Errorf("refused = %+v, want the folder plugin", rep.State.Refused)
	}

	sync := func() map[string]pluginsync.PluginReport {
		srep, err := pluginsync.Run(ctx, victim, pluginsync.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]pluginsync.PluginReport{}
		for _, pr := range srep.Plugins {
			out[pr.Plugin] = pr
		}
		return out
	}
	got := sync()
	for _, id := range []string{"gitp", "home-secrets"} {
		if got[id].Skipped != pluginsync.SkippedUntrusted {
			t.Errorf("sync of %s before approval: %+v", id, got[id])
		}
	}
	if out := refValues(t, victim.Dir(), "refs/skillstore/sources/"); strings.Contains(out, "gitp") {
		t.Errorf("sync fetched an unapproved source:\n%s", out)
	}

	if _, err := plugins.Trust(ctx, victim, "home-secrets"); err == nil || !strings.Contains(err.Error(), "a source on this machine's disk") {
		t.Errorf("trust of a remote folder source = %v, want refused", err)
	}
	if _, err := plugins.Trust(ctx, victim, "gitp"); err != nil {
		t.Fatal(err)
	}
	got = sync()
	if got["gitp"].Skipped != "" || got["gitp"].Error != "" || got["gitp"].Commit == "" {
		t.Errorf("sync after trust: %+v", got["gitp"])
	}
	if got["home-secrets"].Skipped != pluginsync.SkippedUntrusted {
		t.Errorf("the folder plugin was synced: %+v", got["home-secrets"])
	}
	storetest.CheckStore(t, victim.Dir())
}
