package pluginfmt

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestReadDependencies(t *testing.T) {
	got, err := readDependencies(json.RawMessage(`["audit-logger", "notes@other", {"name": "vault", "version": "~2.1.0"}, {"name": "x", "marketplace": "m"}]`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"audit-logger", "notes@other", "vault ~2.1.0", "x@m"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i, d := range got {
		if d.String() != want[i] {
			t.Errorf("[%d] %q, want %q", i, d, want[i])
		}
	}
	for raw, msg := range map[string]string{
		`"audit-logger"`:                       "must be a list",
		`[""]`:                                 `"dependencies"[0] has no plugin name`,
		`[3]`:                                  `"dependencies"[0] must be a plugin name or an object`,
		`[{"name": "v", "version": "^x.1"}]`:   `"dependencies"[0] (v): version range "^x.1"`,
		`[{"name": "v", "version": 2}]`:        `"dependencies"[0] must be`,
		`["a", {"name": "b", "version": "*"}]`: "",
	} {
		_, err := readDependencies(json.RawMessage(raw))
		if msg == "" && err != nil || msg != "" && (err == nil || !strings.Contains(err.Error(), msg)) {
			t.Errorf("%s: %v, want %q", raw, err, msg)
		}
	}
}

func TestEntryWinsOverManifest(t *testing.T) {
	off, on := false, true
	p := PluginLayout{DefaultDisabled: true, Dependencies: []Dependency{{Name: "a"}, {Name: "b", Version: "^1"}}}
	p.Entry(&on, []Dependency{{Name: "b", Version: "^2"}, {Name: "c"}})
	if p.DefaultDisabled {
		t.Error("the entry's defaultEnabled: true did not win")
	}
	var names []string
	for _, d := range p.Dependencies {
		names = append(names, d.String())
	}
	if strings.Join(names, ",") != "b ^2,c,a" {
		t.Errorf("dependencies %v: the entry's first, then the manifest's it does not name", names)
	}
	p.Entry(&off, nil)
	if !p.DefaultDisabled {
		t.Error("defaultEnabled: false in the entry did not disable")
	}
	p.Entry(nil, nil)
	if !p.DefaultDisabled {
		t.Error("an entry that says nothing changed defaultEnabled")
	}
}
