package skillfs

import (
	"reflect"
	"testing"
)

func link(p, target string) File { return File{Path: p, Mode: Symlink, Data: []byte(target)} }
func plain(p string) File        { return File{Path: p, Mode: Regular, Data: []byte("x")} }

// TestCheckLinks: links that stay inside are kept, each way out is named.
func TestCheckLinks(t *testing.T) {
	cases := []struct {
		name  string
		files []File
		want  map[string]string // refused link -> reason
	}{
		{"sibling file", []File{plain("CLAUDE.md"), link("AGENTS.md", "CLAUDE.md")}, nil},
		{"into a folder and up to the top", []File{plain("docs/a.md"), link("refs/a.md", "../docs/a.md"), link("refs/docs", "../docs")}, nil},
		{"dangling inside", []File{link("gone", "missing/file")}, nil},
		{"chain inside", []File{plain("x"), link("a", "b"), link("b", "c"), link("c", "x")}, nil},
		{"absolute", []File{link("leak", "/etc/passwd")}, map[string]string{"leak": LinkAbsolute}},
		{"drive letter", []File{link("leak", "C:/Windows")}, map[string]string{"leak": LinkAbsolute}},
		{"backslash", []File{link("leak", `..\..\x`)}, map[string]string{"leak": LinkAbsolute}},
		{"empty", []File{link("e", "")}, map[string]string{"e": LinkBadText}},
		{"up out of the top", []File{link("shim", "../../bin/pip3")}, map[string]string{"shim": LinkEscapes}},
		{"up out from below", []File{link("hooks/shims/pip3", "../../../x")}, map[string]string{"hooks/shims/pip3": LinkEscapes}},
		{"dot-dot after a name", []File{plain("a/b"), link("l", "a/../../x")}, map[string]string{"l": LinkDotDot}},
		// sub/up resolves to the top, so up/.. would be the top's parent
		// to the kernel while the text says sub: refused before that.
		{"through a link then up", []File{link("sub/up", ".."), link("sub/x", "up/../etc")}, map[string]string{"sub/up": LinkLoops, "sub/x": LinkDotDot}},
		{"through an escaping link", []File{link("out", "../.."), link("in", "out/etc/passwd")}, map[string]string{"out": LinkEscapes, "in": "goes through a link that " + LinkEscapes}},
		{"self", []File{link("a", "a")}, map[string]string{"a": LinkLoops}},
		{"two in a ring", []File{link("a", "b"), link("b", "a")}, map[string]string{"a": LinkLoops, "b": LinkLoops}},
		{"to its own folder", []File{plain("d/f"), link("d/self", ".")}, map[string]string{"d/self": LinkLoops}},
		{"to the top", []File{plain("f"), link("top", ".")}, map[string]string{"top": LinkLoops}},
		{"folders that lead to each other", []File{plain("a/f"), plain("c/f"), link("a/b", "../c"), link("c/d", "../a")}, map[string]string{"a/b": LinkLoops, "c/d": LinkLoops}},
		{"a link into a looping folder stays", []File{plain("references/f"), link("docs", "references"), link("references/back", "../docs")},
			map[string]string{"references/back": LinkLoops}},
		// macOS and Windows resolve Up as up: the fold makes it a link.
		{"other letter case", []File{link("sub/up", "../x/.."), link("sub/y", "UP")}, map[string]string{"sub/up": LinkDotDot, "sub/y": "goes through a link that " + LinkDotDot}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := map[string]string{}
			for _, e := range CheckLinks(c.files) {
				got[e.Path] = e.Reason
			}
			want := c.want
			if want == nil {
				want = map[string]string{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("refused %q\nwant %q", got, want)
			}
		})
	}
}

func TestLinkErrorQuotes(t *testing.T) {
	errs := CheckLinks([]File{link("a\nb", "/etc/\x1b[2J")})
	if len(errs) != 1 {
		t.Fatalf("%d errors", len(errs))
	}
	if got, want := errs[0].Error(), `"a\nb": symlink to "/etc/\033[2J" `+LinkAbsolute; got != want {
		t.Errorf("Error() = %q\nwant %q", got, want)
	}
}
