package plugins

import (
	"strings"
	"testing"
)

// TestParseSourceKinds reads what a user types into the kind it names:
// a release range after the last '@' only when it reads as one, http(s)
// URLs by what their path ends in, npm:NAME by npm's name rule.
func TestParseSourceKinds(t *testing.T) {
	t.Setenv(NPMRegistryEnv, "https://npm.example.com/")
	t.Setenv(GitHubURLEnv, "")
	cases := []struct {
		in         string
		kind       SourceKind
		url, tags  string
		wantErrSub string
	}{
		{in: "https://example.com/x/acme.tar.gz", kind: SourceArchive, url: "https://example.com/x/acme.tar.gz"},
		{in: "https://example.com/a/b.ZIP", kind: SourceArchive, url: "https://example.com/a/b.ZIP"},
		{in: "http://example.com/docs/pdf/SKILL.md", kind: SourceSkillMD, url: "http://example.com/docs/pdf/SKILL.md"},
		{in: "https://docs.example.com/.well-known/skills/index.json", kind: SourceWellKnown, url: "https://docs.example.com/.well-known/skills/index.json"},
		{in: "https://docs.example.com/.well-known/agent-skills/index.json", kind: SourceWellKnown, url: "https://docs.example.com/.well-known/agent-skills/index.json"},
		{in: "npm:@acme/tools@^1.2", kind: SourceNPM, url: "https://npm.example.com/@acme/tools", tags: "^1.2"},
		{in: "npm:left-pad", kind: SourceNPM, url: "https://npm.example.com/left-pad"},
		{in: "npm:Bad_Name", wantErrSub: "is not an npm package name"},
		{in: "https://git.example.com/acme/skills.git@~1.2.3", kind: SourceGit, url: "https://git.example.com/acme/skills.git", tags: "~1.2.3"},
		{in: "https://git.example.com/acme/skills.git@v2", kind: SourceGit, url: "https://git.example.com/acme/skills.git", tags: "v2"},
		{in: "git@git.example.com:acme/skills.git", kind: SourceGit, url: "git@git.example.com:acme/skills.git"},
		{in: "https://user@git.example.com/acme/skills.git", kind: SourceGit, url: "https://user@git.example.com/acme/skills.git"},
		{in: "https://git.example.com/acme/skills.git@^1.2.3.4", wantErrSub: "more than three numbers"},
		{in: "https://example.com/x.tar.gz@^1", wantErrSub: "needs a git repository or an npm package"},
		{in: "https://github.com/acme/skills/blob/main/skills/pdf/SKILL.md", wantErrSub: "not a repository or a /tree/REF/PATH address"},
		{in: "https://github.com/acme/skills/archive/refs/tags/v1.0.0.tar.gz", kind: SourceArchive, url: "https://github.com/acme/skills/archive/refs/tags/v1.0.0.tar.gz"},
	}
	for _, c := range cases {
		src, err := ParseSource(c.in, "")
		if c.wantErrSub != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErrSub) {
				t.Errorf("%s: %v, want an error with %q", c.in, err, c.wantErrSub)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if src.Kind != c.kind || src.URL != c.url || src.Tags != c.tags {
			t.Errorf("%s: got %s %s tags %q, want %s %s tags %q", c.in, src.Kind, src.URL, src.Tags, c.kind, c.url, c.tags)
		}
	}
	if _, err := ParseSource("https://example.com/x.zip", "main"); err == nil || !strings.Contains(err.Error(), "--ref needs a git repository") {
		t.Errorf("--ref on an archive: %v", err)
	}
}
