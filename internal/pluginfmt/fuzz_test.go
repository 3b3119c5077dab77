package pluginfmt

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

// FuzzReadLayout feeds arbitrary manifests to ReadLayout: it must never
// panic, and every skill it returns must lie inside the source.
func FuzzReadLayout(f *testing.F) {
	f.Add(`{"name": "p", "skills": ["./skills/", "./extra/one"]}`, `{"plugins": [{"name": "a", "source": "./", "skills": ["./skills/x"]}]}`, "")
	f.Add(`{"name": "p", "skills": "../up"}`, `{"metadata": {"pluginRoot": "./plugins"}, "plugins": [{"name": "b", "source": "b"}]}`, "b")
	f.Add(`{"skills": 3}`, `{"plugins": [{"name": "c", "source": {"source": "github", "repo": "o/r"}}]}`, "c")
	f.Add(`not json`, `{"plugins": [{"name": "d", "source": "/etc"}]}`, "")
	f.Fuzz(func(t *testing.T, plugin, market, selector string) {
		skill := &fstest.MapFile{Data: []byte("---\nname: x\ndescription: d\n---\n")}
		base := fstest.MapFS{
			"skills/x/SKILL.md":                    skill,
			"extra/one/SKILL.md":                   skill,
			"plugins/b/skills/y/SKILL.md":          skill,
			"plugins/b/.claude-plugin/plugin.json": {Data: []byte(plugin)},
			"link":                                 {Data: []byte("../outside"), Mode: fs.ModeSymlink | 0o777},
			ClaudePluginManifest:                   {Data: []byte(plugin)},
		}
		for _, withMarket := range []bool{false, true} {
			fsys := fstest.MapFS{}
			for k, v := range base {
				fsys[k] = v
			}
			if withMarket {
				fsys[MarketplaceManifest] = &fstest.MapFile{Data: []byte(market)}
			}
			layout, err := ReadLayout(fsys, selector)
			if err != nil {
				continue
			}
			for _, p := range layout.Plugins {
				for _, s := range p.Skills {
					if escapes(s.Path) || strings.HasPrefix(s.Path, "/") || !within(p.Root, s.Path) {
						t.Fatalf("skill %s at %q outside plugin root %q", s.Name, s.Path, p.Root)
					}
				}
			}
		}
	})
}
