package pluginfmt_test

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillstore/skillstore/internal/pluginfmt"
)

// TestReadEntryPlugin reads the folder a remote marketplace entry names:
// the entry's skills list wins over the plugin's manifest, a folder that is
// itself a marketplace gives its plugin of the entry's name, and a plugin
// without skills says so.
func TestReadEntryPlugin(t *testing.T) {
	md := &fstest.MapFile{Data: []byte("---\nname: x\ndescription: d\n---\n")}
	cases := []struct {
		name    string
		fsys    fstest.MapFS
		entry   string
		skills  []string
		want    string // "manifest: skill=path ..."
		wantErr string
	}{
		{name: "plugin manifest", entry: "p",
			fsys: fstest.MapFS{".claude-plugin/plugin.json": {Data: []byte(`{"name": "p"}`)}, "skills/a/SKILL.md": md, "skills/b/SKILL.md": md},
			want: ".claude-plugin/plugin.json: a=skills/a b=skills/b"},
		{name: "the entry's skills win", entry: "p", skills: []string{"./skills/b"},
			fsys: fstest.MapFS{".claude-plugin/plugin.json": {Data: []byte(`{"name": "p"}`)}, "skills/a/SKILL.md": md, "skills/b/SKILL.md": md},
			want: ".claude-plugin/marketplace.json: b=skills/b"},
		{name: "a marketplace repository gives the plugin of the entry's name", entry: "two",
			fsys: fstest.MapFS{".claude-plugin/marketplace.json": {Data: []byte(`{"plugins": [{"name": "one", "source": "./one"}, {"name": "two", "source": "./two"}]}`)},
				"one/skills/a/SKILL.md": md, "two/skills/b/SKILL.md": md},
			want: ".claude-plugin/marketplace.json: b=two/skills/b"},
		{name: "commands only", entry: "p",
			fsys: fstest.MapFS{".claude-plugin/plugin.json": {Data: []byte(`{"name": "p"}`)}, "commands/c.md": {Data: []byte("c")}},
			want: ".claude-plugin/plugin.json:"},
		{name: "nothing at all", entry: "p", fsys: fstest.MapFS{"README.md": {Data: []byte("hi")}}, wantErr: pluginfmt.ErrNoSkills.Error()},
		{name: "a skills path leaving the folder", entry: "p", skills: []string{"../x"},
			fsys: fstest.MapFS{"skills/a/SKILL.md": md}, wantErr: "path escapes the plugin root"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := pluginfmt.ReadEntryPlugin(tc.fsys, tc.entry, tc.skills)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				if tc.wantErr == pluginfmt.ErrNoSkills.Error() && !errors.Is(err, pluginfmt.ErrNoSkills) {
					t.Errorf("error %v does not wrap ErrNoSkills", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := p.Manifest + ":"
			for _, s := range p.Skills {
				got += " " + s.Name + "=" + s.Path
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
