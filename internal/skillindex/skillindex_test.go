package skillindex

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A skills.sh server answering as skills.sh does: the query and the limit
// in the URL, the skills in the answer; the results come sorted by
// installs with their pages.
func TestSkillsShSearch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/search" || r.URL.Query().Get("q") != "pdf tools" || r.URL.Query().Get("limit") != "5" {
			http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"skills":[
			{"id":"acme/docs/pdf-lite","name":"pdf-lite","source":"acme/docs","installs":12},
			{"id":"anthropics/skills/pdf","name":"pdf","source":"anthropics/skills","installs":48213},
			{"id":"x/y/z","name":"","source":"x/y","installs":1}]}`))
	}))
	defer srv.Close()
	got, err := SkillsSh{BaseURL: srv.URL}.Search(context.Background(), "pdf tools", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "pdf" || *got[0].Installs != 48213 || got[0].URL != srv.URL+"/anthropics/skills/pdf" || got[1].Source != "acme/docs" {
		t.Errorf("got %+v", got)
	}
}

// GitHub's code search refuses requests without a token: the client says
// so before asking; with one, it sends it, reads the items, names each
// skill after its folder, and adds each repository's stars.
func TestGitHubCodeSearch(t *testing.T) {
	if _, err := (GitHubCode{APIURL: "http://127.0.0.1:1"}).Search(context.Background(), "pdf", 5); !errors.Is(err, ErrNoToken) {
		t.Fatalf("without a token: %v, want ErrNoToken", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"message":"Requires authentication","documentation_url":"https://docs.github.com/rest"}`))
			return
		}
		switch r.URL.Path {
		case "/search/code":
			if r.URL.Query().Get("q") != "filename:SKILL.md pdf" {
				http.Error(w, `{"message":"Validation Failed"}`, http.StatusUnprocessableEntity)
				return
			}
			w.Write([]byte(`{"total_count":3,"incomplete_results":false,"items":[
				{"name":"SKILL.md","path":"skills/pdf/SKILL.md","sha":"a","html_url":"https://github.com/acme/docs/blob/main/skills/pdf/SKILL.md","repository":{"full_name":"acme/docs"}},
				{"name":"SKILL.md","path":"SKILL.md","sha":"b","html_url":"https://github.com/solo/pdf-skill/blob/main/SKILL.md","repository":{"full_name":"solo/pdf-skill"}},
				{"name":"README.md","path":"skills/pdf/README.md","sha":"c","repository":{"full_name":"acme/docs"}}]}`))
		case "/repos/acme/docs":
			w.Write([]byte(`{"full_name":"acme/docs","stargazers_count":321}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"message":"Not Found"}`))
		}
	}))
	defer srv.Close()
	got, err := GitHubCode{APIURL: srv.URL, Token: "tok"}.Search(context.Background(), "pdf", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "pdf" || got[0].Stars == nil || *got[0].Stars != 321 || got[1].Name != "pdf-skill" || got[1].Stars != nil {
		t.Errorf("got %+v", got)
	}
	_, err = GitHubCode{APIURL: srv.URL, Token: "wrong"}.Search(context.Background(), "pdf", 5)
	var se *StatusError
	if !errors.As(err, &se) || se.Code != 401 || !strings.Contains(err.Error(), "401 Unauthorized: Requires authentication") {
		t.Errorf("a refused token: %v", err)
	}
}

// A server that is not there, and one that never answers, are one line
// each: the host and why.
func TestNetworkFailures(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = SkillsSh{BaseURL: "http://" + addr}.Search(context.Background(), "pdf", 5)
	if err == nil || !strings.HasPrefix(err.Error(), addr+" unreachable: ") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a closed port: %v", err)
	}
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hang.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = SkillsSh{BaseURL: hang.URL}.Search(ctx, "pdf", 5)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "did not answer in time") {
		t.Errorf("a server that never answers: %v", err)
	}
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }))
	defer bad.Close()
	if _, err := (SkillsSh{BaseURL: bad.URL}).Search(context.Background(), "pdf", 5); err == nil || !strings.Contains(err.Error(), "not the JSON expected") {
		t.Errorf("an answer that is not JSON: %v", err)
	}
}
