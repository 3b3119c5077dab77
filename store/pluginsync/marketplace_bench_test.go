package pluginsync

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
)

// BenchmarkAddMarketplace adds the miniature directory of
// TestAddDirectoryMarketplace (73 entries, 39 local repositories with the marketplace, 55
// plugins added) to an empty store, beside its reference: a shell loop of
// `git fetch` (C git) of the marketplace and every repository its entries
// name into one bare repository, the least a script following the
// marketplace by hand would do. Both fetch over file://; neither waits on a
// network, so the figure is skillstore's own cost per plugin.
func BenchmarkAddMarketplace(b *testing.B) {
	d := buildDirectory(b)
	src, err := plugins.ParseSource(d.market, "")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var ours, ref time.Duration
	for i := 0; i < b.N; i++ {
		s := storetest.NewStore(b)
		start := time.Now()
		rep, err := Add(ctx, s, src, AddOptions{AllowLocal: []string{filepath.Dir(d.market)}})
		ours += time.Since(start)
		if err != nil || len(rep.Plugins) != len(d.added)+len(d.failed) {
			b.Fatalf("add: %v (%d plugins)", err, len(rep.Plugins))
		}
		bare := b.TempDir()
		storetest.Git(b, bare, "init", "-q", "--bare")
		start = time.Now()
		for j, repo := range append([]string{d.market}, d.repos...) {
			storetest.Git(b, bare, "fetch", "-q", "file://"+repo, fmt.Sprintf("+HEAD:refs/r/%d", j))
		}
		ref += time.Since(start)
	}
	storetest.BenchReport(b, ours, ref)
}

// buildOfficialShape builds a marketplace with the official directory's
// shape: 150 url entries, 83 git-subdir entries (monorepos of 10 plugins)
// and 53 relative ones, every third plugin without skills (commands only),
// all reachable. It returns the marketplace, every repository, and how
// many plugins hold skills.
func buildOfficialShape(tb testing.TB) (market string, repos []string, withSkills int) {
	tb.Helper()
	root := tb.TempDir()
	var entries []string
	plugin := func(files map[string]string, prefix, name string, n int) {
		if n%3 == 2 {
			files[prefix+"commands/"+name+".md"] = "a command\n"
			return
		}
		files[prefix+"skills/"+name+"/SKILL.md"] = storetest.SkillMD(name)
		withSkills++
	}
	for i := range 150 {
		name := fmt.Sprintf("url-%03d", i)
		dir := filepath.Join(root, name)
		files := map[string]string{".claude-plugin/plugin.json": fmt.Sprintf(`{"name": %q}`, name)}
		plugin(files, "", name, i)
		for p, c := range files {
			storetest.WriteFile(tb, filepath.Join(dir, filepath.FromSlash(p)), c)
		}
		storetest.GitCommitAll(tb, dir, "first")
		repos = append(repos, dir)
		entries = append(entries, fmt.Sprintf(`{"name": %q, "source": {"source": "url", "url": "file://%s"}}`, name, dir))
	}
	for m := 0; m*10 < 83; m++ {
		dir := filepath.Join(root, fmt.Sprintf("mono-%d", m))
		files := map[string]string{}
		for p := m * 10; p < min(83, m*10+10); p++ {
			name := fmt.Sprintf("sub-%03d", p)
			files["plugins/"+name+"/.claude-plugin/plugin.json"] = fmt.Sprintf(`{"name": %q}`, name)
			plugin(files, "plugins/"+name+"/", name, p)
			entries = append(entries, fmt.Sprintf(`{"name": %q, "source": {"source": "git-subdir", "url": "file://%s", "path": "plugins/%s"}}`, name, dir, name))
		}
		for p, c := range files {
			storetest.WriteFile(tb, filepath.Join(dir, filepath.FromSlash(p)), c)
		}
		storetest.GitCommitAll(tb, dir, "first")
		repos = append(repos, dir)
	}
	market = filepath.Join(root, "market")
	files := map[string]string{}
	for i := range 53 {
		name := fmt.Sprintf("rel-%03d", i)
		files["plugins/"+name+"/.claude-plugin/plugin.json"] = fmt.Sprintf(`{"name": %q}`, name)
		plugin(files, "plugins/"+name+"/", name, i)
		entries = append(entries, fmt.Sprintf(`{"name": %q, "source": "./plugins/%s"}`, name, name))
	}
	files[".claude-plugin/marketplace.json"] = "{\"name\": \"shape\", \"plugins\": [\n" + strings.Join(entries, ",\n") + "\n]}\n"
	for p, c := range files {
		storetest.WriteFile(tb, filepath.Join(market, filepath.FromSlash(p)), c)
	}
	storetest.GitCommitAll(tb, market, "first")
	return market, repos, withSkills
}

// BenchmarkAddDirectory286 adds a marketplace of the official directory's
// shape (286 entries, 160 repositories) in one command, beside the same
// shell loop of `git fetch` as BenchmarkAddMarketplace.
func BenchmarkAddDirectory286(b *testing.B) {
	market, repos, withSkills := buildOfficialShape(b)
	src, err := plugins.ParseSource(market, "")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var ours, ref time.Duration
	for i := 0; i < b.N; i++ {
		s := storetest.NewStore(b)
		start := time.Now()
		rep, err := Add(ctx, s, src, AddOptions{AllowLocal: []string{filepath.Dir(market)}})
		ours += time.Since(start)
		if err != nil || rep.Failed() || len(rep.Plugins)+len(rep.Skipped) != 286 || len(rep.Plugins) < withSkills {
			b.Fatalf("add: %v: %d added, %d skipped, want %d with skills among 286", err, len(rep.Plugins), len(rep.Skipped), withSkills)
		}
		bare := b.TempDir()
		storetest.Git(b, bare, "init", "-q", "--bare")
		start = time.Now()
		for j, repo := range append([]string{market}, repos...) {
			storetest.Git(b, bare, "fetch", "-q", "file://"+repo, fmt.Sprintf("+HEAD:refs/r/%d", j))
		}
		ref += time.Since(start)
	}
	storetest.BenchReport(b, ours, ref)
}
