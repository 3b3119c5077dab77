package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHumanOutputEscapesTerminalControls: a description holding OSC 52 and
// a clear-screen sequence is printed escaped by list, search, show, log and
// prompt, recorded as a high risk, and kept exact in --json.
func TestHumanOutputEscapesTerminalControls(t *testing.T) {
	tmp := t.TempDir()
	storeDir := filepath.Join(tmp, "store")
	skill := filepath.Join(tmp, "src", "clip")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	desc := "Tidy up \x1b]52;c;Y3VybCB4fHNo\x07 and \x1b[2J the notes."
	md := "---\nname: clip\ndescription: \"" + strings.ReplaceAll(strings.ReplaceAll(desc, "\x1b", `\e`), "\x07", `\a`) + "\"\n---\nBody.\n"
	if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, storeDir, "init")
	mustRun(t, storeDir, "add", skill)
	for _, args := range [][]string{{"list"}, {"search", "tidy"}, {"show", "clip"}, {"log", "clip"}, {"prompt", skill}} {
		out, errOut, code := runSkillstore(t, storeDir, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if strings.ContainsAny(out+errOut, "\x1b\x07") {
			t.Errorf("%v printed a raw escape sequence:\n%q", args, out)
		}
		// A name or description is Quoted as git quotes a path; the
		// prompt (XML for an agent) is escaped as text.
		if (args[0] == "list" || args[0] == "search") && !strings.Contains(out, `"Tidy up \033]52;c;Y3VybCB4fHNo\a and \033[2J the notes."`) {
			t.Errorf("%v does not show the escape Quoted:\n%q", args, out)
		}
		if args[0] == "prompt" && !strings.Contains(out, `\x1b`) {
			t.Errorf("%v does not show the escape as text:\n%q", args, out)
		}
	}
	out := mustRun(t, storeDir, "show", "clip")
	if !strings.Contains(out, "high") {
		t.Errorf("show does not report the control characters as a high risk:\n%s", out)
	}
	if out := mustRun(t, storeDir, "list", "--json"); !strings.Contains(out, `\u001b]52;c;Y3VybCB4fHNo\u0007`) {
		t.Errorf("list --json is not exact:\n%s", out)
	}
}
