package target

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
	"github.com/skillstore/skillstore/store/tags"
)

func agentNames(r Reach) []string {
	var out []string
	for _, a := range r.Agents {
		out = append(out, a.Name)
	}
	return out
}

// A target reaches the agents that read its folder: a home's folder by
// the user folders, a project's by the project folders (recorded project,
// or a folder that ends like one), a marketplace or another folder none.
func TestReach(t *testing.T) {
	home := filepath.Join(string(filepath.Separator)+"h", "alice")
	cases := []struct {
		t      Target
		scope  string
		agents []string
	}{
		{Target{Name: "claude", Dir: filepath.Join(home, ".claude", "skills")}, "user", []string{"claude", "cursor", "copilot", "opencode"}},
		{Target{Name: "x", Dir: filepath.Join(home, ".agents", "skills")}, "user", []string{"codex", "copilot", "gemini", "opencode"}},
		{Target{Name: "x", Dir: filepath.Join(home, ".codex", "skills")}, "user", []string{"codex", "cursor"}},
		{Target{Name: "p", Dir: filepath.Join(home, "app", ".github", "skills"), Project: filepath.Join(home, "app")}, "project", []string{"copilot"}},
		{Target{Name: "p", Dir: filepath.Join(home, "app", ".agents", "skills")}, "project", []string{"codex", "cursor", "copilot", "gemini", "opencode"}},
		{Target{Name: "claude", Dir: filepath.Join(home, "elsewhere")}, "", nil},
		{Target{Name: "mkt", Dir: filepath.Join(home, ".claude", "skills"), Kind: KindClaudeMarketplace}, "", nil},
	}
	for _, c := range cases {
		r := c.t.Reach(home)
		if r.Scope != c.scope || !reflect.DeepEqual(agentNames(r), c.agents) {
			t.Errorf("%s: scope %q agents %v, want %q %v", c.t.Dir, r.Scope, agentNames(r), c.scope, c.agents)
		}
	}
}

// Two targets of one scope that an agent both reads warn only about the
// skills both hold; targets of two projects never meet.
func TestDoubleLoads(t *testing.T) {
	home := filepath.Join(string(filepath.Separator)+"h", "alice")
	claude := Target{Name: "claude", Dir: filepath.Join(home, ".claude", "skills")}
	agents := Target{Name: "agents", Dir: filepath.Join(home, ".agents", "skills"), Except: []string{"lint"}}
	published := []string{"deploy", "lint"}
	got := DoubleLoads([]Target{claude, agents}, home, published)
	var lines []string
	for _, d := range got {
		lines = append(lines, d.Agent+":"+strings.Join(d.Targets, ",")+":"+strings.Join(d.Skills, ","))
	}
	if want := []string{"copilot:claude,agents:deploy", "opencode:claude,agents:deploy"}; !reflect.DeepEqual(lines, want) {
		t.Errorf("double loads %q, want %q", lines, want)
	}
	agents.Except = []string{"deploy", "lint"}
	if got := DoubleLoads([]Target{claude, agents}, home, published); len(got) != 0 {
		t.Errorf("disjoint targets: %+v", got)
	}
	a := Target{Name: "a", Dir: filepath.Join(home, "a", ".claude", "skills"), Project: filepath.Join(home, "a")}
	b := Target{Name: "b", Dir: filepath.Join(home, "b", ".agents", "skills"), Project: filepath.Join(home, "b")}
	if got := DoubleLoads([]Target{a, b}, home, published); len(got) != 0 {
		t.Errorf("two projects: %+v", got)
	}
}

// Export measures a target's list before writing: over its max budget the
// target is refused whole (nothing written, an *OverBudgetError naming the
// agent), the other targets are written; a tag selecting fewer makes it
// fit.
func TestExportMaxBudget(t *testing.T) {
	noGitIdentity(t)
	ctx := context.Background()
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	s, err := store.Init(ctx, filepath.Join(tmp, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var srcs []string
	for _, n := range []string{"alpha", "beta", "gamma"} {
		src := filepath.Join(tmp, "src", n)
		writeSkill(t, src, "Body.\n")
		srcs = append(srcs, src)
	}
	if _, err := s.Add(ctx, srcs, store.AddOptions{AllowRisk: safety.DefaultAllowedRisk}); err != nil {
		t.Fatal(err)
	}
	claude := filepath.Join(home, ".claude", "skills")
	other := filepath.Join(tmp, "other")
	for _, tg := range []Target{{Name: "claude", Dir: claude, MaxBudget: "40"}, {Name: "other", Dir: other}} {
		if err := Add(ctx, s, tg); err != nil {
			t.Fatal(err)
		}
	}
	targets, err := List(ctx, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	// "alpha" + "A test skill." is 18 characters, "beta" 17, "gamma" 18.
	out, err := Export(ctx, s, targets, Options{Home: home})
	var over *OverBudgetError
	if !errors.As(err, &over) || over.Target != "claude" || over.Chars != 53 || over.Max != 40 || over.Agent != "Claude Code" {
		t.Fatalf("Export: %v (%+v)", err, over)
	}
	if _, err := os.Stat(claude); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused target was written: %v", err)
	}
	if len(out) != 2 || len(out[1].Results) != 3 || len(out[0].Listing) != 1 || out[0].Listing[0].Chars != 53 {
		t.Errorf("export results %+v", out)
	}
	if _, err := tags.Add(ctx, s, "two", []string{"alpha", "beta"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Set(ctx, s, "claude", func(t *Target) { t.Skills = []string{"@two"} }); err != nil {
		t.Fatal(err)
	}
	targets, _ = List(ctx, s, []string{"claude"})
	if out, err := Export(ctx, s, targets, Options{Home: home}); err != nil || len(out[0].Results) != 2 || out[0].Listing[0].Chars != 35 {
		t.Fatalf("Export of two skills: %+v, %v", out, err)
	}
	// The command's --max-budget replaces the target's own.
	if _, err := Export(ctx, s, targets, Options{Home: home, MaxBudget: "30"}); !errors.As(err, &over) || over.Max != 30 || over.Setting != "--max-budget" {
		t.Errorf("Export with --max-budget 30: %v", err)
	}
}
