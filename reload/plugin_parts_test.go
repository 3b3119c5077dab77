package reload

import (
	"slices"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
)

func TestClassifyParts(t *testing.T) {
	manifest := skillfs.File{Path: ".claude-plugin/plugin.json", Data: []byte(`{"name":"p"}`)}
	manifest2 := skillfs.File{Path: ".claude-plugin/plugin.json", Data: []byte(`{"name":"p","version":"2"}`)}
	hooks := skillfs.File{Path: "hooks/hooks.json", Data: []byte(`{"hooks":{}}`)}
	hooks2 := skillfs.File{Path: "hooks/hooks.json", Data: []byte(`{"hooks":{"Stop":[]}}`)}
	mcp := skillfs.File{Path: ".mcp.json", Data: []byte(`{}`)}
	readme := skillfs.File{Path: "README.md", Data: []byte("a")}
	// A SKILL.md at the top would be a hot edit for a skill; in parts it
	// is cold like everything else.
	odd := skillfs.File{Path: "SKILL.md", Data: []byte("a")}
	odd2 := skillfs.File{Path: "SKILL.md", Data: []byte("b")}
	tests := []struct {
		name     string
		old, new []skillfs.File
		class    Class
		kinds    []string
	}{
		{"unchanged", []skillfs.File{manifest, hooks}, []skillfs.File{manifest, hooks}, Unchanged, nil},
		{"hook changed", []skillfs.File{manifest, hooks}, []skillfs.File{manifest, hooks2}, Cold, []string{PartHooks}},
		{"manifest changed", []skillfs.File{manifest, hooks}, []skillfs.File{manifest2, hooks}, Cold, []string{PartManifest}},
		{"MCP added, README changed", []skillfs.File{manifest, readme}, []skillfs.File{manifest, mcp, {Path: "README.md", Data: []byte("b")}}, Cold, []string{PartMCP, PartOther}},
		{"top SKILL.md edit", []skillfs.File{odd}, []skillfs.File{odd2}, Cold, []string{PartOther}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ClassifyParts(mustTree(t, tc.old...), mustTree(t, tc.new...))
			if c.Class != tc.class {
				t.Errorf("class = %s, want %s (paths %v)", c.Class, tc.class, c.Paths)
			}
			if got := PartKinds(c.Paths); !slices.Equal(got, tc.kinds) {
				t.Errorf("kinds = %v, want %v", got, tc.kinds)
			}
		})
	}
	if c := ClassifyParts(nil, mustTree(t, manifest)); c.Class != Cold {
		t.Errorf("first install: %s, want cold", c.Class)
	}
}
