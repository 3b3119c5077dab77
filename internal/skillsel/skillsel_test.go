package skillsel

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// Each form of pattern selects what its documentation says, and nothing
// else: qualified globs, names and plugin names, tags; Except wins.
func TestSelection(t *testing.T) {
	tags := Tags{"work": {"deploy": true, "superpowers:brainstorming": true}}
	names := []string{"deploy", "lint", "superpowers:brainstorming", "superpowers:writing-plans", "tools:deploy"}
	cases := []struct {
		sel  Selection
		want string
	}{
		{Selection{}, "deploy lint superpowers:brainstorming superpowers:writing-plans tools:deploy"},
		{Selection{Only: []string{"*"}}, "deploy lint superpowers:brainstorming superpowers:writing-plans tools:deploy"},
		{Selection{Only: []string{"deploy"}}, "deploy"},
		{Selection{Only: []string{"superpowers"}}, "superpowers:brainstorming superpowers:writing-plans"},
		{Selection{Only: []string{"*:deploy"}}, "tools:deploy"},
		{Selection{Only: []string{"super*:*plans"}}, "superpowers:writing-plans"},
		{Selection{Only: []string{"@work"}}, "deploy superpowers:brainstorming"},
		{Selection{Only: []string{"@none"}}, ""},
		{Selection{Except: []string{"superpowers", "@work"}}, "lint tools:deploy"},
		{Selection{Only: []string{"superpowers", "lint"}, Except: []string{"*:brainstorming"}}, "lint superpowers:writing-plans"},
		// "!" leaves out, as plugin add --skill reads it: in order, the
		// last pattern selecting a skill decides; a list starting with
		// "!" starts from every skill.
		{Selection{Only: []string{"!lint"}}, "deploy superpowers:brainstorming superpowers:writing-plans tools:deploy"},
		{Selection{Only: []string{"!superpowers", "!@work"}}, "lint tools:deploy"},
		{Selection{Only: []string{"superpowers", "!*:brainstorming"}}, "superpowers:writing-plans"},
		{Selection{Only: []string{"!superpowers", "*:brainstorming"}}, "deploy lint superpowers:brainstorming tools:deploy"},
		{Selection{Only: []string{"!*"}}, ""},
		{Selection{Only: []string{"!lint"}, Except: []string{"tools"}}, "deploy superpowers:brainstorming superpowers:writing-plans"},
	}
	for _, c := range cases {
		var got []string
		for _, n := range names {
			if c.sel.Wants(n, tags) {
				got = append(got, n)
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: %q, want %q", c.sel, got, c.want)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, ok := range []string{"deploy", "git-*", "superpowers:*", "*", "@work", "[a-c]*", "!deploy", "!@work", "!*:x"} {
		if err := Check(ok); err != nil {
			t.Errorf("Check(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "a/b", "a:b:c", "[", "@", "@Work", "@a b", `a\b`, "!", "!!x", "!a/b"} {
		if err := Check(bad); err == nil {
			t.Errorf("Check(%q) accepted it", bad)
		} else if !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("Check(%q): %v does not name the pattern", bad, err)
		}
	}
}

// Where nothing is read in order to leave a skill out of, "!" is refused
// with what to give instead, never read as a name.
func TestCheckPlainRefusesLeaveOut(t *testing.T) {
	err := CheckPlain("!alpha", "give --except 'PATTERN'")
	if !errors.Is(err, ErrLeaveOut) || err.Error() != `"!alpha": '!' leaves skills out of an --only list; give --except 'alpha'` {
		t.Errorf("CheckPlain(!alpha): %v", err)
	}
	if err := CheckPlain("alpha", "x"); err != nil {
		t.Errorf("CheckPlain(alpha): %v", err)
	}
	if err := CheckPlain("a/b", "x"); !errors.Is(err, ErrPattern) {
		t.Errorf("CheckPlain(a/b): %v", err)
	}
}
