package pluginsync

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
)

func TestCheckNamedSource(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		src     plugins.Source
		allowed []string
		ok      bool
	}{
		{plugins.Source{Kind: plugins.SourceGit, URL: "https://example.com/a.git"}, nil, true},
		{plugins.Source{Kind: plugins.SourceGit, URL: "git@example.com:a.git"}, nil, true},
		{plugins.Source{Kind: plugins.SourceGit, URL: "file:///srv/private.git"}, nil, false},
		{plugins.Source{Kind: plugins.SourceGit, URL: "/srv/private.git"}, nil, false},
		{plugins.Source{Kind: plugins.SourceFolder, URL: filepath.Join(dir, "x")}, nil, false},
		{plugins.Source{Kind: plugins.SourceGit, URL: "file:///srv/private.git"}, []string{"/srv"}, true},
		{plugins.Source{Kind: plugins.SourceGit, URL: "file:///srv/private.git"}, []string{"file:///srv/private.git"}, true},
		{plugins.Source{Kind: plugins.SourceGit, URL: "file:///srv/private.git"}, []string{"/srv/private"}, false},
		{plugins.Source{Kind: plugins.SourceGit, URL: "file:///srv/../etc/x"}, []string{"/srv"}, false},
		{plugins.Source{Kind: plugins.SourceFolder, URL: filepath.Join(dir, "x")}, []string{dir}, true},
	}
	for _, c := range cases {
		err := plugins.CheckNamedSource(c.src, c.allowed)
		if (err == nil) != c.ok || err != nil && !errors.Is(err, plugins.ErrLocalSource) {
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
	private, _, _ := storetest.UpstreamRepo(t)
	ghBase := t.TempDir()
	gh, _, _ := storetest.UpstreamRepo(t)
	storetest.Git(t, ghBase, "clone", "-q", "--bare", gh, filepath.Join(ghBase, "acme", "tools.git"))
	t.Setenv(plugins.GitHubURLEnv, "file://"+ghBase)
	market := t.TempDir()
	storetest.WriteFile(t, filepath.Join(market, "plugins", "own", "skills", "own", "SKILL.md"), storetest.SkillMD("own"))
	writeMarket(t, market, "",
		`{"name": "own", "source": "./plugins/own"}`,
		fmt.Sprintf(`{"name": "private", "source": {"source": "url", "url": "file://%s"}}`, private),
		fmt.Sprintf(`{"name": "sub", "source": {"source": "git-subdir", "url": "file://%s", "path": "skills"}}`, private),
		`{"name": "gh", "source": {"source": "github", "repo": "acme/tools"}}`)
	src, err := plugins.ParseSource(market, "")
	if err != nil {
		t.Fatal(err)
	}
	s := storetest.NewStore(t)
	ctx := context.Background()
	rep, err := Add(ctx, s, src, AddOptions{})
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
	err = s.View(ctx, func(r *store.Reader) error {
		if _, err := plugins.Get(r, "private"); err == nil {
			t.Error("the refused entry was recorded")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err = Add(ctx, s, src, AddOptions{AllowLocal: []string{filepath.Dir(private)}})
	if err != nil || rep.Failed() {
		t.Fatalf("with AllowLocal: %+v %v", rep, err)
	}
}
