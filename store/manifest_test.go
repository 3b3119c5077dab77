package store

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/rogpeppe/go-internal/txtar"
)

// writeFixture writes a txtar archive into dir. A file named NAME.symlink
// becomes a symlink NAME pointing at the file's first line, so fixtures can
// hold the symlinks a real repository may contain.
func writeFixture(t testing.TB, dir, archive string) {
	t.Helper()
	for _, f := range txtar.Parse([]byte(archive)).Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if link, ok := strings.CutSuffix(p, ".symlink"); ok {
			if err := os.Symlink(strings.TrimSpace(string(f.Data)), link); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// gitCommitAll makes dir a git repository with everything committed, using
// the real git CLI, and returns the commit's tree as a PluginFS.
func gitTreeFS(t testing.TB, dir string) PluginFS {
	t.Helper()
	gitRun(t, dir, "init", "-q", "-b", "main")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "fixture")
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := repo.Reference(plumbing.NewBranchReferenceName("main"), true)
	if err != nil {
		t.Fatal(err)
	}
	c, err := repo.CommitObject(ref.Hash())
	if err != nil {
		t.Fatal(err)
	}
	tree, err := c.Tree()
	if err != nil {
		t.Fatal(err)
	}
	return NewTreeFS(repo.Storer, tree)
}

func gitRun(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func localFS(t testing.TB, dir string) PluginFS {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root.FS().(PluginFS)
}

// summary renders a layout compactly: "plugin@version[manifest]: skill=path ...".
func summary(l *Layout) []string {
	var out []string
	for _, p := range l.Plugins {
		s := p.Name + "@" + p.Version + "[" + p.Manifest + "] root=" + p.Root + ":"
		for _, sk := range p.Skills {
			s += " " + sk.Name + "=" + sk.Path
		}
		out = append(out, s)
	}
	for _, sk := range l.Skipped {
		out = append(out, "skipped "+sk.Name)
	}
	return out
}

const skill = "---\nname: x\ndescription: d\n---\nbody\n"

var layoutCases = []struct {
	name     string
	fixture  string
	selector string
	want     []string
	wantErr  string // substring of the error
	escapes  bool   // the error wraps ErrPathEscapes
}{
	{
		name: "anthropics-skills marketplace, all plugins",
		fixture: `-- .claude-plugin/marketplace.json --
{
  "name": "anthropic-agent-skills",
  "owner": {"name": "Anthropic"},
  "metadata": {"description": "skills", "version": "1.0.0"},
  "plugins": [
    {"name": "document-skills", "source": "./", "strict": false,
     "skills": ["./skills/xlsx", "./skills/docx"]},
    {"name": "example-skills", "source": "./", "strict": false,
     "skills": ["./skills/algorithmic-art"]}
  ]
}
-- skills/xlsx/SKILL.md --
` + skill + `-- skills/docx/SKILL.md --
` + skill + `-- skills/docx/scripts/unpack.py --
print()
-- skills/algorithmic-art/SKILL.md --
` + skill + `-- spec/agent-skills-spec.md --
spec
`,
		want: []string{
			"document-skills@[.claude-plugin/marketplace.json] root=.: docx=skills/docx xlsx=skills/xlsx",
			"example-skills@[.claude-plugin/marketplace.json] root=.: algorithmic-art=skills/algorithmic-art",
		},
	},
	{
		name:     "anthropics-skills marketplace, one plugin",
		selector: "example-skills",
		fixture: `-- .claude-plugin/marketplace.json --
{"name": "m", "plugins": [
  {"name": "document-skills", "source": "./", "skills": ["./skills/xlsx"]},
  {"name": "example-skills", "source": "./", "skills": ["./skills/algorithmic-art"]}]}
-- skills/xlsx/SKILL.md --
` + skill + `-- skills/algorithmic-art/SKILL.md --
` + skill,
		want: []string{"example-skills@[.claude-plugin/marketplace.json] root=.: algorithmic-art=skills/algorithmic-art"},
	},
	{
		name: "superpowers: plugin.json plus a dev marketplace pointing at ./",
		fixture: `-- .claude-plugin/plugin.json --
{"name": "superpowers", "description": "core skills", "version": "4.0.3",
 "author": {"name": "Jesse Vincent"}, "license": "MIT", "keywords": ["skills"]}
-- .claude-plugin/marketplace.json --
{"name": "superpowers-dev", "owner": {"name": "Jesse Vincent"},
 "plugins": [{"name": "superpowers", "description": "dev", "version": "4.0.3", "source": "./"}]}
-- skills/brainstorming/SKILL.md --
` + skill + `-- skills/test-driven-development/SKILL.md --
` + skill + `-- skills/test-driven-development/testing-anti-patterns.md --
x
-- commands/brainstorm.md --
x
`,
		want: []string{"superpowers@4.0.3[.claude-plugin/plugin.json] root=.: brainstorming=skills/brainstorming test-driven-development=skills/test-driven-development"},
	},
	{
		name: "claude plugin.json alone, default skills folder",
		fixture: `-- .claude-plugin/plugin.json --
{"name": "superpowers", "version": "5.0.0"}
-- skills/writing-plans/SKILL.md --
` + skill + `-- skills/README.md --
not a skill
-- skills/empty/notes.md --
no SKILL.md here
`,
		want: []string{"superpowers@5.0.0[.claude-plugin/plugin.json] root=.: writing-plans=skills/writing-plans"},
	},
	{
		name: "claude plugin.json with a skills list of folders and single skills",
		fixture: `-- .claude-plugin/plugin.json --
{"name": "p", "skills": ["./extra/", "./one/solo"]}
-- extra/a/SKILL.md --
` + skill + `-- extra/b/SKILL.md --
` + skill + `-- one/solo/SKILL.md --
` + skill + `-- skills/ignored/SKILL.md --
` + skill,
		want: []string{"p@[.claude-plugin/plugin.json] root=.: a=extra/a b=extra/b solo=one/solo"},
	},
	{
		name: "codex plugin.json",
		fixture: `-- .codex-plugin/plugin.json --
{"name": "codex-tools", "version": "0.2.0", "skills": "./skills/"}
-- skills/review/SKILL.md --
` + skill,
		want: []string{"codex-tools@0.2.0[.codex-plugin/plugin.json] root=.: review=skills/review"},
	},
	{
		name: "plain skills tree",
		fixture: `-- skills/deploy/SKILL.md --
` + skill + `-- skills/lint/SKILL.md --
` + skill + `-- README.md --
x
`,
		want: []string{"@[] root=.: deploy=skills/deploy lint=skills/lint"},
	},
	{
		name: "marketplace with pluginRoot, bare names and plugins' own manifests",
		fixture: `-- .claude-plugin/marketplace.json --
{"name": "team", "metadata": {"pluginRoot": "./plugins"}, "plugins": [
  {"name": "formatter", "source": "formatter"},
  {"name": "ops", "source": "./plugins/ops", "version": "2.0.0"},
  {"name": "gh", "source": {"source": "github", "repo": "acme/gh-skills"}},
  {"name": "web", "source": {"source": "url", "url": "https://git.example.com/web.git"}}]}
-- plugins/formatter/.claude-plugin/plugin.json --
{"name": "formatter", "version": "1.1.0"}
-- plugins/formatter/skills/fmt/SKILL.md --
` + skill + `-- plugins/ops/skills/deploy/SKILL.md --
` + skill,
		want: []string{
			"formatter@1.1.0[plugins/formatter/.claude-plugin/plugin.json] root=plugins/formatter: fmt=plugins/formatter/skills/fmt",
			"ops@2.0.0[.claude-plugin/marketplace.json] root=plugins/ops: deploy=plugins/ops/skills/deploy",
			"skipped gh", "skipped web",
		},
	},
	{
		name:     "a remote marketplace entry cannot be selected",
		selector: "gh",
		fixture: `-- .claude-plugin/marketplace.json --
{"plugins": [{"name": "gh", "source": {"source": "github", "repo": "acme/gh-skills"}}]}
`,
		wantErr: `.claude-plugin/marketplace.json: plugin "gh" is not in this source: its source is github https://github.com/acme/gh-skills.git`,
	},
	{
		name:     "unknown plugin of a marketplace",
		selector: "nope",
		fixture: `-- .claude-plugin/marketplace.json --
{"plugins": [{"name": "b", "source": "./"}, {"name": "a", "source": "./"}]}
-- skills/x/SKILL.md --
` + skill,
		wantErr: `.claude-plugin/marketplace.json: no plugin named "nope" (plugins: a, b)`,
	},
	{
		name:     "selector without a marketplace",
		selector: "other",
		fixture: `-- .claude-plugin/plugin.json --
{"name": "p"}
-- skills/x/SKILL.md --
` + skill,
		wantErr: `plugin "other" not found`,
	},
	{
		name: "bad JSON names file and line",
		fixture: `-- .claude-plugin/plugin.json --
{
  "name": "p",
  "skills": ["./skills/",]
}
`,
		wantErr: ".claude-plugin/plugin.json: line 3: invalid JSON",
	},
	{
		name: "skills of the wrong type",
		fixture: `-- .codex-plugin/plugin.json --
{"name": "p", "skills": 3}
`,
		wantErr: `.codex-plugin/plugin.json: "skills": must be a path or a list of paths`,
	},
	{
		name: "skills path with ../",
		fixture: `-- .claude-plugin/plugin.json --
{"name": "p", "skills": "../elsewhere"}
`,
		wantErr: `.claude-plugin/plugin.json: "../elsewhere": path escapes the plugin root`,
		escapes: true,
	},
	{
		name: "absolute skills path",
		fixture: `-- .claude-plugin/plugin.json --
{"name": "p", "skills": ["/etc"]}
`,
		wantErr: `.claude-plugin/plugin.json: "/etc": path escapes the plugin root (absolute paths are not allowed)`,
		escapes: true,
	},
	{
		name: "marketplace source with ../",
		fixture: `-- .claude-plugin/marketplace.json --
{"plugins": [{"name": "p", "source": "../sibling"}]}
`,
		wantErr: `.claude-plugin/marketplace.json: plugin "p": "source": "../sibling": path escapes the plugin root`,
		escapes: true,
	},
	{
		name: "marketplace skills path leaving its plugin's folder",
		fixture: `-- .claude-plugin/marketplace.json --
{"plugins": [{"name": "p", "source": "./plugins/p", "skills": ["../q/skills"]}]}
-- plugins/p/x --
x
-- plugins/q/skills/s/SKILL.md --
` + skill,
		wantErr: `.claude-plugin/marketplace.json: "../q/skills" resolves to plugins/q/skills, outside the plugin root plugins/p: path escapes the plugin root`,
		escapes: true,
	},
	{
		name: "skills folder is a symlink out of the root",
		fixture: `-- .claude-plugin/plugin.json --
{"name": "p", "skills": "./linked"}
-- linked.symlink --
../../outside
`,
		wantErr: `.claude-plugin/plugin.json: "./linked": symlink linked points to ../../outside: path escapes the plugin root`,
		escapes: true,
	},
	{
		name: "a skill folder symlinked out of the root",
		fixture: `-- skills/ok/SKILL.md --
` + skill + `-- skills/evil.symlink --
/tmp
`,
		wantErr: `symlink skills/evil points to /tmp: path escapes the plugin root`,
		escapes: true,
	},
	{
		name: "a symlink inside the root is followed",
		fixture: `-- .claude-plugin/plugin.json --
{"name": "p", "skills": "./current"}
-- current.symlink --
releases/v2
-- releases/v2/s/SKILL.md --
` + skill,
		want: []string{"p@[.claude-plugin/plugin.json] root=.: s=releases/v2/s"},
	},
	{
		name: "a named skills path that does not exist",
		fixture: `-- .claude-plugin/plugin.json --
{"name": "p", "skills": ["./missing"]}
`,
		wantErr: `.claude-plugin/plugin.json: skills path "./missing": no such folder`,
	},
	{
		name: "nothing that looks like a plugin",
		fixture: `-- README.md --
hello
`,
		wantErr: "no plugin manifest and no skills/<name>/SKILL.md folders",
	},
	{
		name: "a skill folder name that cannot be a skill name",
		fixture: `-- skills/Bad Name/SKILL.md --
` + skill,
		wantErr: `skill folder "skills/Bad Name": invalid name "Bad Name"`,
	},
}

// TestReadLayout reads every fixture both from a local folder and from the
// tree of a real git commit of it: the two must agree.
func TestReadLayout(t *testing.T) {
	for _, tc := range layoutCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "src")
			writeFixture(t, dir, tc.fixture)
			sources := map[string]PluginFS{"folder": localFS(t, dir), "git": gitTreeFS(t, dir)}
			for kind, fsys := range sources {
				got, err := ReadLayout(fsys, tc.selector)
				if tc.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
						t.Fatalf("%s: error = %v, want it to contain %q", kind, err, tc.wantErr)
					}
					if tc.escapes != errors.Is(err, ErrPathEscapes) {
						t.Errorf("%s: errors.Is(err, ErrPathEscapes) = %v", kind, !tc.escapes)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", kind, err)
				}
				if s := summary(got); !reflect.DeepEqual(s, tc.want) {
					t.Errorf("%s: layout\n got %q\nwant %q", kind, s, tc.want)
				}
			}
		})
	}
}
