package pluginsync

import (
	"context"
	"fmt"
	"testing"

	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
)

// An unchanged git plugin costs one connection to its server, which ends
// after the ref advertisement: nothing is negotiated, no pack asked for.
// A plugin whose upstream moved asks for a pack on its one connection.
func TestSyncUnchangedGitPluginsOneConnectionNoPack(t *testing.T) {
	if testing.Short() {
		t.Skip("builds git repositories")
	}
	base := t.TempDir()
	names := benchGitRepos(t, base, 3)
	srv := inProcessGitServer(t, base)
	s := storetest.NewStore(t)
	for _, name := range names {
		src, err := plugins.ParseSource(fmt.Sprintf("git://%s/%s.git", srv.addr, name), "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Add(context.Background(), s, src, AddOptions{ID: name}); err != nil {
			t.Fatal(err)
		}
	}
	srv.conns.Store(0)
	srv.packRequests.Store(0)
	rep, err := Run(context.Background(), s, Options{})
	if err != nil || rep.Failed() {
		t.Fatalf("sync: %v %+v", err, rep)
	}
	if c, p := srv.conns.Load(), srv.packRequests.Load(); c != 3 || p != 0 {
		t.Errorf("sync of 3 unchanged plugins: %d connections, %d pack requests; want 3 and 0", c, p)
	}

	// The first plugin's upstream moves: its one connection asks for a pack.
	work := t.TempDir()
	storetest.Git(t, work, "clone", "-q", base+"/"+names[0]+".git", "w")
	storetest.WriteFile(t, work+"/w/skills/"+names[0]+"-s0/SKILL.md", benchSkill(names[0]+"-s0", "last"))
	storetest.Git(t, work+"/w", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "move")
	storetest.Git(t, work+"/w", "push", "-q", "origin", "HEAD")
	srv.conns.Store(0)
	rep, err = Run(context.Background(), s, Options{})
	if err != nil || rep.Failed() {
		t.Fatalf("sync: %v %+v", err, rep)
	}
	if c, p := srv.conns.Load(), srv.packRequests.Load(); c != 3 || p != 1 {
		t.Errorf("sync with one upstream moved: %d connections, %d pack requests; want 3 and 1", c, p)
	}
	if sk := rep.Plugins[0].Skills; len(sk) == 0 || sk[0].Classification == ClassUnchanged {
		t.Errorf("the moved plugin's skill was not updated: %+v", rep.Plugins[0])
	}
}
