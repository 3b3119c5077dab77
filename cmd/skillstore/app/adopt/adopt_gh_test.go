package adopt

import "testing"

// TestRestoreGHSkillMD: gh's keys come out line by line, the metadata key
// with them when nothing else is in it; upstream's bytes come back when
// the rest means the same (gh re-serialised it); anything else is kept.
func TestRestoreGHSkillMD(t *testing.T) {
	const gh = "---\ndescription: Deploys the app safely.\nlicense: MIT\nmetadata:\n    github-path: skills/deploy\n    github-pinned: v1.0.0\n" +
		"    github-ref: refs/tags/v1.0.0\n    github-repo: https://github.com/acme/tools\n    github-tree-sha: 0123\nname: deploy\n---\nRun it.\n"
	const upstream = "---\nname: deploy\ndescription: >-\n  Deploys the app\n  safely.\nlicense: MIT\n---\nRun it.\n"
	for _, tc := range []struct{ name, installed, upstream, want string }{
		{"upstream's bytes", gh, upstream, upstream},
		{"no upstream: the keys out", gh, "", "---\ndescription: Deploys the app safely.\nlicense: MIT\nname: deploy\n---\nRun it.\n"},
		{"an edited body is kept", gh[:len(gh)-len("Run it.\n")] + "Run it twice.\n", upstream,
			"---\ndescription: Deploys the app safely.\nlicense: MIT\nname: deploy\n---\nRun it twice.\n"},
		{"other metadata stays", "---\nmetadata:\n    author: acme\n    github-repo: acme/tools\n    version: 2\nname: x\n---\nb\n", "",
			"---\nmetadata:\n    author: acme\n    version: 2\nname: x\n---\nb\n"},
		{"the last key", "---\nname: x\nmetadata:\n  github-repo: acme/tools\n  github-ref: main\n---\nb\n", "", "---\nname: x\n---\nb\n"},
		{"no gh keys: unchanged", "---\nname: x\nmetadata:\n  author: a\n---\nb\n", "", "---\nname: x\nmetadata:\n  author: a\n---\nb\n"},
		{"flow metadata: unchanged", "---\nname: x\nmetadata: {github-repo: a/b}\n---\nb\n", "", "---\nname: x\nmetadata: {github-repo: a/b}\n---\nb\n"},
		{"no frontmatter: unchanged", "just text\n", "", "just text\n"},
	} {
		var up []byte
		if tc.upstream != "" {
			up = []byte(tc.upstream)
		}
		if got := string(restoreGHSkillMD([]byte(tc.installed), up)); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestNpxSafeName is the folder name npx skills gives a skill's name.
func TestNpxSafeName(t *testing.T) {
	for in, want := range map[string]string{"Agent Docs": "agent-docs", "pdf": "pdf", "../../etc": "etc", "a_b.c": "a_b.c", "--": "unnamed-skill", "Ünïcode Skill": "n-code-skill"} {
		if got := npxSafeName(in); got != want {
			t.Errorf("npxSafeName(%q) = %q, want %q", in, got, want)
		}
	}
}
