package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The agents' own CLIs, each checking a marketplace target of its kind:
// GitHub Copilot's (make e2e-copilot), Gemini CLI's (make e2e-gemini) and
// Codex's (make e2e-codex). Each runs with HOME and its config folders in
// a temp folder and none of the caller's variables of that agent or its
// vendor, no login and no credentials; the only network use is npm's
// download. 'make test' runs them when the CLI is on PATH and skips them
// otherwise.

// agentCLI runs an agent's real CLI with HOME (and XDG folders) in home.
type agentCLI struct {
	t    *testing.T
	name string
	bin  string
	home string
	// drop are prefixes of the caller's variables left out.
	drop []string
	env  []string
}

func newAgentCLI(t *testing.T, name, skip string, drop []string, env ...string) *agentCLI {
	t.Helper()
	bin, err := exec.LookPath(name)
	if err != nil {
		t.Skip(skip)
	}
	home := t.TempDir()
	return &agentCLI{t: t, name: name, bin: bin, home: home, drop: drop, env: env}
}

// run runs the CLI with args and returns its output and whether it exited 0.
func (c *agentCLI) run(args ...string) (string, bool) {
	c.t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		drop := k == "HOME" || strings.HasPrefix(k, "XDG_")
		for _, p := range c.drop {
			drop = drop || strings.HasPrefix(k, p)
		}
		if !drop {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+c.home, "XDG_CONFIG_HOME="+filepath.Join(c.home, ".config"), "XDG_CACHE_HOME="+filepath.Join(c.home, ".cache"))
	for _, kv := range c.env {
		env = append(env, strings.ReplaceAll(kv, "$HOME", c.home))
	}
	cmd := exec.Command(c.bin, args...)
	cmd.Env, cmd.Dir, cmd.Stdin = env, c.home, strings.NewReader("")
	out, err := cmd.CombinedOutput()
	c.t.Logf("$ %s %s\n%s", c.name, strings.Join(args, " "), out)
	return string(out), err == nil
}

// must runs the CLI and fails the test unless it exits 0 and prints want.
func (c *agentCLI) must(want string, args ...string) string {
	c.t.Helper()
	out, ok := c.run(args...)
	if !ok || !strings.Contains(out, want) {
		c.t.Fatalf("%s %s: exit ok=%v, want %q in its output:\n%s", c.name, strings.Join(args, " "), ok, want, out)
	}
	return out
}

// agentsStore is a store holding the superpowers-shaped Claude Code plugin
// (skills, a hook, a command, an agent) and the plugin files gives (path to
// content) added from a folder of its own, and a marketplace target of
// kind in DIR (returned).
func agentsStore(t *testing.T, kind string, files map[string]string, targetArgs ...string) (tmp, dir string) {
	t.Helper()
	tmp = t.TempDir()
	t.Setenv("SKILLSTORE_DIR", filepath.Join(tmp, "store"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(tmp, "gitconfig"))
	skillstore(t, "init")
	up := filepath.Join(tmp, "superpowers")
	copyTree(t, filepath.Join("..", "..", "testdata", "marketplace", "superpowers"), up)
	skillstore(t, "plugin", "add", up)
	other := filepath.Join(tmp, "other")
	for p, content := range files {
		writeFile(t, filepath.Join(other, filepath.FromSlash(p)), content)
	}
	skillstore(t, "plugin", "add", other)
	dir = filepath.Join(tmp, "exported")
	skillstore(t, append([]string{"target", "add", "out", dir, "--kind", kind}, targetArgs...)...)
	skillstore(t, "export", "out")
	return tmp, dir
}

// exportedVersion is the version export wrote into plugin's manifest.
func exportedVersion(t *testing.T, dir, plugin, manifest string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "plugins", plugin, filepath.FromSlash(manifest)))
	var m struct{ Version string }
	if err != nil || json.Unmarshal(data, &m) != nil || !strings.Contains(m.Version, "+skillstore.") {
		t.Fatalf("%s's manifest: %v\n%s", plugin, err, data)
	}
	return m.Version
}

const copilotSkip = "the copilot CLI is not on PATH: run 'make e2e-copilot' (it installs @github/copilot with npm into a cache folder and runs this test)"

// TestCopilotInstallsExportedMarketplace exports a Claude Code plugin and
// a plugin that came in as Copilot's (an Agent Plugins plugin.json, an
// agent, Copilot's hooks) as a copilot-marketplace target, and has the real
// Copilot CLI (no login) add the marketplace, browse it, install both
// plugins with their skills and list the exported versions; then a
// SKILL.md edit reaches the installed plugin, which Copilot loads live
// from the marketplace folder. The names skillstore refuses for a
// marketplace are names Copilot refuses.
func TestCopilotInstallsExportedMarketplace(t *testing.T) {
	cp := newAgentCLI(t, "copilot", copilotSkip, []string{"COPILOT_", "GH_", "GITHUB_"}, "COPILOT_HOME=$HOME/.copilot")
	out, _ := cp.run("--version")
	t.Logf("Copilot CLI %s", strings.TrimSpace(out))
	tmp, dir := agentsStore(t, "copilot-marketplace", map[string]string{
		".github/plugin/marketplace.json":      `{"name": "team", "owner": {"name": "Team"}, "plugins": [{"name": "dev", "source": "plugins/dev", "version": "1.2.0"}]}`,
		"plugins/dev/plugin.json":              `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "dev", "version": "1.2.0", "description": "Review helpers", "author": {"name": "Team"}}`,
		"plugins/dev/skills/review/SKILL.md":   "---\nname: review\ndescription: Review a change before it is merged.\n---\nRead the diff.\n",
		"plugins/dev/agents/reviewer.agent.md": "---\nname: reviewer\ndescription: Reviews changes for missing tests.\n---\nName each missing test.\n",
		"plugins/dev/hooks.json":               `{"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash": "echo dev ready"}]}}`,
	})
	for _, f := range []string{"plugins/superpowers/agents/plan-reviewer.agent.md", "plugins/superpowers/plugin.json", "plugins/dev/hooks.json", "plugins/dev/agents/reviewer.agent.md"} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
			t.Errorf("export did not write %s: %v", f, err)
		}
	}

	cp.must(`Marketplace "skillstore" added`, "plugin", "marketplace", "add", dir)
	cp.must("skillstore (Local: "+dir+")", "plugin", "marketplace", "list")
	browse := cp.must("superpowers", "plugin", "marketplace", "browse", "skillstore")
	if !strings.Contains(browse, "dev") {
		t.Errorf("browse does not list dev:\n%s", browse)
	}
	cp.must("Installed 3 skills", "plugin", "install", "superpowers@skillstore")
	cp.must("Installed 1 skill", "plugin", "install", "dev@skillstore")
	versions := func() map[string]string {
		var list []struct{ Name, Marketplace, Version string }
		out := cp.must("", "plugin", "list", "--json")
		if err := json.Unmarshal([]byte(out[strings.Index(out, "["):]), &list); err != nil {
			t.Fatalf("plugin list --json: %v\n%s", err, out)
		}
		m := map[string]string{}
		for _, p := range list {
			if p.Marketplace == "skillstore" {
				m[p.Name] = p.Version
			}
		}
		return m
	}
	got := versions()
	for _, p := range []string{"superpowers", "dev"} {
		if want := exportedVersion(t, dir, p, "plugin.json"); got[p] != want {
			t.Errorf("Copilot lists %s at %q, export wrote %q", p, got[p], want)
		}
	}

	// A SKILL.md edit: a new version, which Copilot reads from the folder.
	edit := filepath.Join(tmp, "edit", "writing-plans")
	copyTree(t, filepath.Join(tmp, "superpowers", "skills", "writing-plans"), edit)
	md, _ := os.ReadFile(filepath.Join(edit, "SKILL.md"))
	writeFile(t, filepath.Join(edit, "SKILL.md"), string(md)+"\nName the check of every step.\n")
	skillstore(t, "add", "--as", "superpowers:writing-plans", edit)
	if out := skillstore(t, "export", "out"); !strings.Contains(out, "hot") {
		t.Errorf("export after a SKILL.md edit is not hot:\n%s", out)
	}
	if v, want := versions()["superpowers"], exportedVersion(t, dir, "superpowers", "plugin.json"); v != want {
		t.Errorf("after the edit Copilot lists superpowers at %q, export wrote %q", v, want)
	}

	// The names skillstore refuses are names Copilot refuses.
	for _, name := range []string{"copilot-plugins", "awesome-copilot"} {
		reserved := filepath.Join(tmp, name)
		writeFile(t, filepath.Join(reserved, ".github", "plugin", "marketplace.json"), `{"name":"`+name+`","owner":{"name":"x"},"plugins":[]}`)
		if out, ok := cp.run("plugin", "marketplace", "add", reserved); ok {
			t.Errorf("Copilot accepted the marketplace name %s:\n%s", name, out)
		}
		var errOut strings.Builder
		if code := run([]string{"skillstore", "target", "add", "bad", filepath.Join(tmp, "bad"), "--kind", "copilot-marketplace", "--marketplace", name}, strings.NewReader(""), &errOut, &errOut); code == 0 {
			t.Errorf("skillstore accepted the marketplace name %s", name)
		}
	}
}

const geminiSkip = "the gemini CLI is not on PATH: run 'make e2e-gemini' (it installs @google/gemini-cli with npm into a cache folder and runs this test)"

// TestGeminiValidatesExportedExtensions exports a Claude Code plugin and
// an extension that came in as Gemini CLI's (TOML command, context file,
// MCP server in its manifest) as a gemini-extensions target, and has the
// real Gemini CLI (no login) validate each extension folder, install it
// and list its skills and context file with the exported version.
func TestGeminiValidatesExportedExtensions(t *testing.T) {
	gm := newAgentCLI(t, "gemini", geminiSkip, []string{"GEMINI_", "GOOGLE_"})
	out, _ := gm.run("--version")
	t.Logf("Gemini CLI %s", strings.TrimSpace(out))
	_, dir := agentsStore(t, "gemini-extensions", map[string]string{
		"gemini-extension.json": `{"name": "notes", "version": "0.5.0", "description": "Take notes", "contextFileName": "NOTES.md",` +
			` "mcpServers": {"notes": {"command": "node", "args": ["${extensionPath}/server.js"]}}}`,
		"NOTES.md":            "Keep notes short.\n",
		"server.js":           "console.log('notes');\n",
		"commands/note.toml":  "description = \"Write a note\"\nprompt = \"Write a note about {{args}}\"\n",
		"skills/jot/SKILL.md": "---\nname: jot\ndescription: Jot down what was decided.\n---\nOne line per decision.\n",
	})
	// Installing from a folder asks to trust it first: trusted here.
	writeFile(t, filepath.Join(gm.home, ".gemini", "trustedFolders.json"), `{"`+filepath.Join(dir, "plugins")+`": "TRUST_FOLDER"}`)
	for plugin, want := range map[string][]string{
		"superpowers": {"brainstorming", "writing-plans", "executing-plans"},
		"notes":       {"jot", "NOTES.md"},
	} {
		ext := filepath.Join(dir, "plugins", plugin)
		validated := gm.must("successfully validated", "extensions", "validate", ext)
		if strings.Contains(validated, "Warning") {
			t.Errorf("validate warns about %s:\n%s", plugin, validated)
		}
		gm.must(`Extension "`+plugin+`" installed successfully`, "extensions", "install", ext, "--consent")
		list := gm.must(plugin+" ("+exportedVersion(t, dir, plugin, "gemini-extension.json")+")", "extensions", "list")
		for _, w := range want {
			if !strings.Contains(list, w) {
				t.Errorf("extensions list lacks %s's %s", plugin, w)
			}
		}
	}
	// An extension that is not whole is refused: validate checks something.
	broken := filepath.Join(t.TempDir(), "broken")
	writeFile(t, filepath.Join(broken, "gemini-extension.json"), `{"name": "broken", "version": "1.0.0", "contextFileName": "MISSING.md"}`)
	if out, _ := gm.run("extensions", "validate", broken); !strings.Contains(out, "MISSING.md") || strings.Contains(out, "successfully validated") {
		t.Errorf("Gemini CLI validated an extension whose context file is missing:\n%s", out)
	}
}

// TestCodexInstallsExportedMarketplace exports the Claude Code plugin as a
// codex-marketplace target and has the real Codex CLI (no login) add the
// marketplace, list the plugin and install it: the installed copy holds
// the skills and the version export wrote, and none of Claude Code's hooks
// and commands, which Codex's format cannot say.
func TestCodexInstallsExportedMarketplace(t *testing.T) {
	cx := newAgentCLI(t, "codex", codexSkip, []string{"OPENAI_", "CODEX_"}, "CODEX_HOME=$HOME/.codex")
	if err := os.MkdirAll(filepath.Join(cx.home, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, _ := cx.run("--version")
	t.Logf("Codex %s", strings.TrimSpace(out))
	_, dir := agentsStore(t, "codex-marketplace", map[string]string{
		"skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Use when deploying.\n---\nRun the deploy script.\n",
	})
	version := exportedVersion(t, dir, "superpowers", ".codex-plugin/plugin.json")
	cx.must("Added marketplace `skillstore`", "plugin", "marketplace", "add", dir)
	list := cx.must("superpowers@skillstore", "plugin", "list")
	if !regexp.MustCompile(`superpowers@skillstore +not installed`).MatchString(list) {
		t.Errorf("plugin list before install:\n%s", list)
	}
	add := cx.must("Added plugin `superpowers`", "plugin", "add", "superpowers@skillstore")
	m := regexp.MustCompile(`Installed plugin root: (\S+)`).FindStringSubmatch(add)
	if m == nil || !strings.HasSuffix(m[1], version) {
		t.Fatalf("plugin add does not name the installed root at version %s:\n%s", version, add)
	}
	for _, f := range []string{"skills/brainstorming/SKILL.md", "skills/executing-plans/checklist.md", ".codex-plugin/plugin.json"} {
		if _, err := os.Stat(filepath.Join(m[1], filepath.FromSlash(f))); err != nil {
			t.Errorf("the installed plugin lacks %s: %v", f, err)
		}
	}
	for _, f := range []string{"hooks", "commands", "agents"} {
		if _, err := os.Stat(filepath.Join(m[1], f)); err == nil {
			t.Errorf("the installed plugin holds %s, which Codex does not read", f)
		}
	}
	if list := cx.must("superpowers@skillstore", "plugin", "list"); !regexp.MustCompile(`superpowers@skillstore +installed, enabled +` + regexp.QuoteMeta(version)).MatchString(list) {
		t.Errorf("plugin list after install:\n%s", list)
	}
}

// TestClaudeCodeValidatesTranslatedPlugin exports a plugin that came in as
// GitHub Copilot's (an Agent Plugins plugin.json, agents/NAME.agent.md) as
// a claude-marketplace target and has the real Claude Code CLI validate
// the marketplace and the plugin, which provides the skill and the agent
// under Claude Code's names.
func TestClaudeCodeValidatesTranslatedPlugin(t *testing.T) {
	cc := newClaudeCLI(t)
	_, dir := agentsStore(t, "claude-marketplace", map[string]string{
		".github/plugin/marketplace.json":      `{"name": "team", "owner": {"name": "Team"}, "plugins": [{"name": "dev", "source": "plugins/dev"}]}`,
		"plugins/dev/plugin.json":              `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "dev", "version": "1.2.0", "description": "Review helpers", "license": "MIT"}`,
		"plugins/dev/skills/review/SKILL.md":   "---\nname: review\ndescription: Review a change before it is merged.\n---\nRead the diff.\n",
		"plugins/dev/agents/reviewer.agent.md": "---\nname: reviewer\ndescription: Reviews changes for missing tests.\n---\nName each missing test.\n",
	})
	cc.must("Validation passed", "plugin", "validate", dir)
	validated := cc.must("Validation passed", "plugin", "validate", filepath.Join(dir, "plugins", "dev"))
	if strings.Contains(validated, "Provides:") {
		for _, want := range []string{"skills: dev:review", "agents: dev:reviewer"} {
			if !strings.Contains(validated, want) {
				t.Errorf("validate does not list %q", want)
			}
		}
	}
}
