package plugins

import (
	"context"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
)

// TestQualifiedEntryID: NAME-QUALIFIER first, then numbered ids past
// those taken in the store or claimed by the same add, each a valid name
// of at most 64 characters however long the two parts are.
func TestQualifiedEntryID(t *testing.T) {
	ctx := context.Background()
	s := storetest.NewStore(t)
	long := strings.Repeat("x", 40)
	err := s.Update(ctx, func(tx *store.Tx) error {
		for _, id := range []string{"tool", "tool-market", "tool-market-2"} {
			if err := Put(tx, &Plugin{ID: id, Source: Source{Kind: SourceFolder, URL: "/nowhere/" + id}}); err != nil {
				return err
			}
		}
		for _, c := range []struct {
			name, qualifier string
			claimed         map[string]bool
			want            string
		}{
			{"tool", "other", nil, "tool-other"},
			{"tool", "market", nil, "tool-market-3"},
			{"tool", "market", map[string]bool{"tool-market-3": true}, "tool-market-4"},
			{long, long, nil, (long + "-" + long)[:64]},
		} {
			got, err := QualifiedID(tx, c.name, c.qualifier, c.claimed)
			if err != nil || got != c.want {
				t.Errorf("qualifiedEntryID(%s, %s) = %q, %v; want %q", c.name, c.qualifier, got, err, c.want)
			}
			if err := skillfs.CheckName(got); err != nil {
				t.Errorf("%q: %v", got, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestIDForOneError: --id for a source of several plugins names them
// (sorted, at most maxListedPlugins) and the command that picks one.
func TestIDForOneError(t *testing.T) {
	src := Source{Kind: SourceGit, URL: "https://example.com/m.git", Path: "market"}
	err := IDForOneError(src, "mine", []string{"zeta", "alpha", "mid"})
	want := "holds 3 (alpha, mid, zeta): pick one with 'skillstore plugin add https://example.com/m.git#market/#alpha --id mine'"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want it to hold %q", err, want)
	}
	var many []string
	for i := range 25 {
		many = append(many, string(rune('a'+i)))
	}
	if msg := IDForOneError(src, "x", many).Error(); !strings.Contains(msg, "holds 25 (a, b,") || !strings.Contains(msg, " and 5 more)") {
		t.Errorf("error for 25 plugins: %q", msg)
	}
	if sel, dir, err := parseFragment("m.git#market/#alpha", "market/#alpha"); err != nil || sel != "alpha" || dir != "market/" {
		t.Errorf("the source the error suggests reads as plugin %q, folder %q, %v", sel, dir, err)
	}
}

// A name a store cannot hold as an id is repaired, never refused; --id is
// taken as written.
func TestChooseIDRepairs(t *testing.T) {
	folder := Source{Kind: SourceFolder, URL: "/home/me/My Plugins"}
	for _, tc := range []struct {
		flag, name string
		src        Source
		want       string
	}{
		{"", "agent-tools", folder, "agent-tools"},
		{"", "Agent Tools", folder, "agent-tools"},
		{"", "C# Expert!", folder, "c-expert"},
		{"", "", folder, "my-plugins"},
		{"", "!!!", folder, "my-plugins"},
		{"Bad Id", "agent-tools", folder, "Bad Id"},
	} {
		if got := ChooseID(tc.flag, tc.name, tc.src); got != tc.want {
			t.Errorf("ChooseID(%q, %q, %s) = %q, want %q", tc.flag, tc.name, tc.src.URL, got, tc.want)
		}
	}
}
