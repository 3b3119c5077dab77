package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// claudeSkip is the skip message of the tests that need Claude Code's CLI.
const claudeSkip = "the claude CLI is not on PATH: run 'make e2e-claude' (it installs @anthropic-ai/claude-code with npm into a cache folder and runs this test)"

// claudeCLI runs the real `claude` CLI with HOME and CLAUDE_CONFIG_DIR in
// home, so the user's configuration is never read or written, with
// telemetry and every non-essential request off and no credentials in
// its environment: the plugin commands it runs need no login.
type claudeCLI struct {
	t    *testing.T
	bin  string
	home string
	dir  string
}

func newClaudeCLI(t *testing.T) *claudeCLI {
	t.Helper()
	bin, err := exec.LookPath("claude")
	if err != nil {
		t.Skip(claudeSkip)
	}
	home := t.TempDir()
	return &claudeCLI{t: t, bin: bin, home: home, dir: home}
}

func (c *claudeCLI) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "CLAUDE_") || k == "HOME" || k == "XDG_CONFIG_HOME" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+c.home, "CLAUDE_CONFIG_DIR="+filepath.Join(c.home, ".claude"),
		"XDG_CONFIG_HOME="+filepath.Join(c.home, ".config"), "DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
}

// run runs claude with args and returns its output and whether it exited 0.
func (c *claudeCLI) run(args ...string) (string, bool) {
	c.t.Helper()
	cmd := exec.Command(c.bin, args...)
	cmd.Env, cmd.Dir, cmd.Stdin = c.env(), c.dir, strings.NewReader("")
	out, err := cmd.CombinedOutput()
	c.t.Logf("$ claude %s\n%s", strings.Join(args, " "), out)
	return string(out), err == nil
}

// must runs claude and fails the test unless it exits 0 and prints want.
func (c *claudeCLI) must(want string, args ...string) string {
	c.t.Helper()
	out, ok := c.run(args...)
	if !ok || !strings.Contains(out, want) {
		c.t.Fatalf("claude %s: exit ok=%v, want %q in its output:\n%s", strings.Join(args, " "), ok, want, out)
	}
	return out
}

// skillstore runs the CLI in-process against the store in $SKILLSTORE_DIR.
func skillstore(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut strings.Builder
	if code := run(append([]string{"skillstore"}, args...), strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("skillstore %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errOut.String())
	}
	return out.String()
}

// TestClaudeCodeValidatesExport exports a superpowers-shaped plugin (skills
// naming each other as superpowers:NAME, a hook, a command, an agent) and
// the managed skills as a local marketplace, and has the real Claude Code
// CLI validate it, add it, install both plugins and list their parts; then
// a SKILL.md edit is exported (hot) and reaches the installed plugin
// through Claude Code's own marketplace update and plugin update.
func TestClaudeCodeValidatesExport(t *testing.T) {
	cc := newClaudeCLI(t)
	out, _ := cc.run("--version")
	t.Logf("Claude Code %s", strings.TrimSpace(out))

	tmp := t.TempDir()
	t.Setenv("SKILLSTORE_DIR", filepath.Join(tmp, "store"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(tmp, "gitconfig"))
	up := filepath.Join(tmp, "superpowers")
	copyTree(t, filepath.Join("..", "..", "testdata", "marketplace", "superpowers"), up)
	skillstore(t, "init")
	skillstore(t, "plugin", "add", up)
	publishPartsIfMissing(t, filepath.Join(tmp, "store"), "superpowers", up)
	writeFile(t, filepath.Join(tmp, "src", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Use when deploying - runs the deploy script.\n---\nRun the deploy script.\n")
	skillstore(t, "add", filepath.Join(tmp, "src", "deploy"))
	mkt := filepath.Join(tmp, "marketplace")
	skillstore(t, "target", "add", "cc", mkt, "--kind", "claude-marketplace", "--managed-plugin", "my-skills")
	out = skillstore(t, "export", "cc")
	if !strings.Contains(out, "superpowers") || !strings.Contains(out, "my-skills") {
		t.Fatalf("export:\n%s", out)
	}

	cc.must("Validation passed", "plugin", "validate", mkt)
	validated := cc.must("Validation passed", "plugin", "validate", filepath.Join(mkt, "plugins", "superpowers"))
	// Newer releases list what a plugin provides, by qualified name.
	if strings.Contains(validated, "Provides:") {
		for _, want := range []string{"skills: superpowers:writing-plans", "commands: superpowers:brainstorm", "agents: superpowers:plan-reviewer", "hooks: SessionStart"} {
			if !strings.Contains(validated, want) {
				t.Errorf("validate does not list %q", want)
			}
		}
	}
	cc.must("Validation passed", "plugin", "validate", filepath.Join(mkt, "plugins", "my-skills"))
	cc.must("skillstore", "plugin", "marketplace", "add", mkt)
	cc.must("superpowers@skillstore", "plugin", "install", "superpowers@skillstore")
	cc.must("my-skills@skillstore", "plugin", "install", "my-skills@skillstore")
	list := cc.must("superpowers@skillstore", "plugin", "list")
	if !strings.Contains(list, "4.1.0+skillstore.") {
		t.Errorf("plugin list does not show the exported version:\n%s", list)
	}
	details := cc.must("Component inventory", "plugin", "details", "superpowers@skillstore")
	for _, want := range []string{"brainstorming", "writing-plans", "executing-plans", "plan-reviewer", "SessionStart"} {
		if !strings.Contains(details, want) {
			t.Errorf("plugin details lacks %q", want)
		}
	}
	cc.must("deploy", "plugin", "details", "my-skills@skillstore")
	installed := installPath(t, cc, "superpowers@skillstore")
	for _, f := range []string{"hooks/hooks.json", "hooks/session-start.sh", "commands/brainstorm.md", "agents/plan-reviewer.md", "skills/writing-plans/SKILL.md"} {
		if _, err := os.Stat(filepath.Join(installed, f)); err != nil {
			t.Errorf("installed plugin lacks %s: %v", f, err)
		}
	}

	// The user's edit of a plugin skill: a hot change for export, and a new
	// version for Claude Code's update.
	edit := filepath.Join(tmp, "edit", "writing-plans")
	copyTree(t, filepath.Join(up, "skills", "writing-plans"), edit)
	md, _ := os.ReadFile(filepath.Join(edit, "SKILL.md"))
	writeFile(t, filepath.Join(edit, "SKILL.md"), string(md)+"\nName the check of every step.\n")
	skillstore(t, "add", "--as", "superpowers:writing-plans", edit)
	out = skillstore(t, "export", "cc")
	if !strings.Contains(out, "superpowers") || !strings.Contains(out, "hot") {
		t.Errorf("export after a SKILL.md edit is not hot:\n%s", out)
	}
	cc.must("skillstore", "plugin", "marketplace", "update", "skillstore")
	cc.must("updated from", "plugin", "update", "superpowers@skillstore")
	got, err := os.ReadFile(filepath.Join(installPath(t, cc, "superpowers@skillstore"), "skills", "writing-plans", "SKILL.md"))
	if err != nil || !strings.Contains(string(got), "Name the check of every step.") {
		t.Errorf("the updated plugin lacks the edit: %v\n%s", err, got)
	}

	// The names skillstore refuses are names Claude Code refuses.
	reserved := filepath.Join(tmp, "reserved")
	writeFile(t, filepath.Join(reserved, ".claude-plugin", "marketplace.json"), `{"name":"claude-plugins-official","owner":{"name":"x"},"plugins":[]}`)
	if out, ok := cc.run("plugin", "marketplace", "add", reserved); ok || !strings.Contains(out, "reserved") {
		t.Errorf("Claude Code accepted a reserved marketplace name:\n%s", out)
	}
	var errOut strings.Builder
	if code := run([]string{"skillstore", "target", "add", "bad", filepath.Join(tmp, "bad"), "--kind", "claude-marketplace", "--marketplace", "claude-plugins-official"}, strings.NewReader(""), io.Discard, &errOut); code == 0 {
		t.Errorf("skillstore accepted a reserved marketplace name")
	}
}

// installPath is where Claude Code installed plugin (its
// installed_plugins.json).
func installPath(t *testing.T, cc *claudeCLI, plugin string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(cc.home, ".claude", "plugins", "installed_plugins.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Plugins map[string][]struct {
			InstallPath string `json:"installPath"`
		} `json:"plugins"`
	}
	if err := json.Unmarshal(data, &f); err != nil || len(f.Plugins[plugin]) == 0 {
		t.Fatalf("installed_plugins.json has no %s: %v\n%s", plugin, err, data)
	}
	return f.Plugins[plugin][0].InstallPath
}

// publishPartsIfMissing records the plugin's parts (manifest, hooks/,
// commands/, agents/) as the unit PLUGIN:_plugin, with the real git CLI,
// when the store did not snapshot them itself.
func publishPartsIfMissing(t *testing.T, storeDir, plugin, src string) {
	t.Helper()
	ref := "refs/heads/plugins/" + plugin + "/_plugin"
	if exec.Command("git", "-C", storeDir, "rev-parse", "--verify", "-q", ref).Run() == nil {
		return
	}
	work := t.TempDir()
	copyTree(t, src, work)
	os.RemoveAll(filepath.Join(work, "skills"))
	for _, args := range [][]string{
		{"init", "-q"}, {"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "parts of " + plugin + "\n\nSkill-Version: 1"},
		{"push", "-q", storeDir, "HEAD:" + ref},
	} {
		if out, err := exec.Command("git", append([]string{"-C", work}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies a fixture folder, keeping execute bits.
func copyTree(t *testing.T, src, dst string) {
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
