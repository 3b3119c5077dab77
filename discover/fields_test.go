package discover

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// claudeSkill uses Claude Code's extended frontmatter, two keys in their
// snake_case spelling, and values JSON cannot hold as YAML writes them.
const claudeSkill = `---
name: release
description: Cut a release.
when_to_use: When the user asks for a release.
argument-hint: [version]
allowed_tools: Read, Bash(git tag *)
disable_model_invocation: true
user-invocable: true
model: sonnet
context: fork
agent: general-purpose
paths: "src/**, docs/**"
hooks:
  PreToolUse:
    - matcher: Bash
      hooks: [{type: command, command: ./check.sh}]
version: 1.2.0
license: MIT
compatibility: Needs git.
metadata:
  owner: release-team
limits: {1: one, .inf: forever}
ratio: .nan
---
Tag, then push.
`

func TestExtendedFrontmatterFields(t *testing.T) {
	sf, diags := ValidateFile("release/SKILL.md", "release", []byte(claudeSkill), Lenient)
	if sf == nil || HasErrors(diags) {
		t.Fatalf("not loaded: %v", diags)
	}
	fields := sf.Frontmatter.Fields()
	data, err := json.Marshal(fields)
	if err != nil {
		t.Fatalf("fields cannot be written as JSON: %v", err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"name": "release", "description": "Cut a release.", "when_to_use": "When the user asks for a release.",
		"argument-hint": "[version]", "allowed-tools": []any{"Read", "Bash(git tag *)"},
		"disable-model-invocation": true, "user-invocable": true, "model": "sonnet", "context": "fork",
		"agent": "general-purpose", "paths": []any{"src/**", "docs/**"},
		"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash",
			"hooks": []any{map[string]any{"type": "command", "command": "./check.sh"}}}}},
		"version": "1.2.0", "license": "MIT", "compatibility": "Needs git.",
		"metadata": map[string]any{"owner": "release-team"},
		"limits":   map[string]any{"1": "one", "+Inf": "forever"},
		"ratio":    "NaN",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fields:\n%s", data)
		for k, v := range want {
			if !reflect.DeepEqual(got[k], v) {
				t.Errorf("%s = %#v, want %#v", k, got[k], v)
			}
		}
	}
	var spelling []string
	for _, d := range diags {
		if strings.Contains(d.Message, "is read here as") {
			spelling = append(spelling, d.String())
		}
	}
	wantSpelling := []string{
		"release/SKILL.md:6: warning: allowed_tools is read here as allowed-tools, but Claude Code reads only the spelling its docs use and ignores this one; rename it allowed-tools",
		"release/SKILL.md:7: warning: disable_model_invocation is read here as disable-model-invocation, but Claude Code reads only the spelling its docs use and ignores this one; rename it disable-model-invocation",
	}
	if !reflect.DeepEqual(spelling, wantSpelling) {
		t.Errorf("spelling warnings:\n%s", strings.Join(spelling, "\n"))
	}
}

func TestBothSpellingsOfAKey(t *testing.T) {
	for _, fm := range []string{
		"allowed-tools: Read\nallowed_tools: Write\n",
		"allowed_tools: Read\nallowed-tools: Write\n",
	} {
		data := "---\nname: x\ndescription: X.\n" + fm + "---\nbody\n"
		sf, diags := ValidateFile("x/SKILL.md", "x", []byte(data), Lenient)
		if sf == nil || HasErrors(diags) {
			t.Fatalf("%q: %v", fm, diags)
		}
		if got := sf.Frontmatter.AllowedTools; !reflect.DeepEqual(got, []string{"Read"}) {
			t.Errorf("%q: allowed-tools %v, want the first one given", fm, got)
		}
		found := false
		for _, d := range diags {
			found = found || (d.Line == 5 && strings.Contains(d.Message, "this one is ignored"))
		}
		if !found {
			t.Errorf("%q: no warning on line 5: %v", fm, diags)
		}
	}
}

// TestEveryDocumentedKeyIsKnown: each key an agent documents (agents.go)
// is typed, never an unknown key, and the lenient policy takes a skill
// that sets it without a word.
func TestEveryDocumentedKeyIsKnown(t *testing.T) {
	values := map[string]string{
		"metadata": "\n  owner: me", "hooks": "\n  Stop: []", "background": "false", "user-invocable": "true",
		"disable-model-invocation": "false", "context": "fork", "effort": "high", "shell": "bash",
		"default-enabled": "no",
	}
	for _, a := range agentKeys {
		for _, k := range a.keys {
			if k == "name" || k == "description" {
				continue
			}
			v, ok := values[k]
			if !ok {
				v = "x"
			}
			data := "---\nname: k\ndescription: K.\ncontext: fork\n" + k + ": " + v + "\n---\nbody\n"
			if k == "context" {
				data = "---\nname: k\ndescription: K.\ncontext: fork\n---\nbody\n"
			}
			sf, diags := ValidateFile("k/SKILL.md", "k", []byte(data), Lenient)
			if sf == nil || len(sf.Frontmatter.Unknown) != 0 || len(diags) != 0 {
				t.Errorf("%s key %q: unknown %v, findings %v", a.agent, k, sf.Frontmatter.Unknown, diags)
			}
		}
	}
}

// Claude Code reads display-name, default-enabled and fallback in any case
// style: each spelling is the documented key, no unknown key, no finding.
func TestCaseStyledKeys(t *testing.T) {
	for _, spelling := range []string{"display-name: Deploy", "displayName: Deploy", "display_name: Deploy", "DisplayName: Deploy",
		"defaultEnabled: off", "default_enabled: yes", "fallback: true", "Fallback: true"} {
		data := "---\nname: k\ndescription: K.\n" + spelling + "\n---\nbody\n"
		sf, diags := ValidateFile("k/SKILL.md", "k", []byte(data), Lenient)
		if sf == nil || len(sf.Frontmatter.Unknown) != 0 || len(diags) != 0 {
			t.Errorf("%q: unknown %v, findings %v", spelling, sf.Frontmatter.Unknown, diags)
			continue
		}
		fm := sf.Frontmatter
		if fm.DisplayName == "" && fm.DefaultEnabled == nil && fm.Fallback == nil {
			t.Errorf("%q: read as no key", spelling)
		}
	}
	data := "---\nname: k\ndescription: K.\ndisplayName: A\ndisplay-name: B\n---\nbody\n"
	if sf, diags := ValidateFile("k/SKILL.md", "k", []byte(data), Lenient); sf != nil || len(diags) == 0 || !strings.Contains(diags[0].String(), "repeat") {
		t.Errorf("a key in two case styles: %v", diags)
	}
}
