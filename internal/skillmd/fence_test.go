package skillmd

import (
	"errors"
	"strings"
	"testing"
)

// TestFence is the fence rule over the cases the six scanners it replaced
// disagreed on (a byte order mark, a "..." line, CRLF, trailing blanks):
// Cut, Body, Parse and NameEntry all read each case the same way.
func TestFence(t *testing.T) {
	cases := []struct {
		name, in string
		err      error  // of Cut
		yaml     string // the YAML Cut finds
		body     string
		bodyLine int
		bom      bool
		crlf     bool
		entry    string // the name entry NameEntry finds, "" for none
	}{
		{name: "plain", in: "---\nname: alpha\n---\nbody\n",
			yaml: "name: alpha\n", body: "body\n", bodyLine: 4, entry: "name: alpha"},
		{name: "byte order mark", in: "\ufeff---\nname: alpha\n---\nbody\n",
			yaml: "name: alpha\n", body: "body\n", bodyLine: 4, bom: true, entry: "name: alpha"},
		{name: "CRLF", in: "---\r\nname: alpha\r\ndescription: d\r\n---\r\nbody\r\n",
			yaml: "name: alpha\r\ndescription: d\r\n", body: "body\r\n", bodyLine: 5, crlf: true, entry: "name: alpha"},
		{name: "byte order mark and CRLF", in: "\ufeff---\r\nname: alpha\r\n---\r\n",
			yaml: "name: alpha\r\n", body: "", bodyLine: 4, bom: true, crlf: true, entry: "name: alpha"},
		{name: "fences with trailing blanks", in: "--- \nname: alpha\n---\t\nbody",
			yaml: "name: alpha\n", body: "body", bodyLine: 4, entry: "name: alpha"},
		{name: "dots do not close", in: "---\nname: alpha\n...\n---\nbody\n",
			yaml: "name: alpha\n...\n", body: "body\n", bodyLine: 5, entry: "name: alpha"},
		{name: "nothing after dots is read", in: "---\ndescription: d\n...\nname: alpha\n---\nbody\n",
			yaml: "description: d\n...\nname: alpha\n", body: "body\n", bodyLine: 6},
		{name: "dots only: never closed", in: "---\nname: alpha\n...\nbody\n", err: ErrUnclosed},
		{name: "closing fence ends the file", in: "---\nname: alpha\n---",
			yaml: "name: alpha\n", body: "", bodyLine: 4, entry: "name: alpha"},
		{name: "empty frontmatter", in: "---\n---\nname: in the body\n",
			yaml: "", body: "name: in the body\n", bodyLine: 3},
		{name: "folded name", in: "---\nname: >-\n  alpha\ndescription: d\n---\n",
			yaml: "name: >-\n  alpha\ndescription: d\n", body: "", bodyLine: 6, entry: "name: >-\n  alpha"},
		{name: "nested name is not the entry", in: "---\nmetadata:\n  name: x\n---\n",
			yaml: "metadata:\n  name: x\n", body: "", bodyLine: 5},
		{name: "indented opening fence", in: " ---\nname: alpha\n---\n", err: ErrNoFrontmatter},
		{name: "blank line first", in: "\n---\nname: alpha\n---\n", err: ErrNoFrontmatter},
		{name: "no frontmatter", in: "name: alpha\n", err: ErrNoFrontmatter},
		{name: "empty file", in: "", err: ErrNoFrontmatter},
		{name: "opening fence only", in: "---", err: ErrUnclosed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Cut([]byte(c.in))
			if !errors.Is(err, c.err) || (err != nil) != (c.err != nil) {
				t.Fatalf("Cut error %v, want %v", err, c.err)
			}
			body, berr := Body([]byte(c.in))
			start, end, ok := NameEntry([]byte(c.in))
			if c.err != nil {
				if errors.Is(c.err, ErrNoFrontmatter) && (berr != nil || string(body) != c.in) {
					t.Errorf("Body of a file without frontmatter = %q, %v; want it whole", body, berr)
				}
				if errors.Is(c.err, ErrUnclosed) && berr == nil {
					t.Errorf("Body of an unclosed frontmatter: no error")
				}
				if ok {
					t.Errorf("NameEntry found %q in a file whose frontmatter Cut does not find", c.in[start:end])
				}
				return
			}
			if got := string(s.Head) + string(s.YAML) + string(s.Close) + string(s.Body); got != c.in {
				t.Errorf("parts make %q, not the input", got)
			}
			if string(s.YAML) != c.yaml || string(s.Body) != c.body || s.BodyLine != c.bodyLine || s.BOM != c.bom || s.CRLF != c.crlf {
				t.Errorf("Cut = yaml %q body %q line %d bom %v crlf %v; want %q %q %d %v %v",
					s.YAML, s.Body, s.BodyLine, s.BOM, s.CRLF, c.yaml, c.body, c.bodyLine, c.bom, c.crlf)
			}
			if berr != nil || string(body) != c.body {
				t.Errorf("Body = %q, %v; want %q", body, berr, c.body)
			}
			entry := ""
			if ok {
				entry = c.in[start:end]
			}
			if entry != c.entry {
				t.Errorf("NameEntry = %q, want %q", entry, c.entry)
			}
			// Parse reads a top-level name exactly when NameEntry finds one.
			d, err := Parse([]byte(c.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if (topLevelName(d) != "") != (c.entry != "") {
				t.Errorf("Parse reads name %q, NameEntry %q", topLevelName(d), c.entry)
			}
		})
	}
}

func topLevelName(d *Doc) string {
	for i := 0; i+1 < len(d.Root.Content); i += 2 {
		if d.Root.Content[i].Value == "name" {
			return d.Root.Content[i+1].Value
		}
	}
	return ""
}

// TestSetName sets the name in files of several shapes: the entry is
// replaced (continuation lines included) or added after the opening fence,
// ended like it; nothing else changes.
func TestSetName(t *testing.T) {
	for in, want := range map[string]string{
		"---\nname: a\ndescription: d\n---\nname: body\n":       "---\nname: b\ndescription: d\n---\nname: body\n",
		"---\r\ndescription: d\r\n---\r\nx\r\n":                 "---\r\nname: b\r\ndescription: d\r\n---\r\nx\r\n",
		"---\ndescription: d\n  name: nested\nname: 'a'\n---\n": "---\ndescription: d\n  name: nested\nname: b\n---\n",
		"\ufeff---\nname: a\n---\n":                             "\ufeff---\nname: b\n---\n",
		"\ufeff---\r\ndescription: d\r\n---\r\n":                "\ufeff---\r\nname: b\r\ndescription: d\r\n---\r\n",
		"---\nname: >-\n  a\n\tand more\nlicense: MIT\n---\n":   "---\nname: b\nlicense: MIT\n---\n",
		"---\n---\nbody\n":                                      "---\nname: b\n---\nbody\n",
		"no frontmatter\n":                                      "no frontmatter\n",
		"---\nname: a\nnever closed\n":                          "---\nname: a\nnever closed\n",
	} {
		if got := string(SetName([]byte(in), "b")); got != want {
			t.Errorf("SetName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBody: the body of files with and without frontmatter; an opening
// fence never closed is an error naming line 1.
func TestBody(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{"---\nname: a\n---\n# Body\ntext\n", "# Body\ntext\n", ""},
		{"\ufeff---\r\nname: a\r\n---\r\nbody\r\n", "body\r\n", ""},
		{"---\nname: a\ndescription: a: b\n---\nbroken YAML, body still printed\n", "broken YAML, body still printed\n", ""},
		{"---\nname: a\n---", "", ""},
		{"# No frontmatter\n---\n", "# No frontmatter\n---\n", ""},
		{"---\nname: a\nnever closed\n", "", "SKILL.md:1: frontmatter is never closed"},
	} {
		got, err := Body([]byte(c.in))
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Body(%q) error %v, want %q", c.in, err, c.err)
			}
		case err != nil || string(got) != c.want:
			t.Errorf("Body(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// TestParseErrors: each error names the file line and what to do.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		line int
		msg  string
	}{
		{"# Title\n", 1, "missing YAML frontmatter"},
		{"---\nname: x\n", 1, "frontmatter is never closed"},
		{"---\nname: x\ndescription: use when: always\n---\n", 3, "a value containing ': ' must be quoted"},
		{"---\nname: x\n\tdescription: y\n---\n", 3, "a tab indents this line"},
		{"---\na: &a x\nb: *a\n---\n", 3, "aliases are not accepted"},
		{"---\n- a\n- b\n---\n", 2, "found a list"},
		{"---\n42\n---\n", 2, `found the number "42"`},
	} {
		_, err := Parse([]byte(c.in))
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != c.line || !strings.Contains(pe.Msg, c.msg) {
			t.Errorf("Parse(%q) = %v, want line %d %q", c.in, err, c.line, c.msg)
		}
	}
}
