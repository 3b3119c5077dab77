package store

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestResolveSkillNames: qualified names always resolve, short names when
// one published skill has them; an ambiguous short name lists every
// qualified name, and unknown plugins and skills say which part is wrong.
// Plugin skills are published refs under refs/heads/plugins/ (layout 2),
// made here with git itself, packed and loose.
func TestResolveSkillNames(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	src := t.TempDir()
	for _, n := range []string{"skill-creator", "solo", "deploy"} {
		writeSkill(t, src, n, "does "+n, nil)
	}
	if _, err := s.Add(ctx, []string{src + "/skill-creator", src + "/solo", src + "/deploy"}, defaultAdd()); err != nil {
		t.Fatal(err)
	}
	head := func(name string) string {
		var h Hash
		if err := s.View(ctx, func(r *Reader) error { v, err := r.Head(name); h = v.Commit; return err }); err != nil {
			t.Fatal(err)
		}
		return h.String()
	}
	for _, ref := range []string{"plugins/anthropic/skill-creator", "plugins/openai/skill-creator", "plugins/chat-a/access", "plugins/chat-b/access", "plugins/kit/only-kit"} {
		gitCmd(t, s.Dir(), "update-ref", "refs/heads/"+ref, head("solo"))
	}
	gitCmd(t, s.Dir(), "pack-refs", "--all")
	gitCmd(t, s.Dir(), "update-ref", "refs/heads/plugins/loose/access", head("solo"))

	resolve := func(in string) (string, error) {
		var out string
		err := s.View(ctx, func(r *Reader) error {
			var err error
			out, err = r.ResolveSkill(in)
			return err
		})
		return out, err
	}
	for in, want := range map[string]string{
		"solo": "solo", "deploy": "deploy", "only-kit": "kit:only-kit",
		// A managed skill's qualified name is its bare name, even where
		// plugins ship skills of that name.
		"skill-creator":           "skill-creator",
		"anthropic:skill-creator": "anthropic:skill-creator", "openai:skill-creator": "openai:skill-creator",
		"chat-a:access": "chat-a:access", "loose:access": "loose:access",
	} {
		if got, err := resolve(in); err != nil || got != want {
			t.Errorf("ResolveSkill(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string][]string{
		"access": {"chat-a:access", "chat-b:access", "loose:access"},
	} {
		_, err := resolve(in)
		var amb *AmbiguousSkillError
		if !errors.As(err, &amb) || !slices.Equal(amb.Matches, want) {
			t.Errorf("ResolveSkill(%q) = %v; want ambiguous among %v", in, err, want)
		}
	}
	_, err := resolve("nope:access")
	var up *UnknownPluginSkillError
	if !errors.As(err, &up) || up.Plugin != "nope" || !errors.Is(err, ErrUnknownPlugin) {
		t.Errorf("unknown plugin: %v", err)
	}
	_, err = resolve("kit:access")
	var ups *PluginLacksSkillError
	if !errors.As(err, &ups) || ups.Plugin != "kit" || ups.Skill != "access" || !errors.As(err, new(*UnknownSkillError)) {
		t.Errorf("unknown skill of a plugin: %v", err)
	}
	if _, err := resolve("missing"); !errors.As(err, new(*UnknownSkillError)) {
		t.Errorf("unknown short name: %v", err)
	}
	if got, err := resolve(":skill-creator"); err != nil || got != "skill-creator" {
		t.Errorf(":skill-creator = %q, %v; want the managed skill-creator", got, err)
	}
	if _, err := resolve(":access"); !errors.As(err, new(*UnknownSkillError)) {
		t.Errorf(":access (no managed access) = %v", err)
	}
	if got, err := s.ResolveSpec(ctx, ":skill-creator@v1"); err != nil || got != "skill-creator@v1" {
		t.Errorf("ResolveSpec(:skill-creator@v1) = %q, %v", got, err)
	}
	for _, bad := range []string{"", ":", "a:", "::b", ":B", "a:b:c", "a/b", "A:b"} {
		if _, err := resolve(bad); !errors.As(err, new(*InvalidNameError)) {
			t.Errorf("ResolveSkill(%q) = %v; want an invalid name", bad, err)
		}
	}
	// Candidates of skills not published yet are found by their refs.
	gitCmd(t, s.Dir(), "update-ref", "refs/heads/candidates/plugins/kit/fresh", head("solo"))
	gitCmd(t, s.Dir(), "update-ref", "refs/heads/candidates/plugins/kit/twice", head("solo"))
	gitCmd(t, s.Dir(), "update-ref", "refs/heads/candidates/plugins/chat-a/twice", head("solo"))
	candidate := func(in string) (string, error) {
		var out string
		err := s.View(ctx, func(r *Reader) error { var err error; out, err = r.ResolveCandidateName(in); return err })
		return out, err
	}
	for in, want := range map[string]string{"fresh": "kit:fresh", "kit:fresh": "kit:fresh", "nothing": "nothing", "only-kit": "kit:only-kit"} {
		if got, err := candidate(in); err != nil || got != want {
			t.Errorf("ResolveCandidateName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := candidate("twice"); !errors.As(err, new(*AmbiguousSkillError)) {
		t.Errorf("two plugins' candidates of one name: %v", err)
	}
	if _, err := candidate("access"); !errors.As(err, new(*AmbiguousSkillError)) {
		t.Errorf("a published ambiguous name: %v", err)
	}
	if got, err := s.ResolveSpec(ctx, "only-kit@v1"); err != nil || got != "kit:only-kit@v1" {
		t.Errorf("ResolveSpec = %q, %v", got, err)
	}
	if got, err := s.ResolveSpec(ctx, "chat-b:access@abcd"); err != nil || got != "chat-b:access@abcd" {
		t.Errorf("ResolveSpec qualified = %q, %v", got, err)
	}
}
