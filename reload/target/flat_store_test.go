package target

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/candidates"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/pluginsync"
	"github.com/skillstore/skillstore/store/safety"
)

// flatStore is a store with plugin chat's access and a managed access,
// exported to one flat target.
func flatStore(t *testing.T) (context.Context, *store.Store, []Target, string, string) {
	t.Helper()
	noGitIdentity(t)
	ctx := context.Background()
	tmp := t.TempDir()
	s, err := store.Init(ctx, filepath.Join(tmp, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	plugin := filepath.Join(tmp, "chat")
	writeSkill(t, filepath.Join(plugin, "skills", "access"), "Line one.\nLine two.\nLine three.\n")
	if _, err := pluginsync.Add(ctx, s, plugins.Source{Kind: plugins.SourceFolder, URL: plugin}, pluginsync.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	writeSkill(t, filepath.Join(tmp, "managed", "access"), "Managed.\n")
	if _, err := s.Add(ctx, []string{filepath.Join(tmp, "managed", "access")}, store.AddOptions{AllowRisk: safety.DefaultAllowedRisk, As: "access"}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "agent")
	if err := Add(ctx, s, Target{Name: "claude", Dir: dir}); err != nil {
		t.Fatal(err)
	}
	targets, err := List(ctx, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Export(ctx, s, targets, Options{}); err != nil {
		t.Fatal(err)
	}
	return ctx, s, targets, dir, tmp
}

// TestCaptureRenamedFolderWhileStoreMoved: an edit in chat-access/ made
// while chat:access got a new version is merged three-way on the store's
// trees (the renamed tree is not in the store), and the candidate's
// SKILL.md has the stored name line.
func TestCaptureRenamedFolderWhileStoreMoved(t *testing.T) {
	ctx, s, targets, dir, tmp := flatStore(t)
	md := filepath.Join(dir, "chat-access", "SKILL.md")
	data, err := os.ReadFile(md)
	if err != nil || !strings.HasPrefix(string(data), "---\nname: chat-access\n") {
		t.Fatalf("chat-access/SKILL.md = %q, %v", data, err)
	}
	// The store moves on: a new version of chat:access (line three).
	next := filepath.Join(tmp, "next", "access")
	writeSkill(t, next, "Line one.\nLine two.\nLine three, newer.\n")
	if _, err := s.Add(ctx, []string{next}, store.AddOptions{As: "chat:access", AllowRisk: safety.DefaultAllowedRisk}); err != nil {
		t.Fatal(err)
	}
	// The person edits line one in the target.
	edited := strings.Replace(string(data), "Line one.", "Line one, edited.", 1)
	if err := os.WriteFile(md, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	sts, err := Status(ctx, s, targets, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var st SkillStatus
	for _, x := range sts {
		if x.Skill == "chat:access" {
			st = x
		}
	}
	if st.State != reload.StateModified || st.Folder != "chat-access" || st.StoreTree.IsZero() {
		t.Fatalf("status of chat:access = %+v (all: %+v)", st, sts)
	}
	res, err := Capture(ctx, s, targets, CaptureOptions{})
	if err != nil || len(res) != 1 || res[0].Outcome != Candidate || len(res[0].Conflicts) != 0 {
		t.Fatalf("Capture = %+v, %v", res, err)
	}
	err = s.View(ctx, func(r *store.Reader) error {
		c, err := candidates.Get(r, "chat:access")
		if err != nil {
			return err
		}
		files, err := r.LoadFiles(c.Tree)
		if err != nil {
			return err
		}
		f, _ := skillfs.Find(files, "SKILL.md")
		if got := string(f.Data); !strings.Contains(got, "name: access\n") || !strings.Contains(got, "Line one, edited.") || !strings.Contains(got, "Line three, newer.") {
			t.Errorf("candidate SKILL.md = %q", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestStatusOutdatedWhenFolderMoves: once the collision goes away, the
// renamed folder is outdated (the next export moves it), and a raced edit
// of a renamed folder whose version is no longer recorded is refused with
// a message saying what to do.
func TestStatusOutdatedWhenFolderMoves(t *testing.T) {
	ctx, s, targets, dir, _ := flatStore(t)
	if err := s.SetStatus(ctx, "access", store.StatusDisabled, "test"); err != nil {
		t.Fatal(err)
	}
	sts, err := Status(ctx, s, targets, Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, st := range sts {
		if st.Skill == "chat:access" {
			found = true
			if !st.Outdated || st.Folder != "chat-access" {
				t.Errorf("chat:access = %+v", st)
			}
		}
	}
	if !found {
		t.Fatalf("status = %+v", sts)
	}
	err = s.Update(ctx, func(tx *store.Tx) error {
		_, _, err := unrename(tx, SkillStatus{SkillStatus: reload.SkillStatus{Skill: "chat:access", Folder: "chat-access",
			State: reload.StateRaced, Dir: filepath.Join(dir, ".skillstore", "rescued", "x")}}, nil)
		if err == nil || !strings.Contains(err.Error(), "by hand") {
			t.Errorf("unrename of a raced edit without its version: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
