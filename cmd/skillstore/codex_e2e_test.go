package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/reload/target"
)

// codexSkip is the skip message of the tests that need Codex's CLI.
const codexSkip = "the codex CLI is not on PATH: run 'make e2e-codex' (it installs @openai/codex with npm into a cache folder and runs this test)"

// runCodex runs the real `codex` CLI with HOME and CODEX_HOME in home, so
// the user's configuration is never read or written, and without any
// OpenAI or Codex variable of the caller: 'codex debug prompt-input'
// needs no login.
func runCodex(t *testing.T, bin, home, dir string, args ...string) string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "CODEX_") || k == "HOME" || k == "XDG_CONFIG_HOME" {
			continue
		}
		env = append(env, kv)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(env, "HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"), "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	cmd.Dir, cmd.Stdin = dir, strings.NewReader("")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	t.Logf("$ codex %s\nstderr: %s", strings.Join(args, " "), stderr.String())
	if err != nil {
		t.Fatalf("codex %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

// skillsList is the list of skills in the prompt Codex would send: the
// text of the <skills_instructions> item of 'codex debug prompt-input'.
func skillsList(t *testing.T, promptInput string) string {
	t.Helper()
	var items []struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal([]byte(promptInput), &items); err != nil {
		t.Fatalf("codex debug prompt-input is not the JSON list it documents: %v\n%.2000s", err, promptInput)
	}
	for _, it := range items {
		for _, c := range it.Content {
			if strings.Contains(c.Text, "<skills_instructions>") {
				return c.Text
			}
		}
	}
	t.Fatalf("no <skills_instructions> in the prompt input:\n%.4000s", promptInput)
	return ""
}

// TestCodexListsExportedSkills exports skills into ~/.agents/skills (the
// codex preset) of a temp home and has the real Codex CLI print the
// prompt it would send ('codex debug prompt-input', no login): each
// exported skill is in its skills list, as "- NAME: DESCRIPTION (file:
// PATH)", and skillstore's measure of that list (export --json) is the
// length of those lines.
func TestCodexListsExportedSkills(t *testing.T) {
	bin, err := exec.LookPath("codex")
	if err != nil {
		t.Skip(codexSkip)
	}
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	work := filepath.Join(tmp, "work")
	for _, d := range []string{filepath.Join(home, ".codex"), work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("Codex %s", strings.TrimSpace(runCodex(t, bin, home, work, "--version")))
	t.Setenv("HOME", home)
	t.Setenv("SKILLSTORE_DIR", filepath.Join(tmp, "store"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(tmp, "gitconfig"))
	skillstore(t, "init")
	skills := map[string]string{
		"deploy":      "Use when deploying the service; runs the deploy script and checks the health endpoint.",
		"review-plan": "Use when a plan needs review before work starts; lists risks, missing steps and owners.",
	}
	for name, desc := range skills {
		writeFile(t, filepath.Join(tmp, "src", name, "SKILL.md"), "---\nname: "+name+"\ndescription: "+desc+"\n---\nFollow the steps.\n")
		skillstore(t, "add", filepath.Join(tmp, "src", name))
	}
	skillstore(t, "target", "add", "codex")
	var exported []target.Exported
	if err := json.Unmarshal([]byte(skillstore(t, "export", "--json")), &exported); err != nil || len(exported) != 1 || len(exported[0].Listing) != 1 {
		t.Fatalf("export --json: %v %+v", err, exported)
	}
	estimate := exported[0].Listing[0].Chars

	list := skillsList(t, runCodex(t, bin, home, work, "debug", "prompt-input"))
	t.Logf("Codex's skills list:\n%s", list)
	ours, theirs := 0, 0
	for _, line := range strings.Split(list, "\n") {
		if !strings.HasPrefix(line, "- ") || !strings.Contains(line, "(file: ") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(line, "- "), ":")
		if _, ok := skills[name]; ok {
			ours += len([]rune(line)) + 1
		} else {
			theirs += len([]rune(line)) + 1
		}
	}
	for name, desc := range skills {
		re := regexp.MustCompile(`(?m)^- ` + regexp.QuoteMeta(name+": "+desc) + ` \(file: (\S+)/` + regexp.QuoteMeta(name) + `/SKILL\.md\)$`)
		m := re.FindStringSubmatch(list)
		if m == nil {
			t.Errorf("Codex does not list %s as exported into ~/.agents/skills", name)
			continue
		}
		if root := m[1]; root != filepath.Join(home, ".agents", "skills") && !strings.Contains(list, "`"+root+"` = `"+filepath.Join(home, ".agents", "skills")+"`") {
			t.Errorf("Codex lists %s from %s, not from ~/.agents/skills", name, root)
		}
	}
	// skillstore measures the lines with the folder written as an alias
	// ("r0/NAME/SKILL.md"), as Codex writes it when it uses a table of roots.
	if strings.Contains(list, "### Skill roots") {
		if ours != estimate {
			t.Errorf("skillstore measures %d characters for the two skills, Codex's lines are %d", estimate, ours)
		}
	} else {
		t.Logf("Codex wrote absolute paths: skillstore's measure %d, Codex's lines %d", estimate, ours)
	}
	t.Logf("%s", fmt.Sprintf("skillstore's measure: %d characters; Codex's lines for them: %d; Codex's bundled skills: %d more of the same budget", estimate, ours, theirs))
}
