package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPServerOverStdio speaks MCP to the real binary ('skillstore mcp')
// with the official SDK's client, as an agent does: the handshake, the
// tools, a search, a load and a file read, bad input answered with tool
// errors, a store change seen by the next call, and the loads log.
func TestMCPServerOverStdio(t *testing.T) {
	requireGit(t)
	storeDir := filepath.Join(t.TempDir(), "store")
	src := t.TempDir()
	writeSkill := func(name, desc, body string, extra map[string]string) string {
		dir := filepath.Join(src, name)
		files := map[string]string{"SKILL.md": "---\nname: " + name + "\ndescription: " + desc + "\n---\n" + body}
		for p, c := range extra {
			files[p] = c
		}
		for p, c := range files {
			full := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	mustRun(t, storeDir, "init")
	mustRun(t, storeDir, "add",
		writeSkill("pdf-forms", "Fill in PDF forms and extract their fields.", "# PDF forms\nUse pdftk.\n", map[string]string{"reference/fields.md": "Field types: text, checkbox.\n"}),
		writeSkill("release-notes", "Write release notes from a git log.", "# Release notes\nGroup by kind.\n", nil))

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(skillstoreBin(t), "--store", storeDir, "mcp")
	listChanged := make(chan struct{}, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "mcp-test", Version: "0.1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { listChanged <- struct{}{} },
	})
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	defer session.Close()
	if got := session.InitializeResult().ServerInfo.Name; got != "skillstore" {
		t.Errorf("server name %q, want skillstore", got)
	}

	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "find_skills,load_skill,read_skill_file" {
		t.Errorf("tools = %v", names)
	}
	// What the agent keeps in context for this server: the tools list and
	// the handshake's instructions. Ten skill listings of anthropics/skills
	// (its 18 descriptions averaged 352 characters, name and description
	// about 370, measured 2026-11-26) are about 3,700 characters.
	cost, _ := json.Marshal(tools.Tools)
	if n := len(cost) + len(session.InitializeResult().Instructions); n >= 3700 {
		t.Errorf("the server costs %d characters of context, not less than ten listings (3,700)", n)
	}

	call := func(tool string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s %v: %v", tool, args, err)
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String(), res.IsError
	}

	resources, err := session.ListResources(ctx, nil)
	if err != nil || len(resources.Resources) != 2 || resources.Resources[0].URI != "skill:///pdf-forms/SKILL.md" {
		t.Fatalf("resources/list: %v %+v", err, resources)
	}
	if out, isErr := call("find_skills", map[string]any{"query": "fill a pdf form"}); isErr || !strings.HasPrefix(out, "pdf-forms v1: Fill in PDF forms") {
		t.Errorf("find_skills: error=%v %q", isErr, out)
	}
	commit := strings.TrimSpace(git(t, storeDir, "rev-parse", "refs/heads/skills/pdf-forms"))
	out, isErr := call("load_skill", map[string]any{"name": "pdf-forms"})
	if isErr || !strings.Contains(out, "skill pdf-forms v1 (commit "+commit[:12]+")") ||
		!strings.Contains(out, "# PDF forms\nUse pdftk.") || !strings.Contains(out, "- reference/fields.md (29 bytes)") {
		t.Errorf("load_skill: error=%v\n%s", isErr, out)
	}
	if out, isErr := call("read_skill_file", map[string]any{"name": "pdf-forms", "path": "reference/fields.md"}); isErr || out != "Field types: text, checkbox.\n" {
		t.Errorf("read_skill_file: error=%v %q", isErr, out)
	}

	// Bad input: tool errors that say what to do; nothing outside a skill.
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"load_skill", map[string]any{"name": "no-such-skill"}, `no skill "no-such-skill" is served here`},
		{"read_skill_file", map[string]any{"name": "pdf-forms", "path": "../release-notes/SKILL.md"}, "is not a path inside the skill"},
		{"read_skill_file", map[string]any{"name": "pdf-forms", "path": "/etc/passwd"}, "is not a path inside the skill"},
		{"read_skill_file", map[string]any{"name": "pdf-forms", "path": "missing.md"}, `has no file "missing.md"`},
		{"find_skills", map[string]any{"query": strings.Repeat("pdf ", 500)}, "over 1000"},
		{"find_skills", map[string]any{"query": "pdf", "limit": 1000}, "limit 1000 is not between 1 and 50"},
	} {
		out, isErr := call(c.tool, c.args)
		if !isErr || !strings.Contains(out, c.want) {
			t.Errorf("%s %v: error=%v %q, want a tool error with %q", c.tool, c.args, isErr, out, c.want)
		}
	}
	if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "load_skill", Arguments: map[string]any{"name": "x", "extra": 1}}); err == nil {
		t.Error("load_skill with an unknown argument: no error")
	}

	// A new version and a new skill, written while the server runs: the
	// next call sees them.
	mustRun(t, storeDir, "add", writeSkill("pdf-forms", "Fill in PDF forms, extract fields, and flatten them.", "# PDF forms\nUse qpdf.\n", nil))
	mustRun(t, storeDir, "add", writeSkill("changelog", "Keep a changelog file in order.", "# Changelog\n", nil))
	// The server looks every 2s between calls: a subscribed client hears
	// of the new skill's resource without asking.
	select {
	case <-listChanged:
	case <-time.After(30 * time.Second):
		t.Error("no notifications/resources/list_changed within 30s of a new skill")
	}
	if out, _ := call("load_skill", map[string]any{"name": "pdf-forms"}); !strings.Contains(out, "skill pdf-forms v2") || !strings.Contains(out, "Use qpdf.") {
		t.Errorf("load_skill after a new version:\n%s", out)
	}
	if out, _ := call("find_skills", map[string]any{"query": "changelog"}); !strings.HasPrefix(out, "changelog v1:") {
		t.Errorf("find_skills after a new skill: %q", out)
	}
	session.Close()

	// The loads log: which client loaded which version, with its commit.
	var loads []struct {
		Client, Skill, Commit, Via string
		Version                    int
	}
	if err := json.Unmarshal([]byte(mustRun(t, storeDir, "log", "--loads", "--json")), &loads); err != nil {
		t.Fatal(err)
	}
	if len(loads) != 2 || loads[0].Client != "mcp-test" || loads[0].Skill != "pdf-forms" || loads[0].Version != 1 || loads[0].Commit != commit ||
		loads[0].Via != "load_skill" || loads[1].Version != 2 {
		t.Errorf("loads = %+v", loads)
	}
	if out := mustRun(t, storeDir, "log", "--loads", "release-*"); strings.Contains(out, "pdf-forms") {
		t.Errorf("log --loads release-* lists pdf-forms:\n%s", out)
	}
}
