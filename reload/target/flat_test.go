package target

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/reload"
)

// TestPlaceCollisionPolicy applies the flat-target policy to published
// sets with qualified names.
func TestPlaceCollisionPolicy(t *testing.T) {
	cases := []struct {
		name      string
		names     []string
		folders   map[string]string
		conflicts []string
	}{
		{"two plugins and a managed skill",
			[]string{"access", "chat:access", "slack:access", "chat:_plugin", "deploy"},
			map[string]string{"access": "access", "chat:access": "chat-access", "slack:access": "slack-access", "deploy": "deploy"}, nil},
		{"two plugins, no managed skill",
			[]string{"chat:access", "slack:access"},
			map[string]string{"chat:access": "chat-access", "slack:access": "slack-access"}, nil},
		{"no collision: plugin skills keep their short names",
			[]string{"superpowers:writing-plans", "superpowers:brainstorming", "superpowers:_plugin"},
			map[string]string{"superpowers:writing-plans": "writing-plans", "superpowers:brainstorming": "brainstorming"}, nil},
		{"renamed folder taken by a managed skill",
			[]string{"access", "chat:access", "chat-access"},
			map[string]string{"access": "access", "chat-access": "chat-access"}, []string{"chat:access"}},
		{"two renames meet",
			[]string{"a:b-c", "a-b:c", "b-c", "c"},
			map[string]string{"b-c": "b-c", "c": "c"}, []string{"a-b:c", "a:b-c"}},
		{"too long", []string{"x:" + strings.Repeat("n", 63), strings.Repeat("n", 63)},
			map[string]string{strings.Repeat("n", 63): strings.Repeat("n", 63)}, []string{"x:" + strings.Repeat("n", 63)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := place(c.names)
			if !reflect.DeepEqual(p.folder, c.folders) {
				t.Errorf("folders = %v, want %v", p.folder, c.folders)
			}
			var got []string
			for n := range p.conflicts {
				got = append(got, n)
			}
			if len(got) != len(c.conflicts) {
				t.Errorf("conflicts = %v, want %v", p.conflicts, c.conflicts)
			}
			for _, n := range c.conflicts {
				if p.conflicts[n] == "" {
					t.Errorf("%s: no conflict reported (%v)", n, p.conflicts)
				}
			}
			// Every skill is either placed or reported: none hides.
			for _, n := range c.names {
				_, placed := p.folder[n]
				_, refused := p.conflicts[n]
				if !strings.HasSuffix(n, ":_plugin") && placed == refused {
					t.Errorf("%s: placed %v, refused %v", n, placed, refused)
				}
			}
		})
	}
	p := place([]string{"access", "chat:access"})
	if why := place([]string{"access", "chat:access", "chat-access"}).conflicts["chat:access"]; !strings.Contains(why, "chat-access") || !strings.Contains(why, "claude-marketplace") {
		t.Errorf("conflict reason %q names neither the folder's owner nor the marketplace target", why)
	}
	if p.storeName("chat-access") != "chat:access" || p.storeName("nosuch") != "" {
		t.Errorf("storeName maps folders wrongly")
	}
}

// memSkill is a published skill held in memory, named by its store name,
// counting how often export loads it.
func memSkill(t testing.TB, name, short, body string, loads map[string]int) reload.Skill {
	files := skillMD("---\nname: " + short + "\ndescription: " + name + " skill.\n---\n" + body)
	tree, err := skillfs.TreeID(files)
	if err != nil {
		t.Fatal(err)
	}
	return reload.Skill{Name: name, Tree: tree, Load: func() ([]skillfs.File, error) {
		loads[name]++
		return files, nil
	}}
}

func readMD(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// resultsBySkill indexes results by skill; a removal that is part of a
// move is indexed as "SKILL moved-to FOLDER".
func resultsBySkill(rs []reload.Result) map[string]reload.Result {
	out := map[string]reload.Result{}
	for _, r := range rs {
		if r.MovedTo != "" {
			out[r.Skill+" moved-to "+r.MovedTo] = r
			continue
		}
		out[r.Skill] = r
	}
	return out
}

// TestExportFlatCollisions exports a published set with two plugins'
// access and a managed access to a flat target, again unchanged, then
// with a collision gone and a new one appearing: folders move and the
// report says so.
func TestExportFlatCollisions(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "skills")
	targets := []Target{{Name: "claude", Dir: dir}}
	loads := map[string]int{}
	managed := memSkill(t, "access", "access", "Managed.\n", loads)
	chat := memSkill(t, "chat:access", "access", "Chat.\n", loads)
	slack := memSkill(t, "slack:access", "access", "Slack.\n", loads)
	parts := memSkill(t, "chat:_plugin", "_plugin", "never exported\n", loads)
	eo := reload.ExportOptions{Grace: -1}

	out, err := exportPublished(ctx, []reload.Skill{managed, chat, slack, parts}, targets, eo)
	if err != nil {
		t.Fatal(err)
	}
	rs := resultsBySkill(out[0].Results)
	if len(rs) != 3 || rs["chat:access"].Folder != "chat-access" || rs["slack:access"].Folder != "slack-access" ||
		rs["access"].Folder != "" || rs["chat:access"].Action != reload.ActionCold {
		t.Fatalf("first export = %+v", out[0].Results)
	}
	if got := readMD(t, filepath.Join(dir, "chat-access")); got != "---\nname: chat-access\ndescription: chat:access skill.\n---\nChat.\n" {
		t.Errorf("chat-access/SKILL.md = %q", got)
	}
	if got := readMD(t, filepath.Join(dir, "access")); !strings.Contains(got, "Managed.") {
		t.Errorf("access/SKILL.md = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "_plugin")); err == nil {
		t.Errorf("plugin parts exported to a flat target")
	}
	var rec struct {
		Skills map[string]struct {
			StoreName string     `json:"store_name"`
			StoreTree skillfs.ID `json:"store_tree"`
		} `json:"skills"`
	}
	data, err := os.ReadFile(filepath.Join(dir, ".skillstore", "exported.json"))
	if err != nil || json.Unmarshal(data, &rec) != nil {
		t.Fatalf("record: %v", err)
	}
	if e := rec.Skills["chat-access"]; e.StoreName != "chat:access" || e.StoreTree != chat.Tree {
		t.Errorf("record of chat-access = %+v", e)
	}

	// Unchanged: nothing is loaded again, renamed skills included.
	before := loads["chat:access"] + loads["slack:access"] + loads["access"]
	out, err = exportPublished(ctx, []reload.Skill{managed, chat, slack}, targets, eo)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range out[0].Results {
		if r.Action != reload.ActionUnchanged {
			t.Errorf("second export: %+v", r)
		}
	}
	if after := loads["chat:access"] + loads["slack:access"] + loads["access"]; after != before {
		t.Errorf("an unchanged export loaded skills %d times", after-before)
	}

	// A new version of chat's SKILL.md text is a hot change of its
	// renamed folder.
	chat2 := memSkill(t, "chat:access", "access", "Chat, second version.\n", loads)
	out, err = exportPublished(ctx, []reload.Skill{managed, chat2, slack}, targets, eo)
	if err != nil {
		t.Fatal(err)
	}
	if r := resultsBySkill(out[0].Results)["chat:access"]; r.Action != reload.ActionHot || r.Folder != "chat-access" || len(r.Paths) != 1 {
		t.Errorf("chat:access v2: %+v", r)
	}
	if got := readMD(t, filepath.Join(dir, "chat-access")); !strings.HasPrefix(got, "---\nname: chat-access\n") || !strings.Contains(got, "second version") {
		t.Errorf("chat-access/SKILL.md = %q", got)
	}

	// The managed access and slack's go: chat's moves back to access.
	out, err = exportPublished(ctx, []reload.Skill{chat}, targets, eo)
	if err != nil {
		t.Fatal(err)
	}
	rs = resultsBySkill(out[0].Results)
	if r := rs["chat:access"]; r.Folder != "access" || r.MovedFrom != "chat-access" || r.Was != "access" {
		t.Errorf("chat:access moved back: %+v", r)
	}
	if r := rs["slack:access"]; r.Action != reload.ActionRemoved || r.Folder != "slack-access" {
		t.Errorf("slack:access: %+v", r)
	}
	if r := rs["chat:access moved-to access"]; r.Action != reload.ActionRemoved || r.Folder != "chat-access" {
		t.Errorf("chat:access's old folder: %+v", r)
	}
	if got := readMD(t, filepath.Join(dir, "access")); got != "---\nname: access\ndescription: chat:access skill.\n---\nChat.\n" {
		t.Errorf("access/SKILL.md = %q", got)
	}
	for _, gone := range []string{"chat-access", "slack-access"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); err == nil {
			t.Errorf("%s still there", gone)
		}
	}

	// A managed access appears later: chat's moves to chat-access, the
	// managed one takes the folder, and the report says both.
	out, err = exportPublished(ctx, []reload.Skill{chat, managed}, targets, eo)
	if err != nil {
		t.Fatal(err)
	}
	rs = resultsBySkill(out[0].Results)
	if r := rs["chat:access"]; r.Folder != "chat-access" || r.MovedFrom != "access" || r.Action != reload.ActionCold {
		t.Errorf("chat:access renamed: %+v", r)
	}
	if r := rs["access"]; r.Was != "chat:access" || r.Action != reload.ActionHot {
		t.Errorf("access taken over: %+v", r)
	}
}

// TestExportFlatLeavesEditedFolderOfAnotherSkill: a plugin skill's folder
// edited in the target is not handed to a managed skill of the same name
// that appears later; the edit stays, reported as chat:access's.
func TestExportFlatLeavesEditedFolderOfAnotherSkill(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "skills")
	targets := []Target{{Name: "claude", Dir: dir}}
	loads := map[string]int{}
	chat := memSkill(t, "chat:access", "access", "Chat.\n", loads)
	eo := reload.ExportOptions{Grace: -1}
	if _, err := exportPublished(ctx, []reload.Skill{chat}, targets, eo); err != nil {
		t.Fatal(err)
	}
	edited := "---\nname: access\ndescription: chat:access skill.\n---\nChat, edited.\n"
	if err := os.WriteFile(filepath.Join(dir, "access", "SKILL.md"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	managed := memSkill(t, "access", "access", "Managed.\n", loads)
	out, err := exportPublished(ctx, []reload.Skill{chat, managed}, targets, eo)
	if err != nil {
		t.Fatal(err)
	}
	rs := resultsBySkill(out[0].Results)
	if r := rs["access"]; r.Action != reload.ActionLocallyModified || r.Was != "chat:access" {
		t.Errorf("access: %+v", r)
	}
	if got := readMD(t, filepath.Join(dir, "access")); got != edited {
		t.Errorf("the edit was overwritten: %q", got)
	}
	sts, err := reload.Status(ctx, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range sts {
		if st.State == reload.StateModified && (st.Skill != "chat:access" || st.Folder != "access") {
			t.Errorf("status names the edit %+v", st)
		}
	}
}

// TestWantsFolderMapsRenamedFolders: a target's patterns name store
// names; the watcher asks by folder.
func TestWantsFolderMapsRenamedFolders(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "skills")
	loads := map[string]int{}
	set := []reload.Skill{memSkill(t, "access", "access", "M.\n", loads), memSkill(t, "chat:access", "access", "C.\n", loads)}
	if _, err := exportPublished(ctx, set, []Target{{Name: "all", Dir: dir}}, reload.ExportOptions{Grace: -1}); err != nil {
		t.Fatal(err)
	}
	want := Target{Name: "chat", Dir: dir, Skills: []string{"chat:*"}}.WantsFolder()
	if !want("chat-access") || want("access") || want("other") {
		t.Errorf("WantsFolder: chat-access %v, access %v, other %v", want("chat-access"), want("access"), want("other"))
	}
}

// TestExportFlatConflictIsReported: a plugin skill whose renamed folder is
// a managed skill's is not exported, and the report names both.
func TestExportFlatConflictIsReported(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "skills")
	loads := map[string]int{}
	set := []reload.Skill{
		memSkill(t, "access", "access", "M.\n", loads),
		memSkill(t, "chat:access", "access", "C.\n", loads),
		memSkill(t, "chat-access", "chat-access", "Another managed skill.\n", loads),
	}
	out, err := exportPublished(ctx, set, []Target{{Name: "claude", Dir: dir}}, reload.ExportOptions{Grace: -1})
	if err != nil {
		t.Fatal(err)
	}
	rs := resultsBySkill(out[0].Results)
	r := rs["chat:access"]
	if r.Action != reload.ActionConflict || !r.Action.Skipped() || !strings.Contains(r.Error, "chat-access") {
		t.Errorf("chat:access: %+v", r)
	}
	if rs["access"].Action != reload.ActionCold || rs["chat-access"].Action != reload.ActionCold || len(rs) != 3 {
		t.Errorf("results: %+v", out[0].Results)
	}
	if got := readMD(t, filepath.Join(dir, "chat-access")); !strings.Contains(got, "Another managed skill.") {
		t.Errorf("chat-access/SKILL.md = %q", got)
	}
	if loads["chat:access"] != 0 {
		t.Errorf("a skill in conflict was read")
	}
}

// TestExportFlatTakeoverOfRenamedFolders: a folder export did not create
// that holds exactly the renamed version is adopted; another is foreign,
// reported under the plugin skill's name with its folder.
func TestExportFlatTakeoverOfRenamedFolders(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "skills")
	loads := map[string]int{}
	chat := memSkill(t, "chat:access", "access", "C.\n", loads)
	slack := memSkill(t, "slack:access", "access", "S.\n", loads)
	files, _ := chat.Load()
	renamed, err := renameSkill(files, "chat-access")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "chat-access"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := reload.WriteFiles(filepath.Join(dir, "chat-access"), renamed); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "slack-access"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "slack-access", "SKILL.md"), []byte("---\nname: slack-access\ndescription: mine\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exportPublished(ctx, []reload.Skill{chat, slack}, []Target{{Name: "claude", Dir: dir}}, reload.ExportOptions{Grace: -1})
	if err != nil {
		t.Fatal(err)
	}
	rs := resultsBySkill(out[0].Results)
	if r := rs["chat:access"]; r.Action != reload.ActionAdopted || r.Folder != "chat-access" {
		t.Errorf("chat:access: %+v", r)
	}
	if r := rs["slack:access"]; r.Action != reload.ActionForeign || r.Folder != "slack-access" {
		t.Errorf("slack:access: %+v", r)
	}
}
