package plugins

import (
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
)

// How many git sources a sync fetches at once. An unchanged plugin costs
// one connection and one round trip (the ref listing; nothing is
// negotiated when the store has every commit it wants), so a cron sync of
// many plugins is bound by round trips, and the more fetches overlap the
// sooner it ends. What bounds them is what one client should ask of a
// server, which depends on how the server serves a connection:
//
//   - ssh: OpenSSH's MaxStartups (10:30:100 by default) drops unauthenticated
//     connections at random beyond 10 from all clients: 8 per host.
//   - git://: git daemon forks two processes per connection and, past its
//     --max-connections (32 by default, all clients together), kills a
//     connection and pauses a second: 24 per host.
//   - http(s): one HTTP/2 connection carries the requests (or idle
//     HTTP/1.1 connections are reused): the overall bound only.
//   - a local path or file://: each fetch runs git-upload-pack on this
//     machine, so it is bound by the cores: 4.
//
// Options.FetchJobs, when set (--fetch-jobs), replaces every bound: it is
// then both the overall and the per-host one.
const (
	// DefaultFetchJobs bounds the fetches at once, all hosts together,
	// when Options.FetchJobs is zero.
	DefaultFetchJobs = 64
	sshFetchJobs     = 8
	gitFetchJobs     = 24
	localFetchJobs   = 4
)

// fetchHost is the server a source's URL names ("" for a local path) and
// the bound on fetches to it at once.
func fetchHost(url string, jobs int) (host string, bound int) {
	ep, err := transport.NewEndpoint(url)
	if err != nil || ep.Protocol == "file" {
		bound = localFetchJobs
	} else {
		host = ep.Protocol + "://" + strings.ToLower(ep.Host)
		switch ep.Protocol {
		case "ssh":
			bound = sshFetchJobs
		case "git":
			bound = gitFetchJobs
		default:
			bound = DefaultFetchJobs
		}
	}
	if jobs > 0 {
		bound = jobs
	}
	return host, bound
}

// fetchSchedule orders the fetches so that consecutive ones go to
// different hosts (round robin, each host's in their order) and gives a
// semaphore per host: a worker waiting on a busy host is then rare, and
// the other hosts' fetches are not held behind it.
func fetchSchedule(reqs []FetchRequest, jobs int) (ordered []FetchRequest, slots map[string]chan struct{}) {
	slots = map[string]chan struct{}{}
	var hosts []string
	byHost := map[string][]FetchRequest{}
	for _, r := range reqs {
		h, bound := fetchHost(r.Source.URL, jobs)
		if _, ok := slots[h]; !ok {
			slots[h] = make(chan struct{}, bound)
			hosts = append(hosts, h)
		}
		byHost[h] = append(byHost[h], r)
	}
	for len(ordered) < len(reqs) {
		for _, h := range hosts {
			if q := byHost[h]; len(q) > 0 {
				ordered = append(ordered, q[0])
				byHost[h] = q[1:]
			}
		}
	}
	return ordered, slots
}
