package tags

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

func newStore(t *testing.T, names ...string) *store.Store {
	t.Helper()
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "gitconfig"))
	ctx := context.Background()
	tmp := t.TempDir()
	s, err := store.Init(ctx, filepath.Join(tmp, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var srcs []string
	for _, n := range names {
		dir := filepath.Join(tmp, "src", n)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		md := "---\nname: " + n + "\ndescription: The " + n + " skill.\n---\nBody.\n"
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, dir)
	}
	if _, err := s.Add(ctx, srcs, store.AddOptions{AllowRisk: safety.DefaultAllowedRisk}); err != nil {
		t.Fatal(err)
	}
	return s
}

// Tags are state records: Add takes the skills patterns select (a
// pattern selecting none refuses the whole call), Remove takes some off
// or deletes the tag, and Read gives them to the selection.
func TestAddRemove(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, "deploy", "deploy-docs", "lint")
	added, err := Add(ctx, s, "ops", []string{"deploy*"})
	if err != nil || !reflect.DeepEqual(added, []string{"deploy", "deploy-docs"}) {
		t.Fatalf("Add = %v, %v", added, err)
	}
	var nm *NoMatchError
	if _, err := Add(ctx, s, "ops", []string{"lint", "nosuch"}); !errors.As(err, &nm) || !reflect.DeepEqual(nm.Patterns, []string{"nosuch"}) {
		t.Fatalf("Add of an unknown skill: %v", err)
	}
	if _, err := Add(ctx, s, "Ops", []string{"lint"}); err == nil {
		t.Error("a tag with a capital letter was accepted")
	}
	all, err := List(ctx, s)
	if err != nil || !reflect.DeepEqual(all, map[string][]string{"ops": {"deploy", "deploy-docs"}}) {
		t.Fatalf("List = %v, %v (lint must not be tagged: the call that named nosuch wrote nothing)", all, err)
	}
	if removed, err := Remove(ctx, s, "ops", []string{"deploy-docs"}); err != nil || !reflect.DeepEqual(removed, []string{"deploy-docs"}) {
		t.Fatalf("Remove = %v, %v", removed, err)
	}
	if _, err := Remove(ctx, s, "ops", []string{"lint"}); err == nil {
		t.Error("untagging a skill the tag does not hold succeeded")
	}
	if removed, err := Remove(ctx, s, "ops", nil); err != nil || !reflect.DeepEqual(removed, []string{"deploy"}) {
		t.Fatalf("Remove of the tag = %v, %v", removed, err)
	}
	if all, _ := List(ctx, s); len(all) != 0 {
		t.Errorf("tags left: %v", all)
	}
	if _, err := Remove(ctx, s, "ops", nil); err == nil {
		t.Error("removing an absent tag succeeded")
	}
}
