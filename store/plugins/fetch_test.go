package plugins

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/store/internal/storetest"
)

func TestParseSource(t *testing.T) {
	up, _, _ := storetest.UpstreamRepo(t)
	folder := t.TempDir()
	cases := []struct {
		arg, ref string
		kind     SourceKind
		url, sel string
		wantErr  string
	}{
		{arg: "https://github.com/anthropics/skills.git#document-skills", kind: SourceGit, url: "https://github.com/anthropics/skills.git", sel: "document-skills"},
		{arg: "git@github.com:obra/superpowers.git", ref: "v4.0.3", kind: SourceGit, url: "git@github.com:obra/superpowers.git"},
		{arg: "file://" + up, kind: SourceGit, url: "file://" + up},
		{arg: up, kind: SourceGit, url: up},
		{arg: folder + "#p", kind: SourceFolder, url: folder, sel: "p"},
		// A git source is kept in the form that is fetched and checked.
		{arg: "https://git.example.com/acme/../evil/x.git#p", kind: SourceGit, url: "https://git.example.com/evil/x.git", sel: "p"},
		{arg: "https://Git.Example.com//acme/%2e/x.git/", kind: SourceGit, url: "https://git.example.com/acme/x.git"},
		{arg: "git@github.com:acme/./../obra/superpowers.git", kind: SourceGit, url: "git@github.com:obra/superpowers.git"},
		{arg: "https://github.com/anthropics/skills?tab=readme-ov-file", kind: SourceGit, url: "https://github.com/anthropics/skills.git"},
		{arg: "https://git.example.com/acme%2f..%2fevil/x.git", wantErr: "holds an encoded '/'"},
		{arg: "https://git.example.com/x.git?ref=main", wantErr: "its query"},
		{arg: "ssh://-oProxyCommand=touch/x.git", wantErr: "starts with '-'"},
		{arg: folder, ref: "main", wantErr: "is a folder, not a git repository: --ref needs a git repository"},
		{arg: filepath.Join(folder, "nope"), wantErr: "no such file or directory"},
	}
	for _, tc := range cases {
		src, err := ParseSource(tc.arg, tc.ref)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseSource(%q) error = %v, want %q", tc.arg, err, tc.wantErr)
			}
			continue
		}
		if err != nil || src.Kind != tc.kind || src.URL != tc.url || src.Selector != tc.sel || src.Ref != tc.ref {
			t.Errorf("ParseSource(%q) = %+v, %v", tc.arg, src, err)
		}
	}
}
