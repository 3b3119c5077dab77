package plugins

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
)

// TestAdoptPrefersLockFileHash: a copy installed at commit 1 and edited
// towards commit 2 is closest to commit 2, but the lock file's
// skillFolderHash names commit 1's folder, which Adopt takes as the base;
// without it the closest commit is taken. The dry run reports the same
// and writes nothing.
func TestAdoptPrefersLockFileHash(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	up, commits := twoCommitUpstream(t, tmp)
	hint, ok := store.ParseHash(strings.TrimSpace(storetest.Git(t, up, "rev-parse", commits[0]+":skills/one")))
	if !ok {
		t.Fatal("rev-parse the skill folder's tree")
	}
	installed := filepath.Join(tmp, "home", "one")
	storetest.WriteFile(t, filepath.Join(installed, "SKILL.md"), storetest.SkillMD("one", "a", "b, revised upstream", "c", "d, edited"))
	src, err := ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		hint store.Hash
		want string
		dry  bool
	}{
		{"dry run with the hash", hint, commits[0], true},
		{"with the hash", hint, commits[0], false},
		{"without the hash", store.ZeroHash, commits[1], false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			real := storetest.NewStore(t)
			s := real
			if tc.dry {
				s = real.DryRun()
			}
			res, err := Adopt(ctx, s, []InstalledSkill{{Dir: installed, Upstream: src, Hint: tc.hint}}, store.AddOptions{})
			if err != nil {
				t.Fatal(err)
			}
			r := res[0]
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if r.Imported != 1 || !r.PluginAdded || r.Link == nil {
				t.Fatalf("result %+v: want imported v1, plugin added, linked", r)
			}
			if got := r.Link.Base.Commit.String(); got != tc.want {
				t.Errorf("base %s, want %s", got, tc.want)
			}
			if !r.Link.LocalEdit {
				t.Error("the edit against the base is not kept as a local edit")
			}
			// The store on disk (a dry run's own reads see its writes).
			var names []string
			if err := real.View(ctx, func(rd *store.Reader) error {
				ps, err := List(rd)
				for _, p := range ps {
					names = append(names, p.ID)
				}
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if tc.dry != (len(names) == 0) {
				t.Errorf("dry run %v, plugins afterwards %v", tc.dry, names)
			}
		})
	}
}

// TestAdoptInstallCommitAndManagedName: Claude Code records the commit a
// plugin was installed from; it is the base even though a later commit is
// closer to the edited copy. A managed skill of the same name holding other
// files is never given the installed files as a version.
func TestAdoptInstallCommitAndManagedName(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	up, commits := twoCommitUpstream(t, tmp)
	installCommit, _ := store.ParseHash(commits[0])
	installed := filepath.Join(tmp, "cache", "one")
	storetest.WriteFile(t, filepath.Join(installed, "SKILL.md"), storetest.SkillMD("one", "a", "b, revised upstream", "c", "d, edited"))
	src, err := ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}

	s := storetest.NewStore(t)
	res, err := Adopt(ctx, s, []InstalledSkill{{Dir: installed, Upstream: src, Hint: installCommit}}, store.AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0]; r.Err != nil || r.Link == nil {
		t.Fatalf("result %+v", r)
	} else if got := r.Link.Base.Commit.String(); got != commits[0] || !r.Link.LocalEdit {
		t.Errorf("base %s (local edit %v), want the install commit %s with a local edit", got, r.Link.LocalEdit, commits[0])
	}

	s = storetest.NewStore(t)
	mine := filepath.Join(tmp, "mine", "one")
	storetest.WriteFile(t, filepath.Join(mine, "SKILL.md"), storetest.SkillMD("one", "my own skill"))
	if _, err := s.Add(ctx, []string{mine}, store.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err = Adopt(ctx, s, []InstalledSkill{{Dir: installed, Upstream: src, Hint: installCommit}}, store.AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err == nil || !strings.Contains(res[0].Err.Error(), "add --as PLUGIN:one") {
		t.Fatalf("adopting over a managed skill of the same name: %+v", res[0])
	}
	var head store.Version
	if err := s.View(ctx, func(r *store.Reader) error {
		var err error
		head, err = r.Head("one")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if head.Number != 1 {
		t.Errorf("the managed skill got version %d from another source's folder", head.Number)
	}
}

// twoCommitUpstream is a git repository under tmp whose skill "one"
// changes in its second commit; it returns the repository and both commits.
func twoCommitUpstream(t *testing.T, tmp string) (string, []string) {
	t.Helper()
	up := filepath.Join(tmp, "up")
	storetest.Git(t, tmp, "init", "-q", "-b", "main", up)
	var commits []string
	for _, body := range [][]string{{"a", "b", "c", "d"}, {"a", "b, revised upstream", "c", "d"}} {
		storetest.WriteFile(t, filepath.Join(up, "skills", "one", "SKILL.md"), storetest.SkillMD("one", body...))
		storetest.Git(t, up, "add", "-A")
		storetest.Git(t, up, "-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-q", "-m", "change")
		commits = append(commits, strings.TrimSpace(storetest.Git(t, up, "rev-parse", "HEAD")))
	}
	return up, commits
}

// TestAdoptPath: a lock file's skillPath names the skill's SKILL.md or its
// folder; one that leaves the repository is not used.
func TestAdoptPath(t *testing.T) {
	for in, want := range map[string]string{
		"skills/pdf/SKILL.md":  "skills/pdf",
		"skills/pdf":           "skills/pdf",
		"skills/pdf/":          "skills/pdf",
		`skills\pdf\SKILL.md`:  "skills/pdf",
		"SKILL.md":             "",
		"skills/MYSKILL.md":    "skills/MYSKILL.md",
		"../outside/SKILL.md":  "",
		"/etc/skills/SKILL.md": "",
		"":                     "",
	} {
		if got := (InstalledSkill{SkillPath: in}).adoptPath(); got != want {
			t.Errorf("adoptPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPluginHolding: the plugin whose "skills" lists the folder, else the
// one plugin with a skill of that name (a skill moved upstream since the
// install); none, or two by name, is an error naming the plugins.
func TestPluginHolding(t *testing.T) {
	layout := &pluginfmt.Layout{Plugins: []pluginfmt.PluginLayout{
		{Name: "documents", Skills: []pluginfmt.SkillDir{{Name: "docx", Path: "skills/docx"}, {Name: "setup", Path: "skills/setup-docs"}}},
		{Name: "examples", Skills: []pluginfmt.SkillDir{{Name: "canvas", Path: "skills/canvas"}, {Name: "setup", Path: "skills/setup"}}},
		{Name: "api", Skills: []pluginfmt.SkillDir{{Name: "api", Path: "skills/api"}}},
	}}
	src := Source{Kind: SourceGit, URL: "https://example.com/acme/skills.git"}
	for _, c := range []struct{ skill, dir, want string }{
		{"canvas", "skills/canvas", "examples"},
		{"setup", "skills/setup-docs", "documents"},
		{"setup", "skills/setup", "examples"},
		{"canvas", "old/canvas", "examples"},
		{"docx", "", "documents"},
		{"setup", "", ""},
		{"nope", "skills/nope", ""},
	} {
		pl, err := pluginHolding(src, layout, c.skill, c.dir)
		switch {
		case c.want == "" && (err == nil || !strings.Contains(err.Error(), "holds 3 plugins (documents, examples, api)")):
			t.Errorf("%s at %q: %v, %v; want an error naming the plugins", c.skill, c.dir, pl, err)
		case c.want != "" && (err != nil || pl.Name != c.want):
			t.Errorf("%s at %q: %v, %v; want %s", c.skill, c.dir, pl, err, c.want)
		}
	}
}
