package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodexMCPConfigMatchesPrintConfig runs the command that
// 'skillstore mcp --print-config codex' suggests with the real Codex CLI
// and checks that what Codex writes into its config.toml is the snippet
// skillstore prints for people who edit the file by hand. (Codex starts
// MCP servers only in a session, which needs a login, so this is as far
// as a test without an account goes; Claude Code's check starts the
// server: TestClaudeCodeConnectsToMCP.)
func TestCodexMCPConfigMatchesPrintConfig(t *testing.T) {
	bin, err := exec.LookPath("codex")
	if err != nil {
		t.Skip(codexSkip)
	}
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	storeDir := filepath.Join(tmp, "store")
	mustRun(t, storeDir, "init")
	var cfg struct{ Command, Snippet string }
	if err := json.Unmarshal([]byte(mustRun(t, storeDir, "mcp", "--print-config", "codex", "--json")), &cfg); err != nil {
		t.Fatal(err)
	}
	args := strings.Fields(cfg.Command) // the paths here hold no spaces or quotes
	if len(args) < 5 || args[0] != "codex" || strings.ContainsAny(cfg.Command, `'"`) {
		t.Fatalf("unexpected suggested command %q", cfg.Command)
	}
	runCodex(t, bin, home, tmp, args[1:]...)
	written, err := os.ReadFile(filepath.Join(home, ".codex", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(written), strings.TrimSpace(cfg.Snippet)) {
		t.Errorf("codex wrote:\n%s\nskillstore prints:\n%s", written, cfg.Snippet)
	}
}
