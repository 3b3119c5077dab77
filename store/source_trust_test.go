package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckNamedSource(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		src     Source
		allowed []string
		ok      bool
	}{
		{Source{Kind: SourceGit, URL: "https://example.com/a.git"}, nil, true},
		{Source{Kind: SourceGit, URL: "git@example.com:a.git"}, nil, true},
		{Source{Kind: SourceGit, URL: "file:///srv/private.git"}, nil, false},
		{Source{Kind: SourceGit, URL: "/srv/private.git"}, nil, false},
		{Source{Kind: SourceFolder, URL: filepath.Join(dir, "x")}, nil, false},
		{Source{Kind: SourceGit, URL: "file:///srv/private.git"}, []string{"/srv"}, true},
		{Source{Kind: SourceGit, URL: "file:///srv/private.git"}, []string{"file:///srv/private.git"}, true},
		{Source{Kind: SourceGit, URL: "file:///srv/private.git"}, []string{"/srv/private"}, false},
		{Source{Kind: SourceGit, URL: "file:///srv/../etc/x"}, []string{"/srv"}, false},
		{Source{Kind: SourceFolder, URL: filepath.Join(dir, "x")}, []string{dir}, true},
	}
	for _, c := range cases {
		err := CheckNamedSource(c.src, c.allowed)
		if (err == nil) != c.ok || err != nil && !errors.Is(err, ErrLocalSource) {
			t.Errorf("CheckNamedSource(%s, %v) = %v, want ok %v", c.src.URL, c.allowed, err, c.ok)
		}
	}
}

// A marketplace entry whose url is a file:// repository is refused (the
// marketplace's author named it, not the user) with the flag that takes
// it; the marketplace's other plugins go in. Named with AllowLocal, it is
// added. A github entry whose URL $SKILLSTORE_GITHUB_URL makes file:// is
// the user's setting and is taken.
func TestMarketplaceRefusesLocalEntries(t *testing.T) {
	private, _, _ := upstreamRepo(t)
	ghBase := t.TempDir()
	gh, _, _ := upstreamRepo(t)
	gitRun(t, ghBase, "clone", "-q", "--bare", gh, filepath.Join(ghBase, "acme", "tools.git"))
	t.Setenv(GitHubURLEnv, "file://"+ghBase)
	market := t.TempDir()
	writeFile(t, filepath.Join(market, "plugins", "own", "skills", "own", "SKILL.md"), skillMD("own"))
	writeMarket(t, market, "",
		`{"name": "own", "source": "./plugins/own"}`,
		fmt.Sprintf(`{"name": "private", "source": {"source": "url", "url": "file://%s"}}`, private),
		fmt.Sprintf(`{"name": "sub", "source": {"source": "git-subdir", "url": "file://%s", "path": "skills"}}`, private),
		`{"name": "gh", "source": {"source": "github", "repo": "acme/tools"}}`)
	src, err := ParseSource(market, "")
	if err != nil {
		t.Fatal(err)
	}
	s := newSyncStore(t)
	ctx := context.Background()
	rep, err := Add(ctx, s, src, AddPluginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	added, refused := map[string]bool{}, map[string]string{}
	for _, p := range rep.Plugins {
		if p.Error != "" {
			refused[p.Plugin] = p.Error
		} else {
			added[p.Plugin] = true
		}
	}
	if !added["own"] || !added["gh"] || len(added) != 2 {
		t.Errorf("added %v, want own and gh", added)
	}
	for _, name := range []string{"private", "sub"} {
		if msg := refused[name]; !strings.Contains(msg, "names a source on this machine") || !strings.Contains(msg, "--allow-local "+private) {
			t.Errorf("entry %s: %q, want refused as a local source with --allow-local", name, msg)
		}
	}
	err = s.View(ctx, func(r *Reader) error {
		if _, err := GetPlugin(r, "private"); err == nil {
			t.Error("the refused entry was recorded")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err = Add(ctx, s, src, AddPluginOptions{AllowLocal: []string{filepath.Dir(private)}})
	if err != nil || rep.Failed() {
		t.Fatalf("with AllowLocal: %+v %v", rep, err)
	}
}
