package discover

import (
	"fmt"
	"strings"
	"testing"
)

// Findings of one kind beyond a few are one line with a count; another
// kind keeps its own line. (Unknown keys are strict errors; agents ignore
// them, so the lenient policy says nothing of them.)
func TestRepeatedWarningsCollapse(t *testing.T) {
	var md strings.Builder
	md.WriteString("---\nname: keys\ndescription: Many keys.\n")
	for i := range 10000 {
		fmt.Fprintf(&md, "k%d: v\n", i)
	}
	md.WriteString("agent: y\n---\nBody.\n")
	v := Check("keys/SKILL.md", "keys", []byte(md.String()), Strict)
	var unknown, agent []string
	for _, d := range v.Diagnostics {
		switch {
		case strings.Contains(d.Message, "unknown frontmatter key"):
			unknown = append(unknown, d.String())
		case strings.Contains(d.Message, "context: fork"):
			agent = append(agent, d.String())
		}
	}
	want := `keys/SKILL.md:4: error: unknown frontmatter key "k0"`
	if len(unknown) != 1 || !strings.HasPrefix(unknown[0], want) || !strings.HasSuffix(unknown[0], "(and 9999 more like it, to line 10003)") {
		t.Errorf("unknown keys: %d lines %q, want one: %s ... (and 9999 more like it, to line 10003)", len(unknown), unknown[:min(len(unknown), 2)], want)
	}
	if len(agent) != 1 {
		t.Errorf("the agent key: %q, want its own warning", agent)
	}
	if len(v.Errors()) != 1 || v.Accepted() {
		t.Errorf("verdict: %d errors, accepted %v", len(v.Errors()), v.Accepted())
	}
	if lv := Check("keys/SKILL.md", "keys", []byte(md.String()), Lenient); !lv.Accepted() || len(lv.Diagnostics) != 1 {
		t.Errorf("lenient: %d findings, accepted %v; want the agent key's alone", len(lv.Diagnostics), lv.Accepted())
	}
}

// Up to maxSameKind findings of a kind are each their own line.
func TestFewWarningsStayApart(t *testing.T) {
	md := "---\nname: few\ndescription: Few keys.\na: 1\nb: 2\nc: 3\n---\nBody.\n"
	v := Check("few/SKILL.md", "few", []byte(md), Strict)
	if len(v.Errors()) != 3 || strings.Contains(v.Errors()[2].Message, "more like it") {
		t.Errorf("three unknown keys: %v", v.Errors())
	}
}
