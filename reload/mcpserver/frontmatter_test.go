package mcpserver

import (
	"strings"
	"testing"
)

// The frontmatter as JSON: keys in the order written, plain scalars read
// by YAML 1.2's core schema, and what has no exact JSON form refused.
func TestFrontmatterJSON(t *testing.T) {
	for _, c := range []struct{ yaml, json, err string }{
		{"name: a\ndescription: b\n", `{"name":"a","description":"b"}`, ""},
		{"z: 1\na: 2\n", `{"z":1,"a":2}`, ""},
		// YAML 1.1 booleans and dates are strings in 1.2's core schema.
		{"a: yes\nb: on\nc: 2026-01-02\nd: y\n", `{"a":"yes","b":"on","c":"2026-01-02","d":"y"}`, ""},
		{"a: true\nb: False\nc: ~\nd: null\ne:\n", `{"a":true,"b":false,"c":null,"d":null,"e":null}`, ""},
		{"a: 0x1f\nb: 0o17\nc: -007\nd: +5\ne: 123456789012345678901234567890\n", `{"a":31,"b":15,"c":-7,"d":5,"e":123456789012345678901234567890}`, ""},
		{"a: 1.50\nb: -1.5e3\nc: .5\nd: 1.\n", `{"a":1.5,"b":-1500,"c":0.5,"d":1}`, ""},
		// Quoted and block scalars are strings, whatever they hold.
		{"a: '1'\nb: \"true\"\nc: |\n  x\n  y\n", `{"a":"1","b":"true","c":"x\ny\n"}`, ""},
		{"a: !!str 12\n", `{"a":"12"}`, ""},
		// Strings JSON escapes, and HTML characters left as they are.
		{"a: \"tab\\there <b>&\"\n", `{"a":"tab\there <b>&"}`, ""},
		{"a: [1, {b: c}]\n", `{"a":[1,{"b":"c"}]}`, ""},
		{"", `{}`, ""},
		// No JSON form: refused, with the line.
		{"a: .inf\n", "", "line 1: .inf has no JSON form"},
		{"a: .NaN\n", "", "has no JSON form"},
		{"a: 1e999\n", "", "has no JSON form"},
		{"1: x\n", "", `the key "1" is not a string`},
		{"a: 1\na: 2\n", "", `line 2: the key "a" is written twice`},
		{"a: !custom x\n", "", "the tag !custom has no JSON form"},
		{"a: &x 1\nb: *x\n", "", "alias"},
	} {
		fm, err := parseFrontmatter([]byte("---\n" + c.yaml + "---\nbody\n"))
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: error %v, want one with %q", c.yaml, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.yaml, err)
		case c.err == "" && string(fm.JSON) != c.json:
			t.Errorf("%q:\n got %s\nwant %s", c.yaml, fm.JSON, c.json)
		}
	}
	fm, err := parseFrontmatter([]byte("---\nname: pdf\ndescription: 'Fill forms.'\nmetadata: {name: inner}\n---\n"))
	if err != nil || fm.Name != "pdf" || fm.Description != "Fill forms." {
		t.Errorf("name and description: %+v %v", fm, err)
	}
}

// skill:// URIs: each store name and version has one URI, read back as
// it; what names nothing served, or names it in another form, is refused.
func TestSkillURIs(t *testing.T) {
	x := newExtState()
	x.skills = map[string]*extSkill{"pdf": nil, "acme": nil} // managed skills served
	x.plugins = map[string]bool{"acme": true, "tools": true}
	for _, c := range []struct {
		name string
		n    int
		path string
	}{
		{"pdf", 0, "pdf"}, {"tools:lint", 0, "tools/lint"}, {"acme:notes", 0, "acme~/notes"},
		{"pdf", 3, "~v3/pdf"}, {"tools:lint", 12, "tools~v12/lint"}, {"acme:notes", 1, "acme~v1/notes"},
	} {
		p := x.skillPath(c.name, c.n)
		if p != c.path {
			t.Errorf("skillPath(%s, %d) = %s, want %s", c.name, c.n, p, c.path)
		}
		a, err := x.parseSkillURI(skillURIPath(p, "dir/a b.md"))
		if err != nil || a.name != c.name || a.version != c.n || a.file != "dir/a b.md" {
			t.Errorf("parse %s: %+v %v", skillURIPath(p, "dir/a b.md"), a, err)
		}
	}
	if got := skillURIPath("pdf", "dir/a b#?.md"); got != "skill://pdf/dir/a%20b%23%3F.md" {
		t.Errorf("escaped: %s", got)
	}
	for uri, want := range map[string]string{
		"skill://tools":      "",
		"skill://acme~":      "",
		"skill://pdf":        "",
		"skill://tools/lint": "",
	} {
		if _, err := x.parseSkillURI(uri); (err == nil) != (want == "") {
			t.Errorf("parse %s: %v", uri, err)
		}
	}
	for _, bad := range []string{
		"skill:///pdf/SKILL.md", "skill://other/SKILL.md", "skill://pdf/../x", "skill://pdf//x", "skill://pdf/x/",
		"skill://~v0/pdf/SKILL.md", "skill://~v01/pdf/SKILL.md", "skill://~3/pdf/SKILL.md", "skill://tools~/lint/SKILL.md",
		"skill://~/pdf/SKILL.md", "skill://pdf/SKILL.md?x=1", "skill://pdf/SKILL.md#top", "file://pdf/SKILL.md",
		"skill://~v3", "skill://pdf/%zz",
	} {
		if a, err := x.parseSkillURI(bad); err == nil {
			t.Errorf("parse %s: %+v, want an error", bad, a)
		}
	}
}
