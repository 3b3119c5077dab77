package plugins

import (
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
