package target

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/store"
)

// marketplaceExporterEnv makes the test binary a process that exports a
// marketplace target again and again, switching the plugin's parts between
// two versions before each export, until it is killed.
const marketplaceExporterEnv = "SKILLSTORE_TARGET_TEST_MARKETPLACE_EXPORTER"

func marketplaceExporter(storeDir, target string) error {
	ctx := context.Background()
	s, err := store.Open(ctx, storeDir, store.Options{})
	if err != nil {
		return err
	}
	targets, err := List(ctx, s, []string{target})
	if err != nil {
		return err
	}
	ref := store.SkillRef(store.QualifiedName("superpowers", store.PluginPartsName))
	for i := 0; ; i++ {
		version := []string{"a", "b"}[i%2]
		if out, err := exec.Command("git", "--git-dir", storeDir, "update-ref", ref, "refs/test/"+version).CombinedOutput(); err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		if _, err := Export(ctx, s, targets, Options{}); err != nil {
			return err
		}
		if i == 0 {
			fmt.Println("ready")
		}
	}
}

// TestMarketplaceSurvivesKill kills a process (kill -9) at varying moments
// while it exports a plugin whose hooks switch between two versions, and
// checks after each kill that the plugin folder holds one whole version
// (its hook script and its marker file agree), that the catalog is whole
// JSON listing only folders that exist, and that the next export
// completes without mistaking anything for a local edit: for Claude
// Code's format, and for GitHub Copilot's, into which the plugin is
// translated by the same machinery.
func TestMarketplaceSurvivesKill(t *testing.T) {
	if v := os.Getenv(marketplaceExporterEnv); v != "" {
		dir, name, _ := strings.Cut(v, "\n")
		if err := marketplaceExporter(dir, name); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if testing.Short() {
		t.Skip("kills exporting processes")
	}
	for _, kind := range []string{KindClaudeMarketplace, KindCopilotMarketplace} {
		t.Run(kind, func(t *testing.T) { survivesKill(t, kind) })
	}
}

func survivesKill(t *testing.T, kind string) {
	s, tg, tmp := marketplaceStore(t)
	if kind != tg.Kind {
		tg = Target{Name: "other", Dir: filepath.Join(tmp, "other"), Kind: kind}
		if err := Add(context.Background(), s, tg); err != nil {
			t.Fatal(err)
		}
	}
	fl := tg.flavor()
	// Two versions of the parts, as commits a and b of one repository.
	repo := filepath.Join(tmp, "parts")
	copyDir(t, fixturePlugin, repo)
	os.RemoveAll(filepath.Join(repo, "skills"))
	gitRun(t, repo, "init", "-q")
	for _, v := range []string{"a", "b"} {
		os.WriteFile(filepath.Join(repo, "hooks", "session-start.sh"), []byte("#!/bin/sh\necho "+v+"\n"), 0o755)
		os.Remove(filepath.Join(repo, "hooks", "marker-a"))
		os.Remove(filepath.Join(repo, "hooks", "marker-b"))
		os.WriteFile(filepath.Join(repo, "hooks", "marker-"+v), []byte(v+"\n"), 0o644)
		gitRun(t, repo, "add", "-A")
		gitRun(t, repo, "commit", "-q", "-m", "parts "+v+"\n\nSkill-Version: 1")
		gitRun(t, repo, "push", "-q", s.Dir(), "HEAD:refs/test/"+v)
	}
	pdir := filepath.Join(tg.Dir, "plugins", "superpowers")
	for round, delay := range []time.Duration{0, 30 * time.Millisecond, 60 * time.Millisecond, 90 * time.Millisecond, 150 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond, 450 * time.Millisecond} {
		// git's own lock, left by an update-ref the kill interrupted (it
		// stands in for sync here; it is not what this test checks).
		os.Remove(filepath.Join(s.Dir(), filepath.FromSlash(store.SkillRef(store.QualifiedName("superpowers", store.PluginPartsName)))+".lock"))
		cmd := exec.Command(os.Args[0], "-test.run=^TestMarketplaceSurvivesKill$")
		cmd.Env = append(os.Environ(), marketplaceExporterEnv+"="+s.Dir()+"\n"+tg.Name)
		// Its own process group, so the kill takes its git children too.
		ownProcessGroup(cmd)
		cmd.Stderr = os.Stderr
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if !bufio.NewScanner(stdout).Scan() {
			cmd.Wait()
			t.Fatalf("round %d: the exporter never got ready", round)
		}
		time.Sleep(delay)
		killProcessGroup(cmd)
		cmd.Wait()

		script, err := os.ReadFile(filepath.Join(pdir, "hooks", "session-start.sh"))
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		v := strings.TrimSpace(strings.TrimPrefix(string(script), "#!/bin/sh\necho "))
		other := map[string]string{"a": "b", "b": "a"}[v]
		if _, err := os.Stat(filepath.Join(pdir, "hooks", "marker-"+v)); err != nil || other == "" {
			t.Fatalf("round %d: hook script of version %q without its marker: %v", round, v, err)
		}
		if _, err := os.Stat(filepath.Join(pdir, "hooks", "marker-"+other)); err == nil {
			t.Fatalf("round %d: the plugin folder mixes versions %s and %s", round, v, other)
		}
		var cat catalogJSON
		data, err := os.ReadFile(filepath.Join(tg.Dir, filepath.FromSlash(fl.catalog)))
		if err != nil || json.Unmarshal(data, &cat) != nil {
			t.Fatalf("round %d: catalog is not whole: %v\n%s", round, err, data)
		}
		for _, p := range cat.Plugins {
			if _, err := os.Stat(filepath.Join(tg.Dir, filepath.FromSlash(p.Source), filepath.FromSlash(fl.manifest))); err != nil {
				t.Fatalf("round %d: the catalog lists %s, which is not a whole plugin: %v", round, p.Name, err)
			}
		}
		out, err := Export(context.Background(), s, []Target{tg}, Options{})
		if err != nil {
			t.Fatalf("round %d: the next export: %v", round, err)
		}
		for _, r := range out[0].Results {
			if r.Action.Skipped() {
				t.Fatalf("round %d: after the kill, export skipped %s: %+v", round, r.Skill, r)
			}
		}
		if got := readCatalogOf(t, tg.Dir, fl); len(got.Plugins) != 1 {
			t.Fatalf("round %d: catalog after the next export: %+v", round, got)
		}
	}
}
