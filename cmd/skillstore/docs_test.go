package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/mdexample"
)

// The documentation's examples run: every shell block of README.md and
// docs/ marked <!-- runnable --> (package mdexample) is run by bash, with
// this binary as skillstore on PATH, in a temporary HOME, and must end
// with the status its marker names (0 unless exit=N). The blocks of one
// file run in order in one HOME, as a reader types them one after the
// other. GitHub is a folder here (SKILLSTORE_GITHUB_URL): anthropics/skills
// is testdata/docs/anthropics-skills.txtar, a repository of our own in its
// shape, so no example reaches the network.

const repoRoot = "../.."

// docSetups are the steps a block may ask the harness to take first
// (setup=NAME): what happens on a reader's machine without a command of
// the example making it happen.
var docSetups = map[string]func(t *testing.T, h *docHarness){
	// upstream-change: anthropics/skills publishes a change (the next of
	// c2/, c3/... in the fixture), as it does from time to time.
	"upstream-change": func(t *testing.T, h *docHarness) { h.upstreamChange(t) },
	// npx-skills: the home as 'npx skills add anthropics/skills -g' left
	// it, pdf edited since.
	"npx-skills": func(t *testing.T, h *docHarness) { h.npxInstall(t) },
}

// exampleTimeout bounds one block, so a hang fails the test instead of
// stalling it.
const exampleTimeout = 3 * time.Minute

func TestDocExamples(t *testing.T) {
	requireGit(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found: the examples are shell")
	}
	for _, file := range docFiles(t) {
		src, err := os.ReadFile(filepath.Join(repoRoot, file))
		if err != nil {
			t.Fatal(err)
		}
		examples, err := mdexample.Examples(src, setupNames())
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if len(examples) == 0 {
			continue
		}
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			h := newDocHarness(t)
			for _, ex := range examples {
				if ex.Setup != "" {
					docSetups[ex.Setup](t, h)
				}
				if !h.run(t, bash, file, ex) {
					return // the next blocks build on this one
				}
			}
		})
	}
}

// docFiles is README.md and every Markdown file under docs/, relative
// to the repository's root.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		rel, err := filepath.Rel(repoRoot, p)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func setupNames() []string {
	var names []string
	for n := range docSetups {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// docHarness is one reader's machine: a home, and GitHub as a folder
// holding anthropics/skills (a bare repository) and its work tree, where
// upstream changes are made.
type docHarness struct {
	home, github, upstream string
	fixture                *txtar.Archive
	env                    []string
	changes                int // upstream changes made so far
	runs                   int // CI runs made so far (runRecipe)
}

func newDocHarness(t *testing.T) *docHarness {
	dir := t.TempDir()
	h := &docHarness{
		home:     filepath.Join(dir, "home"),
		github:   filepath.Join(dir, "github"),
		upstream: filepath.Join(dir, "upstream"),
	}
	a, err := txtar.ParseFile(filepath.Join(repoRoot, "testdata", "docs", "anthropics-skills.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	h.fixture = a
	if err := os.MkdirAll(h.home, 0o755); err != nil {
		t.Fatal(err)
	}
	h.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + h.home,
		"TMPDIR=" + t.TempDir(),
		"SKILLSTORE_GITHUB_URL=file://" + h.github,
		"SKILLSTORE_SYSTEM_PATH=",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + filepath.Join(h.home, ".gitconfig"),
		"GIT_AUTHOR_NAME=Docs Reader", "GIT_AUTHOR_EMAIL=reader@example.com",
		"GIT_COMMITTER_NAME=Docs Reader", "GIT_COMMITTER_EMAIL=reader@example.com",
		"TZ=UTC", "NO_COLOR=1",
	}
	if v, ok := os.LookupEnv("GORACE"); ok {
		h.env = append(h.env, "GORACE="+v)
	}
	h.writeFiles(t, "c1/", h.upstream)
	h.git(t, "init", "-q", "-b", "main", h.upstream)
	h.git(t, "-C", h.upstream, "add", "-A")
	h.git(t, "-C", h.upstream, "commit", "-q", "-m", "first")
	h.git(t, "clone", "-q", "--bare", h.upstream, filepath.Join(h.github, "anthropics", "skills.git"))
	return h
}

// run runs one example and reports whether it ended as its marker says.
func (h *docHarness) run(t *testing.T, bash, file string, ex mdexample.Example) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), exampleTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", ex.Script)
	cmd.Dir, cmd.Env = h.home, h.env
	out, err := cmd.CombinedOutput()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s:%d: %v", file, ex.Line, err)
	}
	t.Logf("%s:%d: exit %d\n%s", file, ex.Line, status, out)
	if ctx.Err() != nil || status != ex.Exit {
		t.Errorf("%s:%d: the example exited %d, want %d (timed out: %v)\n--- example\n%s--- output\n%s", file, ex.Line, status, ex.Exit, ctx.Err() != nil, ex.Script, out)
		return false
	}
	return true
}

// upstreamChange commits the fixture's next change (c2/, then c3/...)
// upstream and publishes it on GitHub.
func (h *docHarness) upstreamChange(t *testing.T) {
	h.changes++
	h.writeFiles(t, fmt.Sprintf("c%d/", h.changes+1), h.upstream)
	h.git(t, "-C", h.upstream, "commit", "-q", "-am", fmt.Sprintf("change %d", h.changes))
	h.git(t, "-C", h.upstream, "push", "-q", filepath.Join(h.github, "anthropics", "skills.git"), "main")
}

// npxInstall makes the home an 'npx skills add anthropics/skills -g'
// install of pdf and xlsx at the first commit: copies in ~/.agents/skills,
// links to them from ~/.claude/skills, the lock file (version 3, each
// skill's skillFolderHash its folder's git tree), and pdf edited since.
func (h *docHarness) npxInstall(t *testing.T) {
	agents, claude := filepath.Join(h.home, ".agents"), filepath.Join(h.home, ".claude", "skills")
	h.writeFiles(t, "c1/skills/pdf/", filepath.Join(agents, "skills", "pdf"))
	h.writeFiles(t, "c1/skills/xlsx/", filepath.Join(agents, "skills", "xlsx"))
	pdf := filepath.Join(agents, "skills", "pdf", "SKILL.md")
	appendFile(t, pdf, "\nAsk before printing anything.\n")
	if err := os.MkdirAll(claude, 0o755); err != nil {
		t.Fatal(err)
	}
	type entry struct {
		Source          string `json:"source"`
		SourceType      string `json:"sourceType"`
		SourceURL       string `json:"sourceUrl"`
		SkillPath       string `json:"skillPath"`
		SkillFolderHash string `json:"skillFolderHash"`
		InstalledAt     string `json:"installedAt"`
		UpdatedAt       string `json:"updatedAt"`
	}
	lock := struct {
		Version int              `json:"version"`
		Skills  map[string]entry `json:"skills"`
	}{Version: 3, Skills: map[string]entry{}}
	for _, name := range []string{"pdf", "xlsx"} {
		if err := os.Symlink(filepath.Join("..", "..", ".agents", "skills", name), filepath.Join(claude, name)); err != nil {
			t.Fatal(err)
		}
		tree := strings.TrimSpace(h.git(t, "-C", h.upstream, "rev-parse", "HEAD:skills/"+name))
		lock.Skills[name] = entry{
			Source: "anthropics/skills", SourceType: "github", SourceURL: "https://github.com/anthropics/skills.git",
			SkillPath: "skills/" + name + "/SKILL.md", SkillFolderHash: tree,
			InstalledAt: "2026-03-01T09:00:00.000Z", UpdatedAt: "2026-03-01T09:00:00.000Z",
		}
	}
	b, err := json.MarshalIndent(lock, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agents, ".skill-lock.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeFiles writes the fixture's files under prefix into dir.
func (h *docHarness) writeFiles(t *testing.T, prefix, dir string) {
	t.Helper()
	n := 0
	for _, f := range h.fixture.Files {
		rel, ok := strings.CutPrefix(f.Name, prefix)
		if !ok {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n == 0 {
		t.Fatalf("the fixture has no files under %s", prefix)
	}
}

func (h *docHarness) git(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Env = h.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
