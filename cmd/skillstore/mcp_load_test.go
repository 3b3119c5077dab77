package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillstore/skillstore/reload/mcpserver"
)

// The load test: many hosts at once, each with its own token and its own
// connection, against 'skillstore mcp --http' (a real process on
// 127.0.0.1) serving a store of generated skills. Each host speaks the
// session-less 2026-07-28 protocol and makes, in every 20 requests, one
// skills/list page (walking the listing as a host building its registry
// does, one page further each time), 10 skills/get and 9 resources/read
// of a skill's SKILL.md or reference.md, the skills drawn over the whole
// store. The work is bounded in count (requests per host) and in time.

// loadSkillName is the i-th generated skill's name; names sort as the
// indexes do, so listing page p holds skills p*500 to p*500+499.
func loadSkillName(i int) string { return fmt.Sprintf("skill-%05d", i) }

// loadPageSize is skills/list's page size (reload/mcpserver's listPageSize).
const loadPageSize = 500

// writeLoadStore makes a store of n skills at dir/store (with 'skillstore
// add', one process): a SKILL.md of about 2 KB whose description and body
// draw on a vocabulary of task words, and a reference.md of 2 KB.
func writeLoadStore(t testing.TB, dir string, n int) string {
	t.Helper()
	words := strings.Fields("deploy staging service pdf forms fill extract rotate keys audit release notes changelog " +
		"review code test coverage database migrate schema docker image build cache lint format commit branch merge " +
		"spreadsheet chart slides brand design api client retry timeout log metrics alert incident postmortem")
	var folders []string
	for i := range n {
		name := loadSkillName(i)
		var desc, body strings.Builder
		for j := range 12 {
			desc.WriteString(words[(i*31+j*17)%len(words)] + " ")
		}
		for body.Len() < 2000 {
			fmt.Fprintf(&body, "Step: %s the %s, then check the %s.\n", words[(i+body.Len())%len(words)], words[(i*7+body.Len())%len(words)], words[(i*13)%len(words)])
		}
		folder := filepath.Join(dir, "src", name)
		if err := os.MkdirAll(folder, 0o755); err != nil {
			t.Fatal(err)
		}
		md := "---\nname: " + name + "\ndescription: " + strings.TrimSpace(desc.String()) + ".\n---\n# " + name + "\n\n" + body.String()
		if err := os.WriteFile(filepath.Join(folder, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(folder, "reference.md"), []byte(strings.Repeat("Reference for "+name+".\n", 80)), 0o644); err != nil {
			t.Fatal(err)
		}
		folders = append(folders, folder)
	}
	storeDir := filepath.Join(dir, "store")
	mustRun(t, storeDir, "init")
	mustRun(t, storeDir, append([]string{"add"}, folders...)...)
	return storeDir
}

// loadTokens makes one token per host (holders host-000, ...) in the
// store's token file, as 'skillstore mcp token add' does.
func loadTokens(t testing.TB, storeDir string, hosts int) []string {
	t.Helper()
	tokens := mcpserver.NewTokens(filepath.Join(storeDir, "skillstore", "mcp-tokens.json"))
	out := make([]string, hosts)
	for i := range out {
		tok, err := tokens.Add(context.Background(), fmt.Sprintf("host-%03d", i), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		out[i] = tok
	}
	return out
}

// loadRun is one load run's outcome.
type loadRun struct {
	wall     time.Duration
	requests int                        // answered, well or not
	errors   int                        // not a 200 with a JSON-RPC result
	unsent   int                        // left unsent when the time bound passed
	lat      map[string][]time.Duration // by method
	firstErr string
	// files are the git objects each request's answer carries or vouches
	// for by digest (a read: its file; skills/get: the skill's two files; a
	// listing page: its skills' files), as 'git cat-file --batch' names
	// them: the reference reads the same.
	files [][]string
}

func (r *loadRun) all() []time.Duration {
	var all []time.Duration
	for _, l := range r.lat {
		all = append(all, l...)
	}
	return all
}

// percentile is the p-th percentile of d (sorted in place).
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// skillFiles is what git calls skill i's files.
func skillFiles(i int) []string {
	ref := "refs/heads/skills/" + loadSkillName(i)
	return []string{ref + ":SKILL.md", ref + ":reference.md"}
}

// runMCPLoad runs len(tokens) hosts at once against url, perHost requests
// each, over a store of n generated skills; a host stops early when bound
// has passed.
func runMCPLoad(url string, tokens []string, perHost, n int, bound time.Duration) *loadRun {
	run := &loadRun{lat: map[string][]time.Duration{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	stop := start.Add(bound)
	pages := (n + loadPageSize - 1) / loadPageSize
	for h, token := range tokens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// One host: its own connection, kept alive.
			client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			defer client.CloseIdleConnections()
			cursor, page := "", 0
			lat := map[string][]time.Duration{}
			var files [][]string
			errs, sent := 0, 0
			firstErr := ""
			for k := range perHost {
				if time.Now().After(stop) {
					break
				}
				i := (h*7919 + k*104729) % n
				var method string
				var params map[string]any
				var covers []string
				switch {
				case k%20 == 0:
					method = "skills/list"
					if cursor != "" {
						params = map[string]any{"cursor": cursor}
					}
					for j := page * loadPageSize; j < min(n, (page+1)*loadPageSize); j++ {
						covers = append(covers, skillFiles(j)...)
					}
				case k%2 == 1:
					method, params, covers = "skills/get", map[string]any{"uri": "skill://" + loadSkillName(i) + "/SKILL.md"}, skillFiles(i)
				default:
					f := []string{"SKILL.md", "reference.md"}[k/2%2]
					method, params = "resources/read", map[string]any{"uri": "skill://" + loadSkillName(i) + "/" + f}
					covers = []string{"refs/heads/skills/" + loadSkillName(i) + ":" + f}
				}
				began := time.Now()
				code, r, err := mcpStateless(client, url, token, method, params)
				took := time.Since(began)
				sent++
				lat[method] = append(lat[method], took)
				files = append(files, covers)
				if err != nil || code != 200 || r.Error != nil || len(r.Result) == 0 {
					errs++
					if firstErr == "" {
						firstErr = fmt.Sprintf("host %d, %s %v: HTTP %d, %v, %+v", h, method, params, code, err, r.Error)
					}
					continue
				}
				if method == "skills/list" {
					var p struct {
						NextCursor string `json:"nextCursor"`
					}
					json.Unmarshal(r.Result, &p)
					cursor, page = p.NextCursor, (page+1)%pages
				}
			}
			mu.Lock()
			defer mu.Unlock()
			run.requests += sent
			run.unsent += perHost - sent
			run.errors += errs
			if run.firstErr == "" {
				run.firstErr = firstErr
			}
			for m, l := range lat {
				run.lat[m] = append(run.lat[m], l...)
			}
			run.files = append(run.files, files...)
		}()
	}
	wg.Wait()
	run.wall = time.Since(start)
	return run
}

// summary is a run's figures on one line.
func (r *loadRun) summary() string {
	var b strings.Builder
	all := r.all()
	fmt.Fprintf(&b, "%d requests in %v: %.0f requests/s, p50 %.2f ms, p99 %.2f ms, %d errors",
		r.requests, r.wall.Round(time.Millisecond), float64(r.requests)/r.wall.Seconds(), ms(percentile(all, .5)), ms(percentile(all, .99)), r.errors)
	for _, m := range []string{"skills/list", "skills/get", "resources/read"} {
		fmt.Fprintf(&b, "; %s p50 %.2f p99 %.2f ms", m, ms(percentile(r.lat[m], .5)), ms(percentile(r.lat[m], .99)))
	}
	if r.unsent > 0 {
		fmt.Fprintf(&b, "; %d left unsent at the time bound", r.unsent)
	}
	return b.String()
}

// procKB reads a field of /proc/PID/status in kB (VmHWM: the peak
// resident memory; VmRSS: the resident memory now), 0 where there is
// no /proc.
func procKB(pid int, field string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// catFileRun reads every group of files with one 'git cat-file --batch'
// process and returns the time of each group and the process's peak
// memory (kB).
func catFileRun(t testing.TB, gitDir string, groups [][]string) ([]time.Duration, time.Duration, int64) {
	t.Helper()
	cmd := exec.Command("git", "--git-dir", gitDir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close()
	out := bufio.NewReaderSize(outPipe, 1<<16)
	bw := bufio.NewWriter(in)
	lat := make([]time.Duration, 0, len(groups))
	start := time.Now()
	for _, g := range groups {
		began := time.Now()
		for _, spec := range g {
			bw.WriteString(spec + "\n")
		}
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		for _, spec := range g {
			header, err := out.ReadString('\n')
			f := strings.Fields(header)
			if err != nil || len(f) != 3 {
				t.Fatalf("git cat-file --batch %s: %q %v", spec, header, err)
			}
			size, _ := strconv.ParseInt(f[2], 10, 64)
			if _, err := io.CopyN(io.Discard, out, size+1); err != nil {
				t.Fatal(err)
			}
		}
		lat = append(lat, time.Since(began))
	}
	return lat, time.Since(start), procKB(cmd.Process.Pid, "VmHWM")
}

// BenchmarkMCPHTTPLoad10k is the load test of 'skillstore mcp --http': 200
// hosts at once (a token and a connection each; the session-less
// 2026-07-28 protocol), 50 requests each (10,000 in all: skills/list
// pages, skills/get, resources/read; see runMCPLoad), bounded at 5
// minutes, against a store of 10,000 skills. It reports requests/s, the
// p50 and p99 latency, the errors (any is a failure) and the server's
// resident memory before (idle, every digest computed) and at its peak
// (VmHWM). Beside it, ref-cat-file-batch: one 'git cat-file --batch'
// process reading the same files, each request's group in turn: what the
// answers carry or vouch for by digest. The rate limit is set out of the
// way (--rate 1000000): this measures the server, TestMCPOverHTTPRefusesBadInput
// the limit.
func BenchmarkMCPHTTPLoad10k(b *testing.B) {
	requireGit(b)
	const skills, hosts, perHost = 10000, 200, 50
	dir := b.TempDir()
	storeDir := writeLoadStore(b, dir, skills)
	tokens := loadTokens(b, storeDir, hosts)
	began := time.Now()
	srv := startMCPHTTP(b, storeDir, "--rate", "1000000")
	started := time.Since(began)
	pid := srv.cmd.Process.Pid
	idle := procKB(pid, "VmRSS")
	var run *loadRun
	b.Run("http-200-hosts", func(b *testing.B) {
		for b.Loop() {
			run = runMCPLoad(srv.url, tokens, perHost, skills, 5*time.Minute)
		}
		if run.errors > 0 {
			b.Fatalf("%s\nfirst: %s", run.summary(), run.firstErr)
		}
		all := run.all()
		b.ReportMetric(float64(run.requests)/run.wall.Seconds(), "req/s")
		b.ReportMetric(ms(percentile(all, .5)), "p50-ms")
		b.ReportMetric(ms(percentile(all, .99)), "p99-ms")
		b.ReportMetric(float64(run.errors), "errors")
		b.ReportMetric(float64(idle)/1024, "server-idle-MB")
		b.ReportMetric(float64(procKB(pid, "VmHWM"))/1024, "server-peak-MB")
		b.Logf("server started in %v, resident %d MB; %s", started.Round(time.Millisecond), idle/1024, run.summary())
	})
	if run == nil {
		return // left out by -bench
	}
	b.Run("ref-cat-file-batch", func(b *testing.B) {
		var lat []time.Duration
		var wall time.Duration
		var peak int64
		for b.Loop() {
			lat, wall, peak = catFileRun(b, storeDir, run.files)
		}
		reads := 0
		for _, g := range run.files {
			reads += len(g)
		}
		b.ReportMetric(float64(len(run.files))/wall.Seconds(), "req/s")
		b.ReportMetric(ms(percentile(lat, .5)), "p50-ms")
		b.ReportMetric(ms(percentile(lat, .99)), "p99-ms")
		b.ReportMetric(float64(reads)/wall.Seconds(), "files/s")
		b.ReportMetric(float64(peak)/1024, "peak-MB")
	})
}

// TestMCPHTTPUnderLoad is the load test's shape at a size for every test
// run: 200 hosts at once, each with its own token and connection, 10
// requests each (a listing page, skills/get, resources/read) against a
// store of 1,000 skills, within 5 minutes. Every request is sent and
// answered 200 with a result: no error, no 429 (one bucket per holder,
// not per address: every host here shares 127.0.0.1), no refused
// connection. Timings and memory are the benchmark's to print
// (BenchmarkMCPHTTPLoad10k), never asserted.
func TestMCPHTTPUnderLoad(t *testing.T) {
	requireGit(t)
	const skills, hosts, perHost = 1000, 200, 10
	storeDir := writeLoadStore(t, t.TempDir(), skills)
	tokens := loadTokens(t, storeDir, hosts)
	srv := startMCPHTTP(t, storeDir) // the default rate: 10 requests a host stay within its burst
	run := runMCPLoad(srv.url, tokens, perHost, skills, 5*time.Minute)
	t.Logf("%s; server peak %d MB", run.summary(), procKB(srv.cmd.Process.Pid, "VmHWM")/1024)
	if run.errors > 0 || run.unsent > 0 || run.requests != hosts*perHost {
		t.Errorf("%s\nfirst error: %s", run.summary(), run.firstErr)
	}
}
