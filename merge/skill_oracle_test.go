package merge

import (
	"bytes"
	"fmt"
	"github.com/skillstore/skillstore/internal/gitmerge"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// skillKey is one top-level frontmatter key of a generated SKILL.md.
type skillKey struct {
	name  string
	lines []string // the key's lines, "name: value" first
}

// genSkill renders keys and body as a SKILL.md.
func genSkill(keys []skillKey, body []string) []byte {
	var b strings.Builder
	b.WriteString("---\n")
	for _, k := range keys {
		for _, l := range k.lines {
			b.WriteString(l + "\n")
		}
	}
	b.WriteString("---\n")
	for _, l := range body {
		b.WriteString(l + "\n")
	}
	return []byte(b.String())
}

func randomKey(r *rand.Rand, name string) skillKey {
	switch name {
	case "metadata":
		return skillKey{name, []string{"metadata:", fmt.Sprintf("  owner: team%d", r.IntN(3)), fmt.Sprintf("  version: %d", r.IntN(3))}}
	case "tags":
		k := skillKey{name, []string{"tags:"}}
		for range 1 + r.IntN(2) {
			k.lines = append(k.lines, fmt.Sprintf("  - t%d", r.IntN(3)))
		}
		return k
	}
	return skillKey{name, []string{fmt.Sprintf("%s: value %d", name, r.IntN(3))}}
}

var skillKeyNames = []string{"name", "description", "license", "allowed-tools", "model", "version", "metadata", "tags"}

// editSkill applies random key-level edits: change, add, delete, nested change.
func editSkill(r *rand.Rand, keys []skillKey, body []string) ([]skillKey, []string) {
	keys = slices.Clone(keys)
	body = slices.Clone(body)
	for range 1 + r.IntN(3) {
		switch op := r.IntN(5); {
		case op == 0 && len(keys) > 0: // change a value
			i := r.IntN(len(keys))
			keys[i] = randomKey(r, keys[i].name)
		case op == 1: // add a key that is missing
			var missing []string
			for _, n := range skillKeyNames {
				if !slices.ContainsFunc(keys, func(k skillKey) bool { return k.name == n }) {
					missing = append(missing, n)
				}
			}
			if len(missing) > 0 {
				at := r.IntN(len(keys) + 1)
				keys = slices.Insert(keys, at, randomKey(r, missing[r.IntN(len(missing))]))
			}
		case op == 2 && len(keys) > 1: // delete a key
			i := r.IntN(len(keys))
			keys = slices.Delete(keys, i, i+1)
		case op == 3: // nested change
			for i, k := range keys {
				if k.name == "metadata" {
					k.lines = slices.Clone(k.lines)
					j := 1 + r.IntN(2)
					k.lines[j] = strings.SplitN(k.lines[j], ":", 2)[0] + fmt.Sprintf(": x%d", r.IntN(3))
					keys[i] = k
				}
			}
		default: // body edit
			if len(body) > 0 && r.IntN(2) == 0 {
				body[r.IntN(len(body))] = fmt.Sprintf("body line %d", r.IntN(5))
			}
		}
	}
	return keys, body
}

// frontmatterValues decodes a SKILL.md's frontmatter and body.
func frontmatterValues(t *testing.T, data []byte) (map[string]any, []byte) {
	t.Helper()
	fm, ok := splitFrontmatter(string(data))
	if !ok {
		t.Fatalf("merged SKILL.md has no valid frontmatter:\n%s", data)
	}
	var v map[string]any
	if err := yaml.Unmarshal([]byte(strings.Join(fm.lines, "")), &v); err != nil {
		t.Fatal(err)
	}
	return v, []byte(fm.body)
}

// expectMerge is the four-case rule on decoded values, recursing into maps;
// ok is false when a key conflicts.
func expectMerge(b, o, t map[string]any) (map[string]any, bool) {
	out := map[string]any{}
	keys := map[string]bool{}
	for _, m := range []map[string]any{b, o, t} {
		for k := range m {
			keys[k] = true
		}
	}
	for k := range keys {
		bv, bok := b[k]
		ov, ook := o[k]
		tv, tok := t[k]
		same := func(x any, xok bool, y any, yok bool) bool { return xok == yok && reflect.DeepEqual(x, y) }
		var v any
		var present bool
		switch {
		case same(ov, ook, tv, tok), same(bv, bok, tv, tok):
			v, present = ov, ook
		case same(bv, bok, ov, ook):
			v, present = tv, tok
		default:
			bm, ok1 := bv.(map[string]any)
			om, ok2 := ov.(map[string]any)
			tm, ok3 := tv.(map[string]any)
			if !ok1 || !ok2 || !ok3 {
				return nil, false
			}
			m, ok := expectMerge(bm, om, tm)
			if !ok {
				return nil, false
			}
			v, present = m, true
		}
		if present {
			out[k] = v
		}
	}
	return out, true
}

// TestOracleSkillMD compares SkillMD with git merge-file on generated
// SKILL.md triples. Where git merges cleanly, SkillMD gives the same bytes,
// and so does it where it falls back to the line merge.
// Where git conflicts and SkillMD merges the frontmatter key by key, the
// result must hold both sides' changes: its frontmatter decodes to the
// key-by-key merge of the three versions, and its body is git's merge of the
// bodies.
func TestOracleSkillMD(t *testing.T) {
	gitmerge.Require(t)
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(7, 11))
	n := 1000
	if testing.Short() {
		n = 100
	}
	var gitClean, gitConflict, resolved, awareResolved int
	for i := range n {
		var keys []skillKey
		for _, name := range skillKeyNames {
			if r.IntN(3) > 0 {
				keys = append(keys, randomKey(r, name))
			}
		}
		body := []string{"", "# Skill", "body line 1", "body line 2"}
		ko, bo := editSkill(r, keys, body)
		kt, bt := editSkill(r, keys, body)
		base, ours, theirs := genSkill(keys, body), genSkill(ko, bo), genSkill(kt, bt)

		want, code := gitmerge.MergeFile(t, dir, base, ours, theirs, "--diff3")
		got, err := SkillMD(base, ours, theirs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// The skill-aware rules: git's bytes where git is clean, and the
		// properties of checkSkillAware where it is not.
		aware, err := SkillMD(base, ours, theirs, Options{SkillAware: true})
		if err != nil {
			t.Fatal(err)
		}
		if code == 0 && !bytes.Equal(aware.Merged, want) {
			t.Errorf("case %d: git merges cleanly, the skill-aware SkillMD differs:\n%s\ngit:\n%s", i, aware.Merged, want)
		}
		if err := checkSkillAware(got, aware, Labels{Ours: "ours", Base: "base", Theirs: "theirs"}); err != nil {
			t.Errorf("case %d: skill-aware: %v", i, err)
		}
		if code != 0 && !got.Clean() && aware.Clean() {
			awareResolved++
		}
		if code == 0 {
			gitClean++
			if !got.Clean() || !bytes.Equal(got.Merged, want) {
				t.Errorf("case %d: git merges cleanly, SkillMD differs\nbase:\n%s\nours:\n%s\ntheirs:\n%s\ngit:\n%s\ngot:\n%s", i, base, ours, theirs, want, got.Merged)
			}
			continue
		}
		gitConflict++
		if !got.Frontmatter {
			if !bytes.Equal(got.Merged, want) || len(got.Conflicts) != code {
				t.Errorf("case %d: the line merge differs from git's (%d conflicts, git %d):\n%s\ngit:\n%s", i, len(got.Conflicts), code, got.Merged, want)
			}
			continue
		}
		if got.Clean() {
			resolved++
		}
		vb, bodyB := frontmatterValues(t, base)
		vo, bodyO := frontmatterValues(t, ours)
		vt, bodyT := frontmatterValues(t, theirs)
		vm, bodyM := frontmatterValues(t, got.Merged)
		wantFM, ok := expectMerge(vb, vo, vt)
		if !ok {
			t.Errorf("case %d: frontmatter merged although a key conflicts:\n%s", i, got.Merged)
			continue
		}
		if !reflect.DeepEqual(vm, wantFM) {
			t.Errorf("case %d: merged frontmatter %v, want %v\nbase:\n%s\nours:\n%s\ntheirs:\n%s\ngot:\n%s", i, vm, wantFM, base, ours, theirs, got.Merged)
		}
		wantBody, bodyCode := gitmerge.MergeFile(t, dir, bodyB, bodyO, bodyT, "--diff3")
		if (bodyCode == 0) != got.Clean() || bodyCode == 0 && !bytes.Equal(bodyM, wantBody) {
			t.Errorf("case %d: body differs from git's merge of the bodies:\n%s\nwant:\n%s", i, bodyM, wantBody)
		}
	}
	t.Logf("%d SKILL.md triples: git clean %d (SkillMD identical), git conflicted %d, of which the frontmatter merge resolved %d (%.1f%%) and the skill-aware rules %d more",
		n, gitClean, gitConflict, resolved, pct(resolved, gitConflict), awareResolved)
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}
