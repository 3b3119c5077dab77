package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

func TestFetchHostBounds(t *testing.T) {
	for _, c := range []struct {
		url   string
		jobs  int
		host  string
		bound int
	}{
		{"git://example.com/a.git", 0, "git://example.com", gitFetchJobs},
		{"git://Example.com:9418/b.git", 0, "git://example.com", gitFetchJobs},
		{"ssh://git@example.com/a.git", 0, "ssh://example.com", sshFetchJobs},
		{"git@example.com:owner/a.git", 0, "ssh://example.com", sshFetchJobs},
		{"https://example.com/a.git", 0, "https://example.com", DefaultFetchJobs},
		{"/srv/repos/a.git", 0, "", localFetchJobs},
		{"file:///srv/repos/a.git", 0, "", localFetchJobs},
		{"git://example.com/a.git", 50, "git://example.com", 50},
		{"/srv/repos/a.git", 2, "", 2},
	} {
		host, bound := fetchHost(c.url, c.jobs)
		if host != c.host || bound != c.bound {
			t.Errorf("fetchHost(%q, %d) = %q, %d; want %q, %d", c.url, c.jobs, host, bound, c.host, c.bound)
		}
	}
}

func TestFetchScheduleTakesHostsInTurn(t *testing.T) {
	var reqs []FetchRequest
	for _, u := range []string{"git://a/1", "git://a/2", "git://a/3", "ssh://b/1", "git://c/1", "ssh://b/2"} {
		reqs = append(reqs, FetchRequest{Source: Source{Kind: SourceGit, URL: u}})
	}
	ordered, slots := fetchSchedule(reqs, 0)
	var got []string
	for _, r := range ordered {
		got = append(got, r.Source.URL)
	}
	want := []string{"git://a/1", "ssh://b/1", "git://c/1", "git://a/2", "ssh://b/2", "git://a/3"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if len(slots) != 3 || cap(slots["git://a"]) != gitFetchJobs || cap(slots["ssh://b"]) != sshFetchJobs {
		t.Errorf("slots: %d hosts, git://a %d, ssh://b %d", len(slots), cap(slots["git://a"]), cap(slots["ssh://b"]))
	}
}

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
	s := newSyncStore(t)
	for _, name := range names {
		src, err := ParseSource(fmt.Sprintf("git://%s/%s.git", srv.addr, name), "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddPlugin(context.Background(), src, AddPluginOptions{ID: name}); err != nil {
			t.Fatal(err)
		}
	}
	srv.conns.Store(0)
	srv.packRequests.Store(0)
	rep, err := s.Sync(context.Background(), SyncOptions{})
	if err != nil || rep.Failed() {
		t.Fatalf("sync: %v %+v", err, rep)
	}
	if c, p := srv.conns.Load(), srv.packRequests.Load(); c != 3 || p != 0 {
		t.Errorf("sync of 3 unchanged plugins: %d connections, %d pack requests; want 3 and 0", c, p)
	}

	// The first plugin's upstream moves: its one connection asks for a pack.
	work := t.TempDir()
	gitRun(t, work, "clone", "-q", base+"/"+names[0]+".git", "w")
	writeFile(t, work+"/w/skills/"+names[0]+"-s0/SKILL.md", benchSkill(names[0]+"-s0", "last"))
	gitRun(t, work+"/w", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "move")
	gitRun(t, work+"/w", "push", "-q", "origin", "HEAD")
	srv.conns.Store(0)
	rep, err = s.Sync(context.Background(), SyncOptions{})
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
