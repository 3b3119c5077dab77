package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestClaudeCodeConnectsToMCP registers 'skillstore mcp' with the real
// Claude Code CLI (claude mcp add) and has it start the server, speak the
// handshake and report it connected (claude mcp list), with no account.
func TestClaudeCodeConnectsToMCP(t *testing.T) {
	cc := newClaudeCLI(t)
	storeDir := filepath.Join(t.TempDir(), "store")
	skill := filepath.Join(t.TempDir(), "pdf-forms")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: pdf-forms\ndescription: Fill in PDF forms.\n---\nUse pdftk.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, storeDir, "init")
	mustRun(t, storeDir, "add", skill)

	cc.must("Added stdio MCP server skillstore", "mcp", "add", "skillstore", "--", skillstoreBin(t), "--store", storeDir, "mcp")
	// A server on a store that does not exist exits at once: Claude Code
	// must not see it connected (the check below can fail).
	cc.must("Added stdio MCP server broken", "mcp", "add", "broken", "--", skillstoreBin(t), "--store", filepath.Join(t.TempDir(), "none"), "mcp")
	out, _ := cc.run("mcp", "list")
	connected := regexp.MustCompile(`(?m)^(\S+): .* - [✓✔] Connected\s*$`)
	var up []string
	for _, m := range connected.FindAllStringSubmatch(out, -1) {
		up = append(up, m[1])
	}
	if len(up) != 1 || up[0] != "skillstore" {
		t.Errorf("claude mcp list reports %v connected, want [skillstore]:\n%s", up, out)
	}
}
