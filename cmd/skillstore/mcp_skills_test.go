package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// skillsFixture is a store for the Skills extension's tests: a managed
// skill with nested folders, a binary file and frontmatter of every YAML
// kind; a plugin's skills; a managed skill named like the plugin; a skill
// whose frontmatter name is not its store name; and bulk small skills
// (600: skills/list takes two pages). It returns the store folder.
func skillsFixture(t *testing.T, bulk int) string {
	t.Helper()
	requireGit(t)
	tmp := t.TempDir()
	storeDir := filepath.Join(tmp, "store")
	write := func(dir string, files map[string]string) string {
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
	mustRun(t, storeDir, "add", write(filepath.Join(tmp, "src", "pdf-forms"), map[string]string{
		"SKILL.md":                    pdfFormsV1,
		"reference/fields.md":         "Field types: text, checkbox.\n",
		"scripts/fill.py":             "print('fill')\n",
		"templates/invoice.md":        "# Invoice\n",
		"templates/regional/eu.md":    "# EU invoice\n",
		"assets/logo.png":             "\x89PNG\r\n\x1a\n\x00\x00\xff\xfe binary",
		"notes with spaces & more.md": "a file name to escape\n",
	}))
	mustRun(t, storeDir, "add", write(filepath.Join(tmp, "src", "plain-words"), map[string]string{
		"SKILL.md": "---\nname: Plain Words\ndescription: A name the store takes (as plain-words) and the extension cannot.\n---\nbody\n"}))
	mustRun(t, storeDir, "add", write(filepath.Join(tmp, "src", "acme"), map[string]string{
		"SKILL.md": "---\nname: acme\ndescription: A managed skill named like the plugin.\n---\nbody\n"}))
	up := write(filepath.Join(tmp, "up"), map[string]string{
		"skills/release-notes/SKILL.md":      "---\nname: release-notes\ndescription: Write release notes from a git log.\n---\n# Release notes\n",
		"skills/release-notes/examples/a.md": "Example.\n",
		"skills/changelog/SKILL.md":          "---\nname: changelog\ndescription: Keep a changelog.\n---\n# Changelog\n",
	})
	mustRun(t, storeDir, "plugin", "add", "--id", "acme", up)
	many := filepath.Join(tmp, "many")
	var dirs []string
	for i := range bulk {
		name := fmt.Sprintf("bulk-%03d", i)
		dirs = append(dirs, write(filepath.Join(many, name), map[string]string{
			"SKILL.md": "---\nname: " + name + "\ndescription: Bulk skill " + name + ".\n---\nbody\n"}))
	}
	if len(dirs) > 0 {
		mustRun(t, storeDir, append([]string{"add"}, dirs...)...)
	}
	return storeDir
}

// pdfFormsV1's frontmatter has a value of each YAML kind a skill's
// frontmatter holds, and strings that YAML 1.1 would read as other kinds.
const pdfFormsV1 = `---
name: pdf-forms
description: "Fill in PDF forms: fields, checkboxes."
license: Apache-2.0
allowed-tools: [Read, "Bash(python:*)"]
metadata:
  version: 2.10
  owner: docs-team
  reviewed: 2026-01-02
  legacy: yes
  count: 0x1f
  ratio: -1.5e3
  empty: ~
  flags: {beta: true, hidden: false}
  note: |
    two
    lines
---
# PDF forms
Use pdftk.
`

// TestSkillsExtensionConformance walks the MUSTs of the Skills extension
// (io.modelcontextprotocol/skills, SEP-2640) against the real binary over
// stdio, one by one: the capability; skills/list's shape, pages and
// entries (URI rules, frontmatter verbatim, complete resources whose
// digests and sizes match sha256sum of the version checked out);
// skills/get; resources/read of every file; resources/directory/read;
// the errors (-32602) for an unknown skill, a path outside a skill, a
// file that is not a skill's SKILL.md, a directory read of a file; a
// pinned version; the list-changed notification; and the old skill:///
// resources and tools, which hosts without the extension still use.
func TestSkillsExtensionConformance(t *testing.T) {
	storeDir := skillsFixture(t, 600)
	c := stdioWire(t, "--store", storeDir, "mcp")
	defer c.close()
	walkSkillsConformance(t, storeDir, c, "")
}

// walkSkillsConformance is the walk of TestSkillsExtensionConformance
// over c, a client of a server of skillsFixture(t, 600) at storeDir;
// token is the holder the loads log must name ("" over stdio).
func walkSkillsConformance(t *testing.T, storeDir string, c *wireClient, token string) {

	// Capabilities: the extension with directoryRead, and resources.
	var init struct {
		Capabilities struct {
			Extensions map[string]map[string]any `json:"extensions"`
			Resources  map[string]any            `json:"resources"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(c.initialize(), &init); err != nil {
		t.Fatal(err)
	}
	ext, ok := init.Capabilities.Extensions["io.modelcontextprotocol/skills"]
	if !ok || ext["directoryRead"] != true {
		t.Fatalf("capabilities.extensions = %v, want io.modelcontextprotocol/skills with directoryRead true", init.Capabilities.Extensions)
	}
	if init.Capabilities.Resources == nil {
		t.Error("the resources capability is not declared")
	}

	// skills/list, every page: resultType, ttlMs, cacheScope; each entry
	// once; entries atomic; the cursor ends.
	type resource struct {
		URI    string `json:"uri"`
		Digest string `json:"digest"`
		Size   int64  `json:"size"`
	}
	type entry struct {
		URI         string          `json:"uri"`
		Frontmatter json.RawMessage `json:"frontmatter"`
		Resources   []resource      `json:"resources"`
	}
	type page struct {
		ResultType string  `json:"resultType"`
		Skills     []entry `json:"skills"`
		NextCursor *string `json:"nextCursor"`
		TTLMs      *int    `json:"ttlMs"`
		CacheScope string  `json:"cacheScope"`
	}
	entries := map[string]entry{}
	cursor, pages := "", 0
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var p page
		c.ok("skills/list", params, &p)
		pages++
		if p.ResultType != "complete" || p.TTLMs == nil || *p.TTLMs < 0 || (p.CacheScope != "public" && p.CacheScope != "private") {
			t.Errorf("skills/list page %d: resultType %q ttlMs %v cacheScope %q", pages, p.ResultType, p.TTLMs, p.CacheScope)
		}
		for _, e := range p.Skills {
			if _, dup := entries[e.URI]; dup {
				t.Errorf("skills/list lists %s twice", e.URI)
			}
			entries[e.URI] = e
		}
		if p.NextCursor == nil {
			break
		}
		cursor = *p.NextCursor
		if pages > 10 {
			t.Fatal("skills/list: more than 10 pages for 604 skills")
		}
	}
	if pages < 2 || len(entries) != 604 {
		t.Errorf("skills/list: %d entries in %d pages, want 604 (not plain-words) in 2 or more", len(entries), pages)
	}
	want := map[string]string{ // URI -> store name
		"skill://pdf-forms/SKILL.md":           "pdf-forms",
		"skill://acme/SKILL.md":                "acme",
		"skill://acme~/release-notes/SKILL.md": "acme:release-notes",
		"skill://acme~/changelog/SKILL.md":     "acme:changelog",
		"skill://bulk-599/SKILL.md":            "bulk-599",
	}
	for uri := range want {
		if _, ok := entries[uri]; !ok {
			t.Errorf("skills/list has no %s", uri)
		}
	}
	if r := c.call("skills/list", map[string]any{"cursor": "not-a-cursor"}); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("skills/list with a bad cursor: %+v, want error -32602", r)
	}

	// Each entry, for the named skills: the URI's last segment is the
	// frontmatter name, a valid name; the frontmatter is the SKILL.md's
	// (parsed here with yaml.v3, another reader than the server's); the
	// resources are complete, each once, inside the skill, with the
	// digest and size of the file checked out, as sha256sum says.
	nameRE := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	for uri, name := range want {
		e := entries[uri]
		var fm map[string]any
		if err := json.Unmarshal(e.Frontmatter, &fm); err != nil {
			t.Fatalf("%s: frontmatter %s: %v", uri, e.Frontmatter, err)
		}
		root := strings.TrimSuffix(uri, "/SKILL.md")
		last := root[strings.LastIndex(root, "/")+1:]
		if fm["name"] != last || !nameRE.MatchString(last) || fm["description"] == "" {
			t.Errorf("%s: name %v, description %v: the last segment must be the frontmatter's valid name", uri, fm["name"], fm["description"])
		}
		dir := filepath.Join(t.TempDir(), last)
		mustRun(t, storeDir, "checkout", name, dir)
		sums := sha256sums(t, dir)
		md, _ := os.ReadFile(filepath.Join(dir, "SKILL.md"))
		if !strings.HasPrefix(string(e.Frontmatter), `{"name":`) {
			t.Errorf("%s: frontmatter %s: not in the order written", uri, e.Frontmatter)
		}
		if wantFM := yamlFrontmatter(t, md); !jsonEqual(t, e.Frontmatter, wantFM) {
			t.Errorf("%s: frontmatter\n%s\nis not the SKILL.md's\n%s", uri, e.Frontmatter, wantFM)
		}
		got := map[string]resource{}
		for _, r := range e.Resources {
			rel, ok := strings.CutPrefix(r.URI, root+"/")
			if !ok {
				t.Errorf("%s: resource %s is outside the skill", uri, r.URI)
			}
			if _, dup := got[rel]; dup {
				t.Errorf("%s: resource %s listed twice", uri, r.URI)
			}
			got[rel] = r
		}
		if len(got) != len(sums) {
			t.Errorf("%s: %d resources, the version has %d files", uri, len(got), len(sums))
		}
		for rel, sum := range sums {
			escaped := strings.ReplaceAll(strings.ReplaceAll(rel, " ", "%20"), "&", "&")
			r, ok := got[escaped]
			if !ok {
				t.Errorf("%s: no resource for file %s (have %v)", uri, rel, keys(got))
				continue
			}
			if r.Digest != "sha256:"+sum.digest || r.Size != sum.size {
				t.Errorf("%s: %s: digest %s size %d, sha256sum says %s size %d", uri, rel, r.Digest, r.Size, sum.digest, sum.size)
			}
			// resources/read gives those bytes.
			var rr struct {
				Contents []struct {
					URI, MIMEType, Text, Blob string
				} `json:"contents"`
			}
			c.ok("resources/read", map[string]any{"uri": r.URI}, &rr)
			if len(rr.Contents) != 1 || rr.Contents[0].URI != r.URI {
				t.Fatalf("resources/read %s: %+v", r.URI, rr)
			}
			data := []byte(rr.Contents[0].Text)
			if rr.Contents[0].Blob != "" {
				data, _ = base64.StdEncoding.DecodeString(rr.Contents[0].Blob)
			}
			if h := sha256.Sum256(data); hex.EncodeToString(h[:]) != sum.digest || int64(len(data)) != sum.size {
				t.Errorf("resources/read %s: %d bytes that are not the file's", r.URI, len(data))
			}
			if rel == "SKILL.md" && rr.Contents[0].MIMEType != "text/markdown" {
				t.Errorf("%s: mimeType %q, want text/markdown", r.URI, rr.Contents[0].MIMEType)
			}
		}
		// skills/get answers the same entry.
		var g struct {
			ResultType string          `json:"resultType"`
			Skill      json.RawMessage `json:"skill"`
			TTLMs      *int            `json:"ttlMs"`
			CacheScope string          `json:"cacheScope"`
		}
		c.ok("skills/get", map[string]any{"uri": uri}, &g)
		var ge entry
		json.Unmarshal(g.Skill, &ge)
		if g.ResultType != "complete" || g.TTLMs == nil || g.CacheScope == "" || !reflect.DeepEqual(ge, e) {
			t.Errorf("skills/get %s: %s, want the listing's entry", uri, g.Skill)
		}
	}

	// resources/directory/read: direct children, folders as
	// inode/directory; a plugin's folder lists its skills.
	dirList := func(uri string) []string {
		t.Helper()
		var d struct {
			ResultType string `json:"resultType"`
			Resources  []struct{ URI, MIMEType string }
		}
		c.ok("resources/directory/read", map[string]any{"uri": uri}, &d)
		var out []string
		for _, r := range d.Resources {
			out = append(out, r.URI+" "+r.MIMEType)
		}
		return out
	}
	if got, want := dirList("skill://pdf-forms"), []string{
		"skill://pdf-forms/SKILL.md text/markdown", "skill://pdf-forms/assets inode/directory",
		"skill://pdf-forms/notes%20with%20spaces%20&%20more.md text/markdown", "skill://pdf-forms/reference inode/directory",
		"skill://pdf-forms/scripts inode/directory", "skill://pdf-forms/templates inode/directory",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("directory skill://pdf-forms:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := dirList("skill://pdf-forms/templates"); !reflect.DeepEqual(got, []string{
		"skill://pdf-forms/templates/invoice.md text/markdown", "skill://pdf-forms/templates/regional inode/directory"}) {
		t.Errorf("directory templates: %v", got)
	}
	if got := dirList("skill://acme~"); !reflect.DeepEqual(got, []string{
		"skill://acme~/changelog inode/directory", "skill://acme~/release-notes inode/directory"}) {
		t.Errorf("directory skill://acme~ (the plugin's folder): %v", got)
	}
	if got := dirList("skill://acme"); !reflect.DeepEqual(got, []string{"skill://acme/SKILL.md text/markdown"}) {
		t.Errorf("directory skill://acme (the managed skill): %v", got)
	}

	// The errors: -32602 for what is not served, with a message.
	for _, bad := range []struct{ method, uri string }{
		{"skills/get", "skill://no-such-skill/SKILL.md"},
		{"skills/get", "skill://pdf-forms/reference/fields.md"},  // not a skill's SKILL.md
		{"skills/get", "skill://plain-words/SKILL.md"},           // not offered: its name
		{"skills/get", "skill://acme/release-notes/SKILL.md"},    // the plugin's skills are acme~/ here
		{"skills/get", "skill://~v9/pdf-forms/SKILL.md"},         // no such version
		{"resources/read", "skill://pdf-forms/../acme/SKILL.md"}, // outside the skill
		{"resources/read", "skill://pdf-forms/missing.md"},
		{"resources/read", "skill://pdf-forms/templates"}, // a directory
		{"resources/directory/read", "skill://pdf-forms/SKILL.md"},
		{"resources/directory/read", "skill://pdf-forms/nope"},
		{"resources/directory/read", "skill://no-such-skill"},
	} {
		r := c.call(bad.method, map[string]any{"uri": bad.uri})
		if r.Error == nil || r.Error.Code != -32602 || r.Error.Message == "" {
			t.Errorf("%s %s: %s %+v, want error -32602 with a message", bad.method, bad.uri, r.Result, r.Error)
		}
	}

	// Hosts without the extension: the three tools and skill:/// resources.
	var tools struct{ Tools []struct{ Name string } }
	c.ok("tools/list", map[string]any{}, &tools)
	if len(tools.Tools) != 3 {
		t.Errorf("tools/list: %+v", tools)
	}
	var rr struct{ Contents []struct{ Text string } }
	c.ok("resources/read", map[string]any{"uri": "skill:///pdf-forms/SKILL.md"}, &rr)
	if len(rr.Contents) != 1 || rr.Contents[0].Text != pdfFormsV1 {
		t.Errorf("resources/read skill:///pdf-forms/SKILL.md: %+v", rr)
	}
	var loaded struct{ Content []struct{ Text string } }
	c.ok("tools/call", map[string]any{"name": "load_skill", "arguments": map[string]any{"name": "plain-words"}}, &loaded)
	if len(loaded.Content) != 1 || !strings.Contains(loaded.Content[0].Text, "skill plain-words v1") {
		t.Errorf("load_skill plain-words (served by the tools only): %+v", loaded)
	}

	// A new version while the host is connected: the published set moved,
	// notifications/resources/list_changed says so; the published URI
	// serves v2, the pinned one v1 (skills/get and resources/read).
	v1 := entries["skill://pdf-forms/SKILL.md"]
	v2dir := filepath.Join(t.TempDir(), "pdf-forms")
	mustRun(t, storeDir, "checkout", "pdf-forms", v2dir)
	if err := os.WriteFile(filepath.Join(v2dir, "SKILL.md"), []byte(strings.Replace(pdfFormsV1, "Use pdftk.", "Use qpdf.", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, storeDir, "add", v2dir)
	deadline := time.Now().Add(30 * time.Second)
	for !c.sawNote("notifications/resources/list_changed") && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		c.ok("ping", map[string]any{}, nil)
	}
	if !c.sawNote("notifications/resources/list_changed") {
		t.Error("no notifications/resources/list_changed within 30s of a new version")
	}
	var g2, g1 struct{ Skill entry }
	c.ok("skills/get", map[string]any{"uri": "skill://pdf-forms/SKILL.md"}, &g2)
	c.ok("skills/get", map[string]any{"uri": "skill://~v1/pdf-forms/SKILL.md"}, &g1)
	if g2.Skill.Resources[0].Digest == v1.Resources[0].Digest {
		t.Error("skills/get after a new version: the SKILL.md digest did not change")
	}
	if g1.Skill.URI != "skill://~v1/pdf-forms/SKILL.md" || len(g1.Skill.Resources) != len(v1.Resources) {
		t.Fatalf("skills/get pinned v1: %+v", g1.Skill)
	}
	for i, r := range g1.Skill.Resources {
		if strings.Replace(r.URI, "~v1/", "", 1) != v1.Resources[i].URI || r.Digest != v1.Resources[i].Digest {
			t.Errorf("pinned v1 resource %s %s, want %s %s", r.URI, r.Digest, v1.Resources[i].URI, v1.Resources[i].Digest)
		}
	}
	c.ok("resources/read", map[string]any{"uri": "skill://~v1/pdf-forms/SKILL.md"}, &rr)
	if len(rr.Contents) != 1 || rr.Contents[0].Text != pdfFormsV1 {
		t.Errorf("resources/read of pinned v1: %+v", rr)
	}
	c.close()

	// The loads log: the two SKILL.md reads (published v1, pinned v1), the
	// tool load, each with the digest of the file set served: sha256 of
	// sha256sum's listing of the version checked out.
	var loads []struct {
		Skill, Via, Manifest, Token string
		Version                     int
	}
	if err := json.Unmarshal([]byte(mustRun(t, storeDir, "log", "--loads", "--json")), &loads); err != nil {
		t.Fatal(err)
	}
	v1dir := filepath.Join(t.TempDir(), "v1")
	mustRun(t, storeDir, "checkout", "pdf-forms@v1", v1dir)
	wantManifest := "sha256:" + manifestOf(t, v1dir)
	var pdfLoads []string
	for _, l := range loads {
		if l.Skill == "pdf-forms" {
			pdfLoads = append(pdfLoads, fmt.Sprintf("v%d %s %v", l.Version, l.Via, l.Manifest == wantManifest && l.Token == token))
		}
	}
	if strings.Join(pdfLoads, ", ") != "v1 resources/read true, v1 resources/read true, v1 resources/read true" {
		t.Errorf("loads of pdf-forms: %v, want three resources/read of v1 (skill://, skill:///, pinned) with the manifest %s", pdfLoads, wantManifest)
	}
}

type fileSum struct {
	digest string
	size   int64
}

// sha256sums runs sha256sum on every file under dir.
func sha256sums(t *testing.T, dir string) map[string]fileSum {
	t.Helper()
	out := map[string]fileSum{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum, err := exec.Command("sha256sum", p).Output()
		if err != nil {
			return fmt.Errorf("sha256sum %s: %v", p, err)
		}
		info, _ := d.Info()
		out[filepath.ToSlash(rel)] = fileSum{digest: strings.Fields(string(sum))[0], size: info.Size()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// manifestOf is the manifest digest of the files under dir, computed as
// the documentation says: sha256sum of each file in path order, then
// sha256sum of that listing.
func manifestOf(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", `find . -type f -printf '%P\n' | LC_ALL=C sort | xargs -d '\n' sha256sum | sha256sum`)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(out))[0]
}

// yamlFrontmatter parses a SKILL.md's frontmatter with yaml.v3 into plain
// values and renders them as JSON. yaml.v3 reads a plain date as a
// timestamp (YAML 1.1), where the core schema of YAML 1.2 that hosts
// parse with keeps the text: a date is written back as the text it was.
func yamlFrontmatter(t *testing.T, md []byte) []byte {
	t.Helper()
	parts := strings.SplitN(string(md), "---\n", 3)
	var v map[string]any
	if err := yaml.Unmarshal([]byte(parts[1]), &v); err != nil {
		t.Fatal(err)
	}
	var dates func(any) any
	dates = func(x any) any {
		switch x := x.(type) {
		case time.Time:
			return x.Format(time.DateOnly)
		case map[string]any:
			for k, e := range x {
				x[k] = dates(e)
			}
		case []any:
			for i, e := range x {
				x[i] = dates(e)
			}
		}
		return x
	}
	out, err := json.Marshal(dates(v))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
