package plugins

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/pluginfmt"
)

// selected lists the names sel takes.
func selected(sel []string) string {
	p := &Plugin{Select: sel}
	var out []string
	for _, n := range selectNames {
		if p.Selects(n) {
			out = append(out, n)
		}
	}
	return strings.Join(out, " ")
}

// TestSelectionEdits applies plugin skills --add/--remove in sequence and
// checks both the recorded patterns and what they select.
func TestSelectionEdits(t *testing.T) {
	type step struct {
		op      string // "+pattern", "-pattern"
		want    string // the selection, space separated ("" for all)
		selects string
	}
	for _, tc := range []struct {
		name  string
		start []string
		steps []step
	}{
		{"remove from all, add back", nil, []step{
			{"-pdf", "* !pdf", "docx pptx xlsx xml"},
			{"-x*", "* !pdf !x*", "docx pptx"},
			{"+pdf", "* !x*", "docx pdf pptx"},
			{"+xml", "* !x* xml", "docx pdf pptx xml"},
			{"+x*", "", "docx pdf pptx xlsx xml"},
		}},
		{"narrow list down to nothing and back", []string{"pdf", "docx"}, []step{
			{"-pdf", "docx", "docx"},
			{"-docx", "!docx", ""},
			{"+docx", "docx", "docx"},
		}},
		{"glob with an exception", []string{"x*"}, []step{
			{"-xml", "x* !xml", "xlsx"},
			{"-xml", "x* !xml", "xlsx"}, // already so: unchanged
			{"+xml", "x*", "xlsx xml"},
			{"+pdf", "x* pdf", "pdf xlsx xml"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sel := tc.start
			for _, st := range tc.steps {
				if st.op[0] == '+' {
					sel = includeSkills(sel, st.op[1:], selectNames)
				} else {
					sel = excludeSkills(sel, st.op[1:], selectNames)
				}
				if got := strings.Join(sel, " "); got != st.want {
					t.Fatalf("after %s: selection %q, want %q", st.op, got, st.want)
				}
				if got := selected(sel); got != st.selects {
					t.Fatalf("after %s: selects %q, want %q", st.op, got, st.selects)
				}
			}
		})
	}
}

func TestSelectLayout(t *testing.T) {
	layout := func() *pluginfmt.Layout {
		return &pluginfmt.Layout{Plugins: []pluginfmt.PluginLayout{
			{Name: "office", Skills: []pluginfmt.SkillDir{{Name: "docx"}, {Name: "pdf"}, {Name: "xlsx"}}},
			{Name: "media", Skills: []pluginfmt.SkillDir{{Name: "audio"}, {Name: "video"}}},
		}}
	}
	src := Source{Kind: SourceFolder, URL: "/m"}

	l := layout()
	sels, err := SelectLayout(src, l, []string{"pdf", "x*"})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Plugins) != 1 || l.Plugins[0].Name != "office" || len(l.Skipped) != 1 || l.Skipped[0].Name != "media" {
		t.Fatalf("plugins %+v, skipped %+v: want office only, media skipped", l.Plugins, l.Skipped)
	}
	if got := strings.Join(sels[0], " "); got != "pdf x*" {
		t.Errorf("office's selection %q, want %q", got, "pdf x*")
	}
	var names []string
	for _, sk := range l.Plugins[0].Skills {
		names = append(names, sk.Name)
	}
	if !slices.Equal(names, []string{"pdf", "xlsx"}) {
		t.Errorf("office's skills %v, want [pdf xlsx]", names)
	}

	// A leading "!" starts from every skill; each plugin keeps the
	// patterns that matched its own skills.
	l = layout()
	sels, err = SelectLayout(src, l, []string{"!video"})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Plugins) != 2 || sels[0] != nil || strings.Join(sels[1], " ") != "* !video" {
		t.Errorf("selections %q for %d plugins, want [] and [* !video]", sels, len(l.Plugins))
	}

	_, err = SelectLayout(src, layout(), []string{"pdf", "nope", "z*"})
	var se *SelectionError
	if !errors.As(err, &se) || !slices.Equal(se.Patterns, []string{"nope", "z*"}) ||
		!slices.Equal(se.Available, []string{"audio", "docx", "pdf", "video", "xlsx"}) {
		t.Errorf("err %v, want a SelectionError for nope and z* listing the five skills", err)
	}
	if _, err := SelectLayout(src, layout(), []string{"[x"}); err == nil {
		t.Error("a malformed glob was taken")
	}
}

var selectNames = []string{"docx", "pdf", "pptx", "xlsx", "xml"}
