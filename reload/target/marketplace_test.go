package target

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/pluginsync"
	"github.com/skillstore/skillstore/store/safety"
)

// fixturePlugin is the superpowers-shaped plugin the marketplace tests
// export (three skills that name each other, a hook, a command, an agent).
var fixturePlugin = filepath.Join("..", "..", "testdata", "marketplace", "superpowers")

// copyDir copies a fixture folder, keeping execute bits.
func copyDir(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// gitRun runs the real git CLI in dir.
func gitRun(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// PublishParts records version n of plugin's parts unit (PLUGIN:_plugin)
// from the folder src, with the real git CLI: a commit whose tree is the
// folder and whose trailer numbers the version, on the parts ref. It
// stands in for the parts snapshot sync takes, so that export can be
// tested on the unit's shape alone.
func PublishParts(t testing.TB, s *store.Store, plugin, src string, n int) {
	t.Helper()
	work := t.TempDir()
	copyDir(t, src, work)
	os.RemoveAll(filepath.Join(work, "skills"))
	gitRun(t, work, "init", "-q")
	gitRun(t, work, "add", "-A")
	gitRun(t, work, "commit", "-q", "-m", "parts of "+plugin+"\n\nSkill-Version: "+string(rune('0'+n)))
	gitRun(t, work, "push", "-q", "-f", s.Dir(), "HEAD:"+store.SkillRef(store.QualifiedName(plugin, store.PluginPartsName)))
}

// marketplaceStore is a store holding the fixture plugin, its parts unit
// and a managed skill, and a claude-marketplace target for it.
func marketplaceStore(t *testing.T) (*store.Store, Target, string) {
	t.Helper()
	ctx := context.Background()
	tmp := t.TempDir()
	s, err := store.Init(ctx, filepath.Join(tmp, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	up := filepath.Join(tmp, "upstream")
	copyDir(t, fixturePlugin, up)
	src, err := plugins.ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pluginsync.Add(ctx, s, src, pluginsync.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	PublishParts(t, s, "superpowers", up, 1)
	writeSkill(t, filepath.Join(tmp, "src", "deploy"), "Run the deploy script.\n")
	if _, err := s.Add(ctx, []string{filepath.Join(tmp, "src", "deploy")}, store.AddOptions{AllowRisk: safety.DefaultAllowedRisk}); err != nil {
		t.Fatal(err)
	}
	tg := Target{Name: "cc", Dir: filepath.Join(tmp, "mkt"), Kind: KindClaudeMarketplace}
	if err := Add(ctx, s, tg); err != nil {
		t.Fatal(err)
	}
	return s, tg, tmp
}

func results(t *testing.T, out []Exported) map[string]reload.Result {
	t.Helper()
	if len(out) != 1 {
		t.Fatalf("Export = %+v", out)
	}
	m := map[string]reload.Result{}
	for _, r := range out[0].Results {
		m[r.Skill] = r
	}
	return m
}

type catalogJSON struct {
	Name    string `json:"name"`
	Plugins []struct {
		Name, Source, Version, Description string
	} `json:"plugins"`
}

func readCatalog(t *testing.T, dir string) catalogJSON {
	t.Helper()
	return readCatalogOf(t, dir, &flavors[0])
}

func readCatalogOf(t *testing.T, dir string, fl *flavor) catalogJSON {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(fl.catalog)))
	if err != nil {
		t.Fatal(err)
	}
	var c catalogJSON
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestMarketplaceExport exports a plugin with its parts as a Claude Code
// marketplace, then re-exports after nothing changed, after a SKILL.md
// edit (hot, although the manifest's version moves with it) and after a
// hook change (cold).
func TestMarketplaceExport(t *testing.T) {
	ctx := context.Background()
	s, tg, tmp := marketplaceStore(t)
	out, err := Export(ctx, s, []Target{tg}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := results(t, out)
	const catalog = ".claude-plugin/marketplace.json"
	if res["superpowers"].Action != reload.ActionCold || res[catalog].Action != reload.ActionCold {
		t.Fatalf("first export: %+v", res)
	}
	if _, ok := res["deploy"]; ok {
		t.Errorf("a managed skill was exported without --managed-plugin: %+v", res)
	}
	pdir := filepath.Join(tg.Dir, "plugins", "superpowers")
	for _, f := range []string{"skills/writing-plans/SKILL.md", "skills/executing-plans/checklist.md", "hooks/hooks.json", "commands/brainstorm.md", "agents/plan-reviewer.md"} {
		if _, err := os.Stat(filepath.Join(pdir, f)); err != nil {
			t.Errorf("exported plugin lacks %s: %v", f, err)
		}
	}
	if info, err := os.Stat(filepath.Join(pdir, "hooks", "session-start.sh")); err != nil || info.Mode()&0o100 == 0 {
		t.Errorf("hook script lost its execute bit: %v %v", info, err)
	}
	var manifest map[string]any
	data, _ := os.ReadFile(filepath.Join(pdir, ".claude-plugin", "plugin.json"))
	cat := readCatalog(t, tg.Dir)
	versionRE := regexp.MustCompile(`^4\.1\.0\+skillstore\.[0-9a-f]{8}$`)
	if cat.Name != DefaultMarketplace || len(cat.Plugins) != 1 || cat.Plugins[0].Source != "./plugins/superpowers" || !versionRE.MatchString(cat.Plugins[0].Version) {
		t.Fatalf("catalog = %+v", cat)
	}
	if err := json.Unmarshal(data, &manifest); err != nil || manifest["name"] != "superpowers" || manifest["version"] != cat.Plugins[0].Version || manifest["license"] != "MIT" {
		t.Errorf("plugin.json = %s (%v)", data, err)
	}
	v1 := cat.Plugins[0].Version

	// Nothing changed: nothing is written, the catalog included.
	out, err = Export(ctx, s, []Target{tg}, Options{})
	res = results(t, out)
	if err != nil || res["superpowers"].Action != reload.ActionUnchanged || res[catalog].Action != reload.ActionUnchanged {
		t.Fatalf("re-export: %+v, %v", res, err)
	}

	// Only a skill's SKILL.md text changed: hot; the entry's version moves.
	edit := filepath.Join(tmp, "edit", "writing-plans")
	copyDir(t, filepath.Join(fixturePlugin, "skills", "writing-plans"), edit)
	md := filepath.Join(edit, "SKILL.md")
	body, _ := os.ReadFile(md)
	os.WriteFile(md, append(body, []byte("\nAlways name the check of each step.\n")...), 0o644)
	if _, err := s.Add(ctx, []string{edit}, store.AddOptions{AllowRisk: safety.DefaultAllowedRisk, As: "superpowers:writing-plans"}); err != nil {
		t.Fatal(err)
	}
	out, err = Export(ctx, s, []Target{tg}, Options{})
	res = results(t, out)
	if err != nil || res["superpowers"].Action != reload.ActionHot || strings.Join(res["superpowers"].Paths, ",") != ".claude-plugin/plugin.json,skills/writing-plans/SKILL.md" || res[catalog].Action != reload.ActionCold {
		t.Fatalf("after a SKILL.md edit: %+v, %v", res, err)
	}
	if got, _ := os.ReadFile(filepath.Join(pdir, "skills", "writing-plans", "SKILL.md")); !strings.Contains(string(got), "Always name the check") {
		t.Errorf("the user's edit is not exported: %s", got)
	}
	if v2 := readCatalog(t, tg.Dir).Plugins[0].Version; v2 == v1 || !versionRE.MatchString(v2) {
		t.Errorf("version after an edit: %s (was %s)", v2, v1)
	}

	// A hook changed upstream (a new parts version): cold.
	up := filepath.Join(tmp, "upstream")
	os.WriteFile(filepath.Join(up, "hooks", "session-start.sh"), []byte("#!/bin/sh\necho changed\n"), 0o755)
	PublishParts(t, s, "superpowers", up, 2)
	out, err = Export(ctx, s, []Target{tg}, Options{})
	res = results(t, out)
	if err != nil || res["superpowers"].Action != reload.ActionCold || strings.Join(res["superpowers"].Paths, ",") != ".claude-plugin/plugin.json,hooks/session-start.sh" {
		t.Fatalf("after a hook change: %+v, %v", res, err)
	}

	// The manifest alone changed (not just its version): cold.
	os.WriteFile(filepath.Join(up, ".claude-plugin", "plugin.json"), []byte(`{"name": "superpowers", "version": "4.1.0", "description": "Reworded"}`), 0o644)
	PublishParts(t, s, "superpowers", up, 3)
	out, err = Export(ctx, s, []Target{tg}, Options{})
	res = results(t, out)
	if err != nil || res["superpowers"].Action != reload.ActionCold || strings.Join(res["superpowers"].Paths, ",") != ".claude-plugin/plugin.json" {
		t.Fatalf("after a manifest change: %+v, %v", res, err)
	}
}

// TestMarketplaceLeavesForeignAlone: a plugin folder or a catalog export
// did not write is never overwritten, and the catalog lists only folders
// export wrote.
func TestMarketplaceLeavesForeignAlone(t *testing.T) {
	ctx := context.Background()
	s, tg, _ := marketplaceStore(t)
	foreign := filepath.Join(tg.Dir, "plugins", "superpowers", "README.md")
	os.MkdirAll(filepath.Dir(foreign), 0o755)
	os.WriteFile(foreign, []byte("mine\n"), 0o644)
	out, err := Export(ctx, s, []Target{tg}, Options{})
	res := results(t, out)
	if err != nil || res["superpowers"].Action != reload.ActionForeign {
		t.Fatalf("foreign plugin folder: %+v, %v", res, err)
	}
	if got := readCatalog(t, tg.Dir); len(got.Plugins) != 0 {
		t.Errorf("the catalog lists a folder export did not write: %+v", got)
	}
	if data, _ := os.ReadFile(foreign); string(data) != "mine\n" {
		t.Errorf("foreign folder changed: %q", data)
	}

	// A catalog someone else wrote is left alone.
	_, tg2, _ := marketplaceStore(t)
	cat := filepath.Join(tg2.Dir, ".claude-plugin", "marketplace.json")
	os.MkdirAll(filepath.Dir(cat), 0o755)
	os.WriteFile(cat, []byte(`{"name":"theirs","owner":{"name":"x"},"plugins":[]}`), 0o644)
	out, _ = Export(ctx, s, []Target{tg2}, Options{})
	if r := results(t, out)[".claude-plugin/marketplace.json"]; r.Action != reload.ActionForeign {
		t.Errorf("foreign catalog: %+v", r)
	}
	if data, _ := os.ReadFile(cat); !strings.Contains(string(data), "theirs") {
		t.Errorf("foreign catalog overwritten: %s", data)
	}
}

// TestMarketplaceCatalogCrash: an export that wrote the catalog but died
// before recording it adopts the catalog on the next run; a catalog edited
// after export wrote it is reported and left alone.
func TestMarketplaceCatalogCrash(t *testing.T) {
	ctx := context.Background()
	s, tg, _ := marketplaceStore(t)
	if _, err := Export(ctx, s, []Target{tg}, Options{}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(tg.Dir, ".skillstore", catalogRecord))
	out, err := Export(ctx, s, []Target{tg}, Options{})
	if r := results(t, out)[".claude-plugin/marketplace.json"]; err != nil || r.Action != reload.ActionUnchanged {
		t.Fatalf("after a crash before the record: %+v, %v", r, err)
	}
	cat := filepath.Join(tg.Dir, ".claude-plugin", "marketplace.json")
	data, _ := os.ReadFile(cat)
	os.WriteFile(cat, append(data, ' '), 0o644)
	// A new version makes export want to rewrite the catalog.
	PublishParts(t, s, "superpowers", fixturePlugin, 2)
	out, _ = Export(ctx, s, []Target{tg}, Options{})
	if r := results(t, out)[".claude-plugin/marketplace.json"]; r.Action != reload.ActionLocallyModified {
		t.Errorf("edited catalog: %+v", r)
	}
}

// TestMarketplaceManagedPluginAndNames: managed skills travel as a plugin
// of their own when asked; reserved catalog names are refused.
func TestMarketplaceManagedPluginAndNames(t *testing.T) {
	ctx := context.Background()
	s, _, tmp := marketplaceStore(t)
	tg := Target{Name: "mine", Dir: filepath.Join(tmp, "mine"), Kind: KindClaudeMarketplace, Marketplace: "my-skills", ManagedPlugin: "my-skills"}
	if err := Add(ctx, s, tg); err != nil {
		t.Fatal(err)
	}
	out, err := Export(ctx, s, []Target{tg}, Options{})
	if r := results(t, out)["my-skills"]; err != nil || r.Action != reload.ActionCold {
		t.Fatalf("managed plugin: %+v, %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(tg.Dir, "plugins", "my-skills", "skills", "deploy", "SKILL.md")); err != nil {
		t.Error(err)
	}
	if got := readCatalog(t, tg.Dir); got.Name != "my-skills" || len(got.Plugins) != 2 {
		t.Errorf("catalog = %+v", got)
	}
	clash := Target{Name: "clash", Dir: filepath.Join(tmp, "clash"), Kind: KindClaudeMarketplace, ManagedPlugin: "superpowers"}
	if err := Add(ctx, s, clash); err != nil {
		t.Fatal(err)
	}
	if _, err := Export(ctx, s, []Target{clash}, Options{}); err == nil || !strings.Contains(err.Error(), "also a plugin") {
		t.Errorf("managed plugin named like a plugin: %v", err)
	}
	for _, name := range []string{"claude-plugins-official", "anthropic-tools", "agent-skills", "Bad_Name"} {
		err := Add(ctx, s, Target{Name: "r", Dir: filepath.Join(tmp, "r"), Kind: KindClaudeMarketplace, Marketplace: name})
		if err == nil {
			t.Errorf("marketplace name %q accepted", name)
		}
	}
	var unknown *UnknownError
	if _, err := List(ctx, s, []string{"r"}); !errors.As(err, &unknown) {
		t.Errorf("a refused target was recorded: %v", err)
	}
}

// TestMarketplaceManifestNameMismatch: a manifest naming another plugin
// than the store's id fails that plugin, naming both, and writes nothing;
// a folder an earlier export wrote stays, and so does its catalog entry.
func TestMarketplaceManifestNameMismatch(t *testing.T) {
	ctx := context.Background()
	s, tg, tmp := marketplaceStore(t)
	other := Target{Name: "other", Dir: filepath.Join(tmp, "other"), Kind: KindClaudeMarketplace}
	if _, err := Export(ctx, s, []Target{other}, Options{}); err != nil {
		t.Fatal(err)
	}
	parts := filepath.Join(tmp, "parts")
	copyDir(t, fixturePlugin, parts)
	os.WriteFile(filepath.Join(parts, ".claude-plugin", "plugin.json"), []byte(`{"name":"superpowers-fork"}`), 0o644)
	PublishParts(t, s, "superpowers", parts, 2)
	out, err := Export(ctx, s, []Target{tg}, Options{})
	r := results(t, out)["superpowers"]
	if err == nil || r.Action != reload.ActionFailed || !strings.Contains(r.Error, `"superpowers"`) || !strings.Contains(r.Error, `"superpowers-fork"`) {
		t.Fatalf("mismatched manifest: %+v, %v", r, err)
	}
	if _, err := os.Stat(filepath.Join(tg.Dir, "plugins", "superpowers")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a plugin folder was written: %v", err)
	}
	out, err = Export(ctx, s, []Target{other}, Options{})
	if r := results(t, out)["superpowers"]; err == nil || r.Action != reload.ActionFailed {
		t.Fatalf("mismatched manifest over an exported plugin: %+v, %v", r, err)
	}
	if _, err := os.Stat(filepath.Join(other.Dir, "plugins", "superpowers", "hooks", "hooks.json")); err != nil {
		t.Errorf("the plugin exported earlier was removed: %v", err)
	}
	if got := readCatalog(t, other.Dir); len(got.Plugins) != 1 || got.Plugins[0].Name != "superpowers" {
		t.Errorf("the catalog lost the plugin exported earlier: %+v", got)
	}
}

// TestCodexMarketplaceExport: a codex-marketplace target holds Codex's
// catalog and manifests, the skills without Claude Code's hooks, commands
// and agents, and a manifest whose version moves with the content; a
// SKILL.md edit stays hot although that version line changes with it.
func TestCodexMarketplaceExport(t *testing.T) {
	ctx := context.Background()
	s, _, tmp := marketplaceStore(t)
	tg := Target{Name: "codex", Dir: filepath.Join(tmp, "codex"), Kind: KindCodexMarketplace}
	if err := Add(ctx, s, tg); err != nil {
		t.Fatal(err)
	}
	out, err := Export(ctx, s, []Target{tg}, Options{})
	res := results(t, out)
	const catalog = ".agents/plugins/marketplace.json"
	if err != nil || res["superpowers"].Action != reload.ActionCold || res[catalog].Action != reload.ActionCold {
		t.Fatalf("first export: %+v, %v", res, err)
	}
	var cat struct {
		Name    string
		Plugins []struct {
			Name   string
			Source struct{ Source, Path string }
			Policy struct{ Installation, Authentication string }
		}
	}
	data, _ := os.ReadFile(filepath.Join(tg.Dir, ".agents", "plugins", "marketplace.json"))
	if err := json.Unmarshal(data, &cat); err != nil || cat.Name != DefaultMarketplace || len(cat.Plugins) != 1 ||
		cat.Plugins[0].Source.Source != "local" || cat.Plugins[0].Source.Path != "./plugins/superpowers" || cat.Plugins[0].Policy.Installation != "AVAILABLE" {
		t.Fatalf("codex catalog = %s (%v)", data, err)
	}
	pdir := filepath.Join(tg.Dir, "plugins", "superpowers")
	manifest := func() map[string]any {
		var m map[string]any
		data, _ := os.ReadFile(filepath.Join(pdir, ".codex-plugin", "plugin.json"))
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := manifest()
	versionRE := regexp.MustCompile(`^4\.1\.0\+skillstore\.[0-9a-f]{8}$`)
	if m["name"] != "superpowers" || m["skills"] != "./skills/" || !versionRE.MatchString(m["version"].(string)) || m["hooks"] != nil {
		t.Errorf("codex manifest = %v", m)
	}
	for _, gone := range []string{"hooks", "commands", "agents", ".claude-plugin"} {
		if _, err := os.Stat(filepath.Join(pdir, gone)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("codex plugin holds %s: %v", gone, err)
		}
	}
	edit := filepath.Join(tmp, "edit", "brainstorming")
	copyDir(t, filepath.Join(fixturePlugin, "skills", "brainstorming"), edit)
	md := filepath.Join(edit, "SKILL.md")
	body, _ := os.ReadFile(md)
	os.WriteFile(md, append(body, []byte("\nOne question at a time.\n")...), 0o644)
	if _, err := s.Add(ctx, []string{edit}, store.AddOptions{AllowRisk: safety.DefaultAllowedRisk, As: "superpowers:brainstorming"}); err != nil {
		t.Fatal(err)
	}
	out, err = Export(ctx, s, []Target{tg}, Options{})
	res = results(t, out)
	if r := res["superpowers"]; err != nil || r.Action != reload.ActionHot || strings.Join(r.Paths, ",") != ".codex-plugin/plugin.json,skills/brainstorming/SKILL.md" {
		t.Fatalf("codex after a SKILL.md edit: %+v, %v", r, err)
	}
	if v := manifest()["version"]; v == m["version"] || !versionRE.MatchString(v.(string)) {
		t.Errorf("codex version after an edit: %v (was %v)", v, m["version"])
	}
	if res[catalog].Action != reload.ActionUnchanged {
		t.Errorf("codex catalog changed although no plugin came or went: %+v", res[catalog])
	}
}

// TestMarketplaceSkillPatterns: --skills patterns name plugin skills by
// their qualified names, and PLUGIN:_plugin stands for the other parts.
func TestMarketplaceSkillPatterns(t *testing.T) {
	ctx := context.Background()
	s, _, tmp := marketplaceStore(t)
	tg := Target{Name: "some", Dir: filepath.Join(tmp, "some"), Kind: KindClaudeMarketplace, Skills: []string{"superpowers:brainstorming"}}
	if _, err := Export(ctx, s, []Target{tg}, Options{}); err != nil {
		t.Fatal(err)
	}
	pdir := filepath.Join(tg.Dir, "plugins", "superpowers")
	entries, _ := os.ReadDir(filepath.Join(pdir, "skills"))
	if len(entries) != 1 || entries[0].Name() != "brainstorming" {
		t.Errorf("skills exported: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(pdir, "hooks")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("parts exported without superpowers:_plugin in the patterns: %v", err)
	}
	tg2 := Target{Name: "all", Dir: filepath.Join(tmp, "all"), Kind: KindClaudeMarketplace, Skills: []string{"superpowers:*"}}
	if _, err := Export(ctx, s, []Target{tg2}, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(tg2.Dir, "plugins", "superpowers", "hooks", "hooks.json")); err != nil {
		t.Errorf("superpowers:* leaves out the parts: %v", err)
	}
}

// TestMarketplaceTreeWithoutLoading: the tree id a plugin folder gets from
// blob ids alone is the id of its loaded files, so export recognises an
// unchanged plugin without reading a file of it.
func TestMarketplaceTreeWithoutLoading(t *testing.T) {
	ctx := context.Background()
	s, tg, _ := marketplaceStore(t)
	for _, kind := range []string{KindClaudeMarketplace, KindCodexMarketplace} {
		tg.Kind = kind
		eps, err := marketplacePlugins(ctx, s, tg)
		if err != nil || len(eps) != 1 {
			t.Fatalf("%s: plugins = %v, %v", kind, eps, err)
		}
		f, _, err := eps[0].folder(ctx, s, tg.flavor())
		if err != nil {
			t.Fatal(err)
		}
		files, err := f.Load()
		if err != nil {
			t.Fatal(err)
		}
		tree, err := reload.NewTree(files)
		if err != nil {
			t.Fatal(err)
		}
		if tree.ID != f.Tree || f.Tree.IsZero() {
			t.Errorf("%s: tree from blob ids %s, from loaded files %s", kind, f.Tree, tree.ID)
		}
	}
}
