package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// statelessProtocol is the first MCP protocol version without sessions:
// each request stands alone, so any server of a team may answer it.
const statelessProtocol = "2026-07-28"

// mcpStateless sends one request of the 2026-07-28 protocol, as such a
// client does: no session, the protocol version, client info and
// capabilities in the request's _meta, its method (and for a read or a
// tool call, its name) in headers. It returns the HTTP status and, for a
// 200, the JSON-RPC reply exactly as it came (result bytes untouched).
func mcpStateless(client *http.Client, url, token, method string, params map[string]any) (int, wireReply, error) {
	p := map[string]any{"_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    statelessProtocol,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "team-test", "version": "1"},
	}}
	for k, v := range params {
		p[k] = v
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": p})
	req, err := http.NewRequest("POST", url, bytes.NewReader(body))
	if err != nil {
		return 0, wireReply{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", statelessProtocol)
	req.Header.Set("Mcp-Method", method)
	switch method {
	case "resources/read":
		req.Header.Set("Mcp-Name", fmt.Sprint(params["uri"]))
	case "tools/call":
		req.Header.Set("Mcp-Name", fmt.Sprint(params["name"]))
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, wireReply{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return resp.StatusCode, wireReply{}, nil
	}
	var msg []byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				msg = []byte(data)
			}
		}
		if err := sc.Err(); err != nil {
			return resp.StatusCode, wireReply{}, err
		}
	} else if msg, err = io.ReadAll(resp.Body); err != nil {
		return resp.StatusCode, wireReply{}, err
	}
	var r wireReply
	if err := json.Unmarshal(msg, &r); err != nil {
		return resp.StatusCode, r, fmt.Errorf("%s: reply %.200q: %v", method, msg, err)
	}
	if r.Error == nil && r.Result == nil {
		return resp.StatusCode, r, fmt.Errorf("%s: a reply with neither result nor error: %.200q", method, msg)
	}
	return resp.StatusCode, r, nil
}

// teamStore is a team's setup as docs/guide/team.md describes it: the
// syncing machine's store, its bare remote on disk, and server clones.
type teamStore struct {
	team, remote string
}

// newTeamStore makes the syncing machine's store (skillsFixture with
// bulk skills) and pushes it to a bare remote.
func newTeamStore(t *testing.T, bulk int) *teamStore {
	t.Helper()
	ts := &teamStore{team: skillsFixture(t, bulk), remote: filepath.Join(t.TempDir(), "team.git")}
	if out, err := exec.Command("git", "init", "-q", "--bare", ts.remote).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	mustRun(t, ts.team, "remote", "add", "origin", ts.remote)
	mustRun(t, ts.team, "push")
	return ts
}

// clone makes one server's store, as 'skillstore clone URL DIR' does.
func (ts *teamStore) clone(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	mustRun(t, dir, "clone", ts.remote, dir)
	return dir
}

// listAll walks every page of skills/list over c and returns each page's
// result as the server sent it.
func listAll(t *testing.T, c *wireClient) []json.RawMessage {
	t.Helper()
	var pages []json.RawMessage
	cursor := ""
	for len(pages) < 100 {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var p struct {
			NextCursor string `json:"nextCursor"`
		}
		pages = append(pages, c.ok("skills/list", params, &p))
		if cursor = p.NextCursor; cursor == "" {
			return pages
		}
	}
	t.Fatal("skills/list: more than 100 pages")
	return nil
}

// skillURIs are the entries' URIs of listing pages.
func skillURIs(t *testing.T, pages []json.RawMessage) []string {
	t.Helper()
	var uris []string
	for _, raw := range pages {
		var p struct{ Skills []struct{ URI string } }
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		for _, s := range p.Skills {
			uris = append(uris, s.URI)
		}
	}
	return uris
}

// served is what one server answers for a team's skills: every page of
// skills/list and skills/get of every entry, as sent.
type served struct {
	pages []json.RawMessage
	gets  map[string]json.RawMessage
}

func serveAll(t *testing.T, c *wireClient) served {
	t.Helper()
	s := served{pages: listAll(t, c), gets: map[string]json.RawMessage{}}
	for _, uri := range skillURIs(t, s.pages) {
		s.gets[uri] = c.ok("skills/get", map[string]any{"uri": uri}, nil)
	}
	return s
}

// sameServed fails unless a and b are the same bytes, page by page and
// entry by entry.
func sameServed(t *testing.T, when string, a, b served) {
	t.Helper()
	if len(a.pages) != len(b.pages) {
		t.Fatalf("%s: skills/list has %d pages on server 1, %d on server 2", when, len(a.pages), len(b.pages))
	}
	for i := range a.pages {
		if !bytes.Equal(a.pages[i], b.pages[i]) {
			t.Errorf("%s: skills/list page %d differs:\nserver 1: %.400s\nserver 2: %.400s", when, i+1, a.pages[i], b.pages[i])
		}
	}
	if len(a.gets) != len(b.gets) {
		t.Errorf("%s: %d entries on server 1, %d on server 2", when, len(a.gets), len(b.gets))
	}
	for uri, ga := range a.gets {
		if gb := b.gets[uri]; !bytes.Equal(ga, gb) {
			t.Errorf("%s: skills/get %s differs:\nserver 1: %s\nserver 2: %s", when, uri, ga, gb)
		}
	}
}

// skillMDDigest is the digest an entry gives its SKILL.md.
func skillMDDigest(t *testing.T, get json.RawMessage) string {
	t.Helper()
	var g struct {
		Skill struct {
			Resources []struct{ URI, Digest string }
		}
	}
	if err := json.Unmarshal(get, &g); err != nil {
		t.Fatal(err)
	}
	for _, r := range g.Skill.Resources {
		if strings.HasSuffix(r.URI, "/SKILL.md") {
			return r.Digest
		}
	}
	t.Fatalf("no SKILL.md in %s", get)
	return ""
}

// roundRobin is a load balancer of the plainest kind on 127.0.0.1: each
// request goes to the next server in turn, with no session affinity.
func roundRobin(t *testing.T, backends ...string) string {
	t.Helper()
	var targets []*url.URL
	for _, b := range backends {
		u, err := url.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, u)
	}
	var next atomic.Int64
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		u := targets[int(next.Add(1)-1)%len(targets)]
		r.SetURL(u)
		r.Out.URL.Path = u.Path
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: proxy, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/mcp"
}

// TestMCPServersOnTeamClones is docs/guide/team.md's scale-out: two
// 'skillstore mcp --http' servers (real processes on 127.0.0.1), each on
// its own clone of one team store, one token file made on the syncing
// machine and copied to both (never pushed). Both serve the same
// skills/list pages and skills/get entries byte for byte (URIs,
// frontmatter, digests); a client of the session-less 2026-07-28
// protocol walks the listing through a round-robin balancer, each page
// from the other server. After a new version is published and pushed on
// the team store and each clone pulls (as cron does), both servers see
// it by their own poll (their connected hosts are sent
// notifications/resources/list_changed with no request made), and serve
// the same new digest, the sha256 of the new SKILL.md, and the pinned v1
// as before. A token removed on the syncing machine and copied again is
// refused by both.
func TestMCPServersOnTeamClones(t *testing.T) {
	ts := newTeamStore(t, 520) // 525 skills: skills/list takes two pages
	alice := strings.TrimSpace(mustRun(t, ts.team, "mcp", "token", "add", "alice"))
	bob := strings.TrimSpace(mustRun(t, ts.team, "mcp", "token", "add", "bob"))
	mustRun(t, ts.team, "push")
	tokenFile := filepath.Join(ts.team, "skillstore", "mcp-tokens.json")
	tokens, err := os.ReadFile(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	// The tokens' hashes never reach the team remote: not in any object.
	var hashes struct{ Tokens []struct{ SHA256 string } }
	if err := json.Unmarshal(tokens, &hashes); err != nil || len(hashes.Tokens) != 2 {
		t.Fatalf("token file %s: %v %s", tokenFile, err, tokens)
	}
	all, err := exec.Command("git", "--git-dir", ts.remote, "cat-file", "--batch-all-objects", "--batch").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hashes.Tokens {
		if bytes.Contains(all, []byte(h.SHA256)) {
			t.Errorf("the team remote holds a token's hash %s", h.SHA256)
		}
	}

	clones := []string{ts.clone(t, "server1"), ts.clone(t, "server2")}
	copyTokens := func() {
		t.Helper()
		data, err := os.ReadFile(tokenFile)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range clones { // what rsync or an ssh copy does: a new file renamed in
			tmp := filepath.Join(c, "skillstore", "mcp-tokens.json.new")
			if err := os.WriteFile(tmp, data, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, filepath.Join(c, "skillstore", "mcp-tokens.json")); err != nil {
				t.Fatal(err)
			}
		}
	}
	copyTokens()
	var srvs []*mcpHTTPServer
	var hosts []*wireClient
	for _, c := range clones {
		srv := startMCPHTTP(t, c, "--rate", "5000") // a skills/get of every skill in a few seconds
		srvs = append(srvs, srv)
		h := httpWire(t, srv.url, alice) // a session: one server's
		defer h.close()
		h.initialize()
		hosts = append(hosts, h)
	}

	before := []served{serveAll(t, hosts[0]), serveAll(t, hosts[1])}
	sameServed(t, "two clones", before[0], before[1])
	if n := len(before[0].gets); n != 524 || len(before[0].pages) != 2 {
		t.Fatalf("%d skills in %d pages, want 524 (not plain-words) in 2", n, len(before[0].pages))
	}
	for _, uri := range []string{"skill://pdf-forms/SKILL.md", "skill://acme~/release-notes/SKILL.md"} {
		if before[0].gets[uri] == nil {
			t.Errorf("no %s served", uri)
		}
	}

	// Through a balancer with no affinity: each request to the other
	// server; a cursor of one is understood by the other.
	lb := roundRobin(t, srvs[0].url, srvs[1].url)
	client := &http.Client{Timeout: 30 * time.Second}
	var viaLB []json.RawMessage
	for cursor := ""; len(viaLB) < 10; {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		code, r, err := mcpStateless(client, lb, bob, "skills/list", params)
		if err != nil || code != 200 || r.Error != nil {
			t.Fatalf("skills/list through the balancer: %d %v %+v", code, err, r.Error)
		}
		viaLB = append(viaLB, r.Result)
		var p struct{ NextCursor string }
		json.Unmarshal(r.Result, &p)
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	if strings.Join(skillURIs(t, viaLB), " ") != strings.Join(skillURIs(t, before[0].pages), " ") {
		t.Errorf("the walk through the balancer listed other skills than one server's walk")
	}
	for i, uri := range []string{"skill://pdf-forms/SKILL.md", "skill://pdf-forms/SKILL.md", "skill://acme~/release-notes/SKILL.md", "skill://acme~/release-notes/SKILL.md"} {
		code, r, err := mcpStateless(client, lb, bob, "skills/get", map[string]any{"uri": uri})
		if err != nil || code != 200 || r.Error != nil {
			t.Fatalf("skills/get %s through the balancer (%d): %d %v %+v", uri, i, code, err, r.Error)
		}
		if skillMDDigest(t, r.Result) != skillMDDigest(t, before[0].gets[uri]) {
			t.Errorf("skills/get %s through the balancer (%d): another digest than the session's", uri, i)
		}
	}

	// A new version on the syncing machine, pushed; each clone pulls.
	for _, h := range hosts {
		h.mu.Lock()
		h.notes = nil
		h.mu.Unlock()
	}
	edit := filepath.Join(t.TempDir(), "pdf-forms")
	mustRun(t, ts.team, "checkout", "pdf-forms", edit)
	v2 := strings.Replace(pdfFormsV1, "Use pdftk.", "Use qpdf.", 1)
	if v2 == pdfFormsV1 {
		t.Fatal("the fixture's SKILL.md has no 'Use pdftk.'")
	}
	if err := os.WriteFile(filepath.Join(edit, "SKILL.md"), []byte(v2), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, ts.team, "add", edit, "--reason", "qpdf")
	mustRun(t, ts.team, "push")
	for _, c := range clones {
		mustRun(t, c, "pull")
	}
	// Each server notices by its own poll: no request is made meanwhile.
	deadline := time.Now().Add(30 * time.Second)
	for i, h := range hosts {
		for !h.sawNote("notifications/resources/list_changed") && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if !h.sawNote("notifications/resources/list_changed") {
			t.Fatalf("server %d sent no notifications/resources/list_changed within 30s of the pull\n%s", i+1, srvs[i].stderr.String())
		}
	}
	after := []served{serveAll(t, hosts[0]), serveAll(t, hosts[1])}
	sameServed(t, "after the pulls", after[0], after[1])
	sum := sha256.Sum256([]byte(v2))
	uri := "skill://pdf-forms/SKILL.md"
	if got, want := skillMDDigest(t, after[0].gets[uri]), "sha256:"+hex.EncodeToString(sum[:]); got != want {
		t.Errorf("after the pulls, %s has digest %s, want the new SKILL.md's %s", uri, got, want)
	}
	for i, h := range hosts {
		pinned := h.ok("skills/get", map[string]any{"uri": "skill://~v1/pdf-forms/SKILL.md"}, nil)
		if got, want := skillMDDigest(t, pinned), skillMDDigest(t, before[0].gets[uri]); got != want {
			t.Errorf("server %d: pinned v1 has digest %s, want v1's %s", i+1, got, want)
		}
	}
	for u, g := range before[0].gets {
		if u != uri && !bytes.Equal(g, after[0].gets[u]) {
			t.Errorf("%s changed though only pdf-forms got a new version", u)
		}
	}

	// Revoked on the syncing machine, copied again: refused by both.
	mustRun(t, ts.team, "mcp", "token", "rm", "bob")
	copyTokens()
	for i, srv := range srvs {
		if code, _, err := mcpStateless(client, srv.url, bob, "skills/list", nil); err != nil || code != 401 {
			t.Errorf("server %d: bob's revoked token got %d %v, want 401", i+1, code, err)
		}
		if code, _, err := mcpStateless(client, srv.url, alice, "skills/list", nil); err != nil || code != 200 {
			t.Errorf("server %d: alice's token got %d %v, want 200", i+1, code, err)
		}
	}
	// Each server logs the loads it served in its own clone, naming the
	// token's holder and the version.
	for i, h := range hosts {
		h.ok("resources/read", map[string]any{"uri": uri}, nil)
		if out := mustRun(t, clones[i], "log", "--loads", "pdf-forms"); !strings.Contains(out, "(token alice)  pdf-forms  v2") {
			t.Errorf("server %d's loads log has no load of pdf-forms v2 by alice:\n%s", i+1, out)
		}
	}
}
