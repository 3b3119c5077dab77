package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/discover"
)

// TestAddedSkillVerifiesWithWarnings: a skill add accepts under the default
// (lenient) policy with warnings verifies: the warnings are reported for
// its latest version only, never as problems. --strict refuses it.
func TestAddedSkillVerifiesWithWarnings(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	dir := filepath.Join(t.TempDir(), "claude-api")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(body string) {
		md := "---\ndescription: " + strings.Repeat("d", 1068) + "\n---\n" + body + "\n"
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("v1")

	if _, err := s.Add(ctx, []string{dir}, AddOptions{Validation: discover.Strict, AllowRisk: defaultAdd().AllowRisk}); err == nil ||
		!strings.Contains(err.Error(), "description is 1068 characters, over the limit of 1024") {
		t.Fatalf("strict add: %v, want the description refused", err)
	}
	res, err := s.Add(ctx, []string{dir}, defaultAdd())
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Name != "claude-api" || len(discover.Verdict{Diagnostics: res[0].Diagnostics}.Warnings()) != 2 {
		t.Fatalf("add: name %q, diagnostics %v", res[0].Name, res[0].Diagnostics)
	}
	write("v2")
	if _, err := s.Add(ctx, []string{dir}, defaultAdd()); err != nil {
		t.Fatal(err)
	}

	rep, err := s.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Versions != 2 {
		t.Fatalf("verify: %+v", rep)
	}
	if len(rep.Warnings) != 2 {
		t.Fatalf("warnings %v, want the two of v2 only", rep.Warnings)
	}
	for _, w := range rep.Warnings {
		if w.Where != "claude-api@v2" || !strings.Contains(w.Message, "warning:") {
			t.Errorf("warning %v", w)
		}
	}
}
