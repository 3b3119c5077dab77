package store

import "testing"

func TestSetFrontmatterName(t *testing.T) {
	for in, want := range map[string]string{
		"---\nname: a\ndescription: d\n---\nname: body\n":       "---\nname: b\ndescription: d\n---\nname: body\n",
		"---\r\ndescription: d\r\n---\r\nx\r\n":                 "---\r\nname: b\r\ndescription: d\r\n---\r\nx\r\n",
		"---\ndescription: d\n  name: nested\nname: 'a'\n---\n": "---\ndescription: d\n  name: nested\nname: b\n---\n",
		"no frontmatter\n": "no frontmatter\n",
	} {
		if got := string(setFrontmatterName([]byte(in), "b")); got != want {
			t.Errorf("setFrontmatterName(%q) = %q, want %q", in, got, want)
		}
	}
}
