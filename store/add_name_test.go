package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAddNeverWritesForeignFolderOntoPluginSkill: a folder named like a
// plugin's skill (and no managed skill) but from elsewhere
// is refused by add and import with the choices, nothing written; a folder
// holding one of the skill's versions is its version; --into records an
// edited copy onto it; --as records the folder as a managed skill of
// another name, renamed in SKILL.md.
func TestAddNeverWritesForeignFolderOntoPluginSkill(t *testing.T) {
	ctx := context.Background()
	up := filepath.Join(t.TempDir(), "up")
	gitCmd(t, filepath.Dir(up), "init", "-q", "-b", "main", up)
	commit := func(body string) {
		writeFile(t, filepath.Join(up, "skills", "skill-creator", "SKILL.md"), skillMD("skill-creator", body))
		gitCmd(t, up, "add", "-A")
		gitCmd(t, up, "-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-q", "-m", "c")
	}
	commit("anthropic's way, first")
	s := newSyncStore(t)
	src, err := ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddPlugin(ctx, src, AddPluginOptions{ID: "anthropic"}); err != nil {
		t.Fatal(err)
	}
	commit("anthropic's way, second")
	if _, err := s.Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	head := func(name string) Version {
		t.Helper()
		var v Version
		if err := s.View(ctx, func(r *Reader) error { var err error; v, err = r.Head(name); return err }); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := head("anthropic:skill-creator"); v.Number != 2 {
		t.Fatalf("plugin skill at v%d, want v2", v.Number)
	}

	folder := func(body string) string {
		dir := filepath.Join(t.TempDir(), "skill-creator")
		writeFile(t, filepath.Join(dir, "SKILL.md"), skillMD("skill-creator", body))
		return dir
	}
	foreign := folder("openai's way")
	_, err = s.Add(ctx, []string{foreign}, defaultAdd())
	var ff *ForeignFolderError
	if !errors.As(err, &ff) || !slices.Equal(ff.Skills, []string{"anthropic:skill-creator"}) {
		t.Fatalf("add of a foreign folder: %v", err)
	}
	for _, choice := range []string{"--as NEWNAME", "--into anthropic:skill-creator", "plugin adopt anthropic skill-creator", "capture"} {
		if !strings.Contains(err.Error(), choice) {
			t.Errorf("the refusal does not offer %q: %v", choice, err)
		}
	}
	res, err := s.ImportDirs(ctx, []string{foreign}, defaultAdd())
	if err != nil || len(res) != 1 || !errors.As(res[0].Err, &ff) {
		t.Fatalf("import of a foreign folder: %v %+v", err, res)
	}
	if v := head("anthropic:skill-creator"); v.Number != 2 {
		t.Fatalf("a refused folder was written: skill-creator at v%d", v.Number)
	}

	// A folder with the files of v1 came from the skill: recorded (a revert).
	res, err = s.Add(ctx, []string{folder("anthropic's way, first")}, defaultAdd())
	if err != nil || res[0].Name != "anthropic:skill-creator" || res[0].Version.Number != 3 || res[0].Version.Source != "plugin:anthropic" {
		t.Fatalf("add of v1's files: %v %+v", err, res)
	}
	// An edited copy needs --into.
	edited := folder("anthropic's way, first, edited")
	if _, err := s.Add(ctx, []string{edited}, defaultAdd()); !errors.As(err, &ff) {
		t.Fatalf("edited copy without --into: %v", err)
	}
	into := defaultAdd()
	into.Into = []string{"anthropic:skill-creator"}
	res, err = s.Add(ctx, []string{edited}, into)
	if err != nil || res[0].Name != "anthropic:skill-creator" || res[0].Version.Number != 4 {
		t.Fatalf("--into: %v %+v", err, res)
	}

	// Several folders: each goes onto the --into skill of its name; an
	// --into no folder is named after is a mistake, nothing written.
	other := writeSkill(t, t.TempDir(), "mine", "my own", nil)
	into.Into = []string{"anthropic:skill-creator", "mine"}
	if _, err := s.Add(ctx, []string{folder("edited again"), other}, into); err == nil || !strings.Contains(err.Error(), "mine") {
		t.Fatalf("--into a skill that does not exist: %v", err)
	}
	if _, err := s.Add(ctx, []string{other}, defaultAdd()); err != nil {
		t.Fatal(err)
	}
	into.Into = []string{"anthropic:skill-creator", "mine", "other"}
	if _, err := s.Add(ctx, []string{folder("edited again"), other}, into); err == nil {
		t.Fatal("an --into no folder matches was accepted")
	}
	into.Into = []string{"mine", "anthropic:skill-creator"}
	res, err = s.Add(ctx, []string{folder("edited again"), writeSkill(t, t.TempDir(), "mine", "my own, edited", nil)}, into)
	if err != nil || len(res) != 2 || res[0].Name != "anthropic:skill-creator" || res[0].Version.Number != 5 || res[1].Name != "mine" || res[1].Version.Number != 2 {
		t.Fatalf("two folders, two --into: %v %+v", err, res)
	}

	as := defaultAdd()
	as.As = "openai-skill-creator"
	res, err = s.Add(ctx, []string{foreign}, as)
	if err != nil || res[0].Name != "openai-skill-creator" || res[0].Version.Number != 1 || res[0].Version.Source != SourceManaged {
		t.Fatalf("--as: %v %+v", err, res)
	}
	data, err := s.Cat(ctx, "openai-skill-creator", "")
	if err != nil || !strings.Contains(string(data), "name: openai-skill-creator\n") || !strings.Contains(string(data), "openai's way") {
		t.Fatalf("--as SKILL.md: %v\n%s", err, data)
	}
	if raw, _ := os.ReadFile(filepath.Join(foreign, "SKILL.md")); !strings.Contains(string(raw), "name: skill-creator\n") {
		t.Errorf("--as changed the folder on disk:\n%s", raw)
	}
	// --as the plugin skill's short name makes a managed skill beside it.
	as.As = "skill-creator"
	if res, err := s.Add(ctx, []string{foreign}, as); err != nil || res[0].Name != "skill-creator" || res[0].Version.Source != SourceManaged {
		t.Errorf("--as the plugin skill's short name: %v %+v", err, res)
	}
	// --as a plugin's skill is --into it.
	as.As = "anthropic:skill-creator"
	if res, err := s.Add(ctx, []string{foreign}, as); err != nil || res[0].Name != "anthropic:skill-creator" || res[0].Version.Source != "plugin:anthropic" {
		t.Errorf("--as a qualified name: %v %+v", err, res)
	}
	as.As = "anthropic:nope"
	if _, err := s.Add(ctx, []string{foreign}, as); err == nil || !strings.Contains(err.Error(), `names the skill "skill-creator": it cannot be recorded as "anthropic:nope"`) {
		t.Errorf("--as another skill of the plugin: %v", err)
	}
	as.As = "nope:skill-creator"
	if _, err := s.Add(ctx, []string{foreign}, as); !errors.As(err, new(*UnknownPluginSkillError)) || !errors.Is(err, ErrUnknownPlugin) {
		t.Errorf("--as a plugin the store lacks: %v", err)
	}

	as.As = "two"
	if _, err := s.Add(ctx, []string{foreign, edited}, as); err == nil {
		t.Error("--as with two folders was accepted")
	}
}

// TestAddNameLayoutTwo: with plugins' skills under refs/heads/plugins/
// (made here with git), a folder named like two plugins' skills is
// refused unless its files are one of theirs, and a managed skill of the
// name takes the folder as its next version.
func TestAddNameLayoutTwo(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	src := t.TempDir()
	dir := writeSkill(t, src, "skill-creator", "anthropic's", nil)
	if _, err := s.Add(ctx, []string{dir}, defaultAdd()); err != nil {
		t.Fatal(err)
	}
	var v1 Version
	if err := s.View(ctx, func(r *Reader) error { var err error; v1, err = r.Head("skill-creator"); return err }); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, s.Dir(), "update-ref", "refs/heads/plugins/anthropic/skill-creator", v1.Commit.String())
	gitCmd(t, s.Dir(), "update-ref", "refs/heads/plugins/openai/skill-creator", v1.Commit.String())
	gitCmd(t, s.Dir(), "update-ref", "-d", "refs/heads/skills/skill-creator")

	foreign := writeSkill(t, t.TempDir(), "skill-creator", "someone else's", nil)
	_, err := s.Add(ctx, []string{foreign}, defaultAdd())
	var ff *ForeignFolderError
	if !errors.As(err, &ff) || !slices.Equal(ff.Skills, []string{"anthropic:skill-creator", "openai:skill-creator"}) {
		t.Fatalf("foreign folder: %v", err)
	}
	if !strings.Contains(err.Error(), "--into PLUGIN:skill-creator") {
		t.Errorf("two plugin skills: the --into choice should name PLUGIN: %v", err)
	}
	// Both plugins' skills have these files: which one is not for add to guess.
	if _, err := s.Add(ctx, []string{dir}, defaultAdd()); !errors.As(err, &ff) {
		t.Fatalf("a folder two plugin skills have: %v", err)
	}
	gitCmd(t, s.Dir(), "update-ref", "-d", "refs/heads/plugins/openai/skill-creator")
	res, err := s.Add(ctx, []string{dir}, defaultAdd())
	if err != nil || res[0].Name != "anthropic:skill-creator" || !res[0].Unchanged {
		t.Fatalf("a folder anthropic:skill-creator has: %v %+v", err, res)
	}

	// A managed skill of the name takes the folder.
	as := defaultAdd()
	as.As = "skill-creator"
	res, err = s.Add(ctx, []string{foreign}, as)
	if err != nil || res[0].Name != "skill-creator" || res[0].Version.Number != 1 {
		t.Fatalf("--as the plugin skill's short name: %v %+v", err, res)
	}
	again := writeSkill(t, t.TempDir(), "skill-creator", "someone else's, edited", nil)
	res, err = s.Add(ctx, []string{again}, defaultAdd())
	if err != nil || res[0].Name != "skill-creator" || res[0].Version.Number != 2 {
		t.Fatalf("next version of the managed skill: %v %+v", err, res)
	}
}

// TestAddCheckedOutFolder: a folder 'checkout' wrote from a plugin's skill
// and then edited is that skill's next version (it came from it); the
// same edited files in a folder no checkout wrote are refused as foreign.
func TestAddCheckedOutFolder(t *testing.T) {
	ctx := context.Background()
	up := filepath.Join(t.TempDir(), "up")
	gitCmd(t, filepath.Dir(up), "init", "-q", "-b", "main", up)
	writeFile(t, filepath.Join(up, "skills", "review", "SKILL.md"), skillMD("review", "upstream steps"))
	gitCmd(t, up, "add", "-A")
	gitCmd(t, up, "-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-q", "-m", "c")
	s := newSyncStore(t)
	src, err := ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddPlugin(ctx, src, AddPluginOptions{ID: "kit"}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "review")
	if _, err := s.Checkout(ctx, "kit:review", dir, false); err != nil {
		t.Fatal(err)
	}
	edited := skillMD("review", "upstream steps, and mine")
	writeFile(t, filepath.Join(dir, "SKILL.md"), edited)
	copyDir := filepath.Join(t.TempDir(), "review")
	writeFile(t, filepath.Join(copyDir, "SKILL.md"), edited)

	if _, err := s.Add(ctx, []string{copyDir}, defaultAdd()); !errors.As(err, new(*ForeignFolderError)) {
		t.Fatalf("add of a folder no checkout wrote: %v, want a ForeignFolderError", err)
	}
	res, err := s.Add(ctx, []string{dir}, defaultAdd())
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Version.Skill != "kit:review" || res[0].Version.Number != 2 {
		t.Fatalf("add of the checked-out folder: %+v, want kit:review@v2", res)
	}
}
