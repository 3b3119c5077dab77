package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// inspectorSkip is the skip message of the tests that need MCP Inspector.
const inspectorSkip = "mcp-inspector is not on PATH: run 'make e2e-mcp' (it installs @modelcontextprotocol/inspector with npm into a cache folder and runs this test)"

// inspector runs MCP Inspector's CLI (mcp-inspector --cli) with HOME in a
// temp folder, so no catalog, OAuth state or setting of the user's is
// read or written; it needs no account.
type inspector struct {
	t    *testing.T
	bin  string
	home string
}

func newInspector(t *testing.T) *inspector {
	t.Helper()
	bin, err := exec.LookPath("mcp-inspector")
	if err != nil {
		t.Skip(inspectorSkip)
	}
	return &inspector{t: t, bin: bin, home: t.TempDir()}
}

// run runs mcp-inspector --cli with args and returns its stdout, its
// stderr and its exit code.
func (in *inspector) run(args ...string) (string, string, int) {
	in.t.Helper()
	cmd := exec.Command(in.bin, append([]string{"--cli"}, args...)...)
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "MCP_") && k != "HOME" {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "HOME="+in.home, "MCP_CATALOG_PATH="+filepath.Join(in.home, "mcp.json"),
		"MCP_CLIENT_CONFIG_PATH="+filepath.Join(in.home, "client.json"))
	cmd.Stdin = strings.NewReader("")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		in.t.Fatalf("mcp-inspector: %v", err)
	}
	in.t.Logf("$ mcp-inspector --cli %s\nexit %d\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
	return out.String(), errb.String(), code
}

// verifyReport is one skill's report of --verify.
type verifyReport struct {
	URI     string `json:"uri"`
	OK      bool   `json:"ok"`
	Outcome string `json:"outcome"`
	Files   []struct {
		URI    string `json:"uri"`
		Status string `json:"status"`
	} `json:"files"`
}

func verifyReports(t *testing.T, out string) []verifyReport {
	t.Helper()
	var reports []verifyReport
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "{") {
			var r verifyReport
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("a report that is not JSON: %s", line)
			}
			reports = append(reports, r)
		}
	}
	return reports
}

// TestMCPInspectorVerifiesSkills has MCP Inspector's CLI, the reference
// client of the Skills extension, check 'skillstore mcp' over stdio: its
// SEP-2640 conformance and digest checks over every skill of skills/list
// (in the legacy and the 2026-07-28 protocol), over skills/get of a
// published and a pinned version (both must exit 0 with every file
// verified), a directory read, and its load test of load_skill (no
// error in 200 calls); and over HTTP with a bearer token, in both
// protocols, where a run without the token fails.
func TestMCPInspectorVerifiesSkills(t *testing.T) {
	in := newInspector(t)
	storeDir := skillsFixture(t, 0)
	server := []string{skillstoreBin(t), "--store", storeDir, "mcp"}
	// A second version, so the first can be asked for pinned.
	dir := filepath.Join(t.TempDir(), "pdf-forms")
	mustRun(t, storeDir, "checkout", "pdf-forms", dir)
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(strings.Replace(pdfFormsV1, "Use pdftk.", "Use qpdf.", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, storeDir, "add", dir)

	checkVerified := func(out string, code int, want int) {
		t.Helper()
		reports := verifyReports(t, out)
		if code != 0 || len(reports) != want {
			t.Fatalf("--verify: exit %d, %d reports, want exit 0 and %d", code, len(reports), want)
		}
		for _, r := range reports {
			if !r.OK || r.Outcome != "verified" || len(r.Files) == 0 {
				t.Errorf("%s: ok %v outcome %s", r.URI, r.OK, r.Outcome)
			}
			for _, f := range r.Files {
				if f.Status != "verified" {
					t.Errorf("%s: %s", f.URI, f.Status)
				}
			}
		}
	}
	for _, era := range []string{"legacy", "modern"} {
		out, _, code := in.run(append(server, "--protocol-era", era, "--method", "skills/list", "--verify", "--require-digests")...)
		checkVerified(out, code, 4) // pdf-forms, acme, acme:changelog, acme:release-notes (not plain-words)
	}
	for _, uri := range []string{"skill://pdf-forms/SKILL.md", "skill://~v1/pdf-forms/SKILL.md", "skill://acme~/release-notes/SKILL.md"} {
		out, _, code := in.run(append(server, "--method", "skills/get", "--uri", uri, "--verify", "--require-digests")...)
		checkVerified(out, code, 1)
	}
	out, _, code := in.run(append(server, "--method", "resources/directory/read", "--uri", "skill://pdf-forms/templates", "--format", "json")...)
	if code != 0 || !strings.Contains(out, `"skill://pdf-forms/templates/regional"`) || !strings.Contains(out, `"inode/directory"`) {
		t.Errorf("resources/directory/read: exit %d\n%s", code, out)
	}
	out, _, code = in.run(append(server, "--method", "skills/get", "--uri", "skill://no-such-skill/SKILL.md")...)
	if code == 0 {
		t.Errorf("skills/get of an unknown skill: exit 0\n%s", out)
	}
	// Over HTTP, with a bearer token, in both protocols.
	token := strings.TrimSpace(mustRun(t, storeDir, "mcp", "token", "add", "inspector"))
	srv := startMCPHTTP(t, storeDir)
	auth := []string{srv.url, "--header", "Authorization: Bearer " + token}
	for _, era := range []string{"legacy", "modern"} {
		out, _, code := in.run(append(auth, "--protocol-era", era, "--method", "skills/list", "--verify", "--require-digests")...)
		checkVerified(out, code, 4)
		out, _, code = in.run(append(auth, "--protocol-era", era, "--method", "skills/get", "--uri", "skill://~v1/pdf-forms/SKILL.md", "--verify", "--require-digests")...)
		checkVerified(out, code, 1)
	}
	if _, _, code := in.run(srv.url, "--method", "skills/list"); code == 0 {
		t.Error("skills/list over HTTP without a token: exit 0")
	}
	out, _, code = in.run(append(server, "--method", "tools/call", "--tool-name", "load_skill", "--tool-arg", "name=pdf-forms",
		"--load", "--load-requests", "200", "--load-concurrency", "10")...)
	var load struct {
		Requests, OK, Errors, ToolErrors int
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):strings.LastIndex(out, "}")+1]), &load); code != 0 || err != nil ||
		load.Requests != 200 || load.OK != 200 || load.Errors != 0 || load.ToolErrors != 0 {
		t.Errorf("--load of load_skill: exit %d %v %+v", code, err, load)
	}
}
