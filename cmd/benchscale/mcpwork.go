package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// mcpWorks measure 'skillstore mcp' as an agent meets it: how long until
// it answers the handshake (initialize), and until it answers the first
// find_skills (the published set read and indexed), with the server's
// peak memory: cold, with no index file in the store (removed before each
// run), and warm, with the one the previous server wrote (a server
// started again on a store it served before). Beside them, git
// for-each-ref: listing the store's refs is the least a server of the
// published set must read.
func mcpWorks() []work {
	return []work{
		{name: "mcp handshake", measure: func(b *bench, f *fixture, reps int, tmp string) (row, error) {
			return measureMCP(b, f, reps, 1, false)
		}},
		{name: "mcp first search", measure: func(b *bench, f *fixture, reps int, tmp string) (row, error) {
			return measureMCP(b, f, reps, 2, false)
		}},
		{name: "mcp first search warm", measure: func(b *bench, f *fixture, reps int, tmp string) (row, error) {
			return measureMCP(b, f, reps, 2, true)
		}},
	}
}

// mcpIndexFile is the server's index file in a store (reload/mcpserver's
// IndexFileName, in the store's own folder).
func mcpIndexFile(store string) string { return filepath.Join(store, "skillstore", "mcp-index") }

// mcpSession is what an agent sends first: the handshake, then a search.
var mcpSession = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"find_skills","arguments":{"query":"skill"}}}`,
}

func measureMCP(b *bench, f *fixture, reps, id int, warm bool) (row, error) {
	name := map[int]string{1: "mcp handshake", 2: "mcp first search"}[id]
	if warm {
		name += " warm"
	}
	r := row{work: name, n: f.n, refCommand: "git for-each-ref"}
	var samples [2][]sample
	for i, bin := range gcBins(b) {
		if warm { // one run, untimed, leaves the index file
			if _, err := mcpRun(b, bin, f.store, id); err != nil {
				return r, err
			}
		}
		for k := 0; k < reps; k++ {
			if !warm {
				if err := os.Remove(mcpIndexFile(f.store)); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return r, err
				}
			}
			s, err := mcpRun(b, bin, f.store, id)
			if err != nil {
				return r, err
			}
			samples[i] = append(samples[i], s)
		}
	}
	var ref []sample
	for k := 0; k < reps; k++ {
		s, err := b.run("git", "", "--git-dir", f.store, "for-each-ref", "--format=%(refname)")
		if err != nil {
			return r, err
		}
		ref = append(ref, s)
	}
	r.ours, r.old, r.ref = summarize(samples[0]), summarize(samples[1]), summarize(ref)
	return r, nil
}

// mcpRun starts the server, sends mcpSession and times the answer to
// request id; the peak memory is the whole run's (the server exits when
// its stdin closes, after the search).
func mcpRun(b *bench, bin, store string, id int) (sample, error) {
	cmd := exec.Command(bin, "--store", store, "mcp")
	cmd.Env = b.env
	in, err := cmd.StdinPipe()
	if err != nil {
		return sample{}, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return sample{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	go func() {
		for _, line := range mcpSession {
			io.WriteString(in, line+"\n")
		}
	}()
	var wall time.Duration
	want := fmt.Sprintf(`"id":%d,`, id)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), want) {
			wall = time.Since(start)
		}
		if strings.Contains(sc.Text(), `"id":2,`) {
			break
		}
	}
	in.Close()
	io.Copy(io.Discard, out)
	err = cmd.Wait()
	s := sample{wall: wall}
	if cmd.ProcessState != nil {
		s.cpu, s.rss = usage(cmd.ProcessState)
	}
	if wall == 0 {
		return s, fmt.Errorf("%s mcp: no answer to request %d (%v)", bin, id, err)
	}
	return s, nil
}
