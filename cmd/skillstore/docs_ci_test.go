package main

import (
	"context"
	"encoding/json"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/mdexample"
)

// TestCIRecipe runs the CI recipe of docs/guide/team.md as written, as a
// GitHub Actions runner would: a project whose lock a developer wrote and
// committed, then, in a fresh home with no store, each step of the
// snippet (actions/checkout clones the project into the workspace, a run
// step runs in bash as Actions runs it). The recipe must pass, creating
// the store; and with a lock naming a tree no source gives, --frozen
// must fail (exit 1) naming the difference, writing no folder.
func TestCIRecipe(t *testing.T) {
	requireGit(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found: the recipe's steps are shell")
	}
	const guide = "docs/guide/team.md"
	src, err := os.ReadFile(filepath.Join(repoRoot, guide))
	if err != nil {
		t.Fatal(err)
	}
	workflows, err := mdexample.Workflows(src)
	if err != nil {
		t.Fatalf("%s: %v", guide, err)
	}
	i := slices.IndexFunc(workflows, func(w mdexample.Workflow) bool { return w.Name == "ci-install" })
	if i < 0 {
		t.Fatalf("%s has no <!-- workflow name=ci-install --> snippet", guide)
	}
	recipe := workflows[i]

	// GitHub is served over HTTP (git http-backend), so the lock names a
	// source on the network, as a real project's does, and the runner
	// fetches it from there.
	h := newDocHarness(t)
	github := serveGitHTTP(t, h.github)
	for i, kv := range h.env {
		if strings.HasPrefix(kv, "SKILLSTORE_GITHUB_URL=") {
			h.env[i] = "SKILLSTORE_GITHUB_URL=" + github
		}
	}
	// The developer's machine: a store, the project's target, its lock,
	// committed (the agents' folders ignored, as a project does).
	project := filepath.Join(h.home, "app")
	h.bash(t, bash, h.home, h.env, "skillstore init\n"+
		"skillstore plugin add 'anthropics/skills#document-skills'\n"+
		"git init -q -b main app && cd app\n"+
		"skillstore target add --project claude\n"+
		"skillstore lock\n"+
		"echo .claude/ > .gitignore\n"+
		"git add .gitignore skillstore-lock.json && git commit -qm 'lock the skills'\n")

	out, status := h.runRecipe(t, bash, recipe, project)
	if status != 0 {
		t.Fatalf("%s:%d: the recipe exited %d, want 0\n%s", guide, recipe.Line, status, out)
	}
	ci := filepath.Join(filepath.Dir(h.home), "ci-1")
	if !strings.Contains(unwrapped(out), "skillstore: note: no store at "+filepath.Join(ci, "home", ".local", "share", "skillstore")+": created an empty one for this install") {
		t.Errorf("the recipe did not say it created the store:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(ci, "workspace", ".claude", "skills", "pdf", "SKILL.md")); err != nil {
		t.Errorf("the recipe did not install pdf: %v\n%s", err, out)
	}

	// The lock names a tree no version of the source gives (edited by
	// hand): the same recipe fails, names the skill, and writes no folder.
	lockFile := filepath.Join(project, "skillstore-lock.json")
	data, err := os.ReadFile(lockFile)
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Skills []struct{ Name, Tree string } `json:"skills"`
	}
	if err := json.Unmarshal(data, &lock); err != nil || len(lock.Skills) == 0 {
		t.Fatalf("the lock %s: %v\n%s", lockFile, err, data)
	}
	bad := strings.Repeat("1", 40)
	data = []byte(strings.Replace(string(data), lock.Skills[0].Tree, bad, 1))
	if err := os.WriteFile(lockFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	h.bash(t, bash, project, h.env, "git commit -qam 'a tree no source gives'\n")
	out, status = h.runRecipe(t, bash, recipe, project)
	if status != 1 {
		t.Fatalf("with a lock no source satisfies the recipe exited %d, want 1\n%s", status, out)
	}
	want := lock.Skills[0].Name + "@v1: no version in this store has the lock's tree " + bad[:12]
	if !strings.Contains(unwrapped(out), want) {
		t.Errorf("the failure does not name the difference (%q):\n%s", want, out)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(h.home), "ci-2", "workspace", ".claude")); err == nil {
		t.Errorf("--frozen failed but wrote the agents' folder")
	}
}

// runRecipe runs a CI snippet's steps as a fresh runner: a new home with
// no store (ci-N beside the harness's home) and a workspace that
// actions/checkout fills with a clone of project. It returns the steps'
// output and the exit status of the first step that failed (0 when none
// did).
func (h *docHarness) runRecipe(t *testing.T, bash string, w mdexample.Workflow, project string) (string, int) {
	t.Helper()
	h.runs++
	ci := filepath.Join(filepath.Dir(h.home), "ci-"+string(rune('0'+h.runs)))
	home, workspace := filepath.Join(ci, "home"), filepath.Join(ci, "workspace")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	env := slices.Clone(h.env)
	for i, kv := range env {
		switch {
		case strings.HasPrefix(kv, "HOME="):
			env[i] = "HOME=" + home
		case strings.HasPrefix(kv, "GIT_CONFIG_GLOBAL="):
			env[i] = "GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig")
		}
	}
	env = append(env, "CI=true", "GITHUB_ACTIONS=true", "GITHUB_WORKSPACE="+workspace)
	var out strings.Builder
	for _, st := range w.Steps {
		switch {
		case strings.HasPrefix(st.Uses, "actions/checkout@"):
			h.git(t, "clone", "-q", project, workspace)
		case st.Uses != "":
			t.Fatalf("step uses %s: the test runs actions/checkout and run steps only", st.Uses)
		default:
			// Actions' default shell on Linux: bash --noprofile --norc -eo pipefail.
			ctx, cancel := context.WithTimeout(context.Background(), exampleTimeout)
			cmd := exec.CommandContext(ctx, bash, "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", st.Run)
			cmd.Dir, cmd.Env = workspace, env
			b, err := cmd.CombinedOutput()
			cancel()
			out.Write(b)
			if ee, ok := err.(*exec.ExitError); ok {
				return out.String(), ee.ExitCode()
			} else if err != nil {
				t.Fatalf("step %q: %v", st.Run, err)
			}
		}
	}
	return out.String(), 0
}

// bash runs a setup script that must succeed.
func (h *docHarness) bash(t *testing.T, bash, dir string, env []string, script string) {
	t.Helper()
	cmd := exec.Command(bash, "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

// serveGitHTTP serves the bare repositories under root over HTTP with
// git's own http-backend, for the test's life, and returns the server's
// URL.
func serveGitHTTP(t *testing.T, root string) string {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skipf("git http-backend is not installed: %v", err)
	}
	srv := httptest.NewServer(&cgi.Handler{Path: backend, Env: []string{
		"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
	}})
	t.Cleanup(srv.Close)
	return srv.URL
}

// unwrapped is output with its wrapped messages joined: each run of
// spaces and line breaks one space.
func unwrapped(s string) string { return strings.Join(strings.Fields(s), " ") }
