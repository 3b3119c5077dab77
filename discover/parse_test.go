package discover

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/skillmd"
)

func TestParseAcceptsWellFormedFiles(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		wantName string
		wantBody string
		bodyLine int
		bom      bool
		crlf     bool
	}{
		{"plain", "---\nname: pdf\ndescription: Read PDFs.\n---\n# PDF\n", "pdf", "# PDF\n", 5, false, false},
		{"bom", "\ufeff---\nname: pdf\ndescription: d\n---\nbody\n", "pdf", "body\n", 5, true, false},
		{"crlf", "---\r\nname: pdf\r\ndescription: d\r\n---\r\nbody\r\n", "pdf", "body\r\n", 5, false, true},
		{"empty body", "---\nname: pdf\ndescription: d\n---", "pdf", "", 5, false, false},
		{"fence with trailing blanks", "--- \nname: pdf\ndescription: d\n---\t\nx", "pdf", "x", 5, false, false},
		{"empty frontmatter", "---\n---\nbody", "", "body", 3, false, false},
		{"comment only", "---\n# nothing yet\n---\nbody", "", "body", 4, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sf, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if sf.Frontmatter.Name != tt.wantName || string(sf.Body) != tt.wantBody || sf.BodyLine != tt.bodyLine {
				t.Errorf("got name %q body %q line %d, want %q %q %d", sf.Frontmatter.Name, sf.Body, sf.BodyLine, tt.wantName, tt.wantBody, tt.bodyLine)
			}
			if sf.BOM != tt.bom || sf.CRLF != tt.crlf {
				t.Errorf("BOM=%v CRLF=%v, want %v %v", sf.BOM, sf.CRLF, tt.bom, tt.crlf)
			}
		})
	}
}

func TestParseRejectsBadInput(t *testing.T) {
	aliasBomb := "---\nname: lol\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n" +
		"b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n" +
		"e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n" +
		"h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n---\nboom\n"
	tests := []struct {
		name     string
		in       []byte
		wantLine int
		wantMsg  string
	}{
		{"empty", []byte(""), 1, "file is empty"},
		{"missing frontmatter", []byte("# Title\n\nbody\n"), 1, "missing YAML frontmatter"},
		{"frontmatter not at start", []byte("\n---\nname: x\n---\n"), 1, "missing YAML frontmatter"},
		{"unterminated fence", []byte("---\nname: x\ndescription: y\n# body\n"), 1, "frontmatter is never closed"},
		{"invalid yaml", []byte("---\nname: x\ndescription: use when: always\n---\n"), 3, "invalid YAML in frontmatter: mapping values are not allowed in this context; a value containing ': ' must be quoted"},
		{"unclosed quote", []byte("---\nname: x\ndescription: \"open\n---\n"), 3, "invalid YAML"},
		{"tab indentation", []byte("---\nname: x\n\tdescription: y\n---\n"), 3, "a tab indents this line; YAML indentation must use spaces"},
		{"list", []byte("---\n- name\n- description\n---\n"), 2, "must be a YAML mapping of keys to values (like 'name: my-skill'), found a list"},
		{"scalar", []byte("---\nhello\n---\n"), 2, `found the string "hello"`},
		{"non utf-8", []byte("---\nname: x\ndescription: caf\xe9\n---\n"), 3, "invalid UTF-8 (byte 0xe9 at column 17); save the file as UTF-8"},
		{"non utf-8 in body", []byte("---\nname: x\n---\nok\n\xff\n"), 5, "invalid UTF-8"},
		{"utf-16", []byte("\xff\xfe-\x00-\x00-\x00"), 1, "file is UTF-16; save it as UTF-8"},
		{"too big", append([]byte("---\nname: x\n---\n"), bytes.Repeat([]byte("a"), MaxFileSize)...), 0, "over the 1048576-byte limit"},
		{"alias bomb", []byte(aliasBomb), 4, "frontmatter uses the YAML alias *a"},
		{"merge key", []byte("---\nbase: &b {x: 1}\nother:\n  <<: *b\n---\n"), 4, "alias *b"},
		{"repeated key", []byte("---\nname: a\ndescription: d\nname: b\n---\n"), 4, `key "name" is repeated (first at line 2)`},
		{"complex key", []byte("---\n? [a, b]\n: c\n---\n"), 2, "frontmatter key must be a plain word"},
		{"deep nesting", []byte("---\na: " + strings.Repeat("[", 20000) + "\n---\n"), 1, "exceeded max depth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sf, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", sf.Frontmatter)
			}
			var pe *skillmd.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not a *skillmd.ParseError", err, err)
			}
			if pe.Line != tt.wantLine || !strings.Contains(pe.Msg, tt.wantMsg) {
				t.Errorf("got line %d %q, want line %d containing %q", pe.Line, pe.Msg, tt.wantLine, tt.wantMsg)
			}
		})
	}
}

func TestParseTypesEveryField(t *testing.T) {
	in := `---
name: deploy
description: Deploy the service. Use when shipping.
license: Apache-2.0
compatibility: Requires git and network access
metadata:
  author: acme
  version: "1.0"
allowed-tools: Read, Grep Bash(git diff *)
when_to_use: After a merge to main
argument-hint: "[environment]"
arguments: env region
disable-model-invocation: true
user-invocable: false
disallowed-tools: [Write, Edit]
model: sonnet
effort: high
context: fork
agent: Explore
hooks:
  PreToolUse:
    - matcher: Bash
paths: "src/**, docs/*.md"
shell: bash
x-team: platform
---
body
`
	sf, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	fm := sf.Frontmatter
	checks := []struct{ got, want any }{
		{fm.Name, "deploy"}, {fm.License, "Apache-2.0"}, {fm.Compatibility, "Requires git and network access"},
		{fm.Metadata["author"], "acme"}, {fm.Metadata["version"], "1.0"},
		{strings.Join(fm.AllowedTools, "|"), "Read|Grep|Bash(git diff *)"},
		{fm.WhenToUse, "After a merge to main"}, {fm.ArgumentHint, "[environment]"},
		{strings.Join(fm.Arguments, "|"), "env|region"},
		{*fm.DisableModelInvocation, true}, {*fm.UserInvocable, false},
		{strings.Join(fm.DisallowedTools, "|"), "Write|Edit"},
		{fm.Model, "sonnet"}, {fm.Effort, "high"}, {fm.Context, "fork"}, {fm.Agent, "Explore"},
		{strings.Join(fm.Paths, "|"), "src/**|docs/*.md"}, {fm.Shell, "bash"},
		{len(fm.Unknown), 1}, {fm.Unknown[0].Key, "x-team"}, {fm.Unknown[0].Line, 25}, {fm.Unknown[0].Value, "platform"},
		{sf.KeyLine("effort"), 17}, {sf.KeyLine("absent"), 1}, {sf.BodyLine, 27},
	}
	for i, c := range checks {
		if c.got != c.want {
			t.Errorf("check %d: got %v, want %v", i, c.got, c.want)
		}
	}
	if _, ok := fm.Hooks.(map[string]any)["PreToolUse"]; !ok {
		t.Errorf("hooks not decoded: %#v", fm.Hooks)
	}
	if len(sf.issues) != 0 {
		t.Errorf("unexpected issues: %+v", sf.issues)
	}
	if !bytes.Contains(sf.RawFrontmatter, []byte("x-team: platform\n")) {
		t.Errorf("raw frontmatter lost a key: %q", sf.RawFrontmatter)
	}
}

func TestSplitTools(t *testing.T) {
	got := strings.Join(splitTools("Read,Grep  Bash(npm run *), mcp__x__y"), "|")
	if want := "Read|Grep|Bash(npm run *)|mcp__x__y"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestBodyHashIgnoresLineEndings(t *testing.T) {
	if BodyHash([]byte("a\r\nb\r\n")) != BodyHash([]byte("a\nb\n\n")) {
		t.Error("CRLF and LF bodies hash differently")
	}
	if BodyHash([]byte("a\nb")) == BodyHash([]byte("a\nc")) {
		t.Error("different bodies hash equal")
	}
}
