package ui

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/app/candidates"
)

// session serves s and returns a client holding its session cookie.
func session(t *testing.T, s *Server) (*httptest.Server, *http.Client) {
	t.Helper()
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(srv.URL + "/?token=" + s.guard.token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("token exchange: %s", resp.Status)
	}
	return srv, c
}

func postForm(t *testing.T, c *http.Client, u string, form url.Values) (*http.Response, string) {
	t.Helper()
	resp, err := c.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// TestEditResolvesInEditor: the page's "Resolve in $EDITOR" runs
// 'candidates edit' (its work folder, $EDITOR, the recorded resolution),
// and the candidate's head then holds the edit.
func TestEditResolvesInEditor(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the editor is sed, run through sh")
	}
	f := newFixture(t)
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", `sed -i 's/Say it once./Say it twice./'`)
	s, err := New(Options{Global: f.g})
	if err != nil {
		t.Fatal(err)
	}
	srv, c := session(t, s)
	resp, body := postForm(t, c, srv.URL+"/candidate/edit", url.Values{"csrf": {s.guard.csrf}, "skill": {"notes:hello"}})
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/candidate" || !strings.Contains(body, "edited candidate notes:hello: now at") {
		t.Fatalf("edit: %s at %s:\n%s", resp.Status, resp.Request.URL, body)
	}
	var cand candidateJSON
	if err := s.produce(context.Background(), &cand, func(g app.Global, out app.Output) error {
		return candidates.Show(context.Background(), candidates.Options{Global: g, Output: out, Skill: "notes:hello", WithFiles: true})
	}); err != nil {
		t.Fatal(err)
	}
	if !cand.Resolved || len(cand.Files.Head) != 1 || !strings.Contains(cand.Files.Head[0].Text, "Say it twice.") {
		t.Errorf("after edit: resolved=%v head=%+v", cand.Resolved, cand.Files.Head)
	}
}

// TestReadOnlyRefusesActions: with --read-only a POST that carries the
// session and the CSRF token is still refused, and nothing changes.
func TestReadOnlyRefusesActions(t *testing.T) {
	f := newFixture(t)
	s, err := New(Options{Global: f.g, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	srv, c := session(t, s)
	for _, action := range []string{"accept", "reject", "edit"} {
		resp, body := postForm(t, c, srv.URL+"/candidate/"+action, url.Values{"csrf": {s.guard.csrf}, "skill": {"notes:hello"}})
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "read-only") {
			t.Errorf("%s read-only: %s %s", action, resp.Status, body)
		}
	}
	var cands []candidateJSON
	if err := s.produce(context.Background(), &cands, func(g app.Global, out app.Output) error {
		return candidates.List(context.Background(), candidates.Options{Global: g, Output: out})
	}); err != nil || len(cands) != 2 || cands[0].Resolved || cands[1].Resolved {
		t.Errorf("candidates after refused actions: %v %+v", err, cands)
	}
}

// TestAcceptRefusedShowsWhy: accept of a stale or unknown candidate
// comes back to the page with the command's error and hints.
func TestAcceptRefusedShowsWhy(t *testing.T) {
	f := newFixture(t)
	s, err := New(Options{Global: f.g})
	if err != nil {
		t.Fatal(err)
	}
	srv, c := session(t, s)
	resp, body := postForm(t, c, srv.URL+"/candidate/accept", url.Values{"csrf": {s.guard.csrf}, "skill": {"evil"}})
	if resp.Request.URL.Path != "/candidate" || !strings.Contains(body, "no candidate") || !strings.Contains(body, "hint: run &#39;skillstore candidates list&#39;") {
		t.Errorf("accept without candidate: %s at %s:\n%s", resp.Status, resp.Request.URL, body)
	}
}

// TestOpenStartsTheBrowser: --open runs $BROWSER with the printed link,
// and the link it was given opens the page (once).
func TestOpenStartsTheBrowser(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in browser is a shell script")
	}
	f := newFixture(t)
	dir := t.TempDir()
	got := filepath.Join(dir, "opened")
	script := filepath.Join(dir, "browser")
	write(t, script, "#!/bin/sh\nprintf '%s' \"$1\" > "+got+".tmp && mv "+got+".tmp "+got+"\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", script)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	listening := make(chan string, 1)
	go func() {
		done <- Serve(ctx, Options{Global: f.g, Open: true, Listening: func(u string) { listening <- u }})
	}()
	var printed string
	select {
	case printed = <-listening:
	case err := <-done:
		t.Fatalf("ui: %v", err)
	}
	defer func() { cancel(); <-done }()
	var opened []byte
	for start := time.Now(); time.Since(start) < 20*time.Second; time.Sleep(50 * time.Millisecond) {
		if data, err := os.ReadFile(got); err == nil {
			opened = data
			break
		}
	}
	link := string(opened)
	if !strings.HasPrefix(link, "http://127.0.0.1:") || !strings.Contains(link, "/?token=") || link != printed {
		t.Fatalf("$BROWSER got %q; printed %q", link, printed)
	}
	jar, _ := cookiejar.New(nil)
	resp, err := (&http.Client{Jar: jar}).Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/candidates" {
		t.Errorf("the opened link: %s at %s", resp.Status, resp.Request.URL)
	}
}
