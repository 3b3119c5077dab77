package plugins

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writePolicy(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSourcePolicyMatches(t *testing.T) {
	t.Setenv(GitHubURLEnv, "file:///srv/mirror")
	dir := t.TempDir()
	path := writePolicy(t, dir, "policy", `# what the team may use
host git.example.com
host *.corp.example
host 127.0.0.1:9418
owner github.com/acme      # all of acme
repo github.com/obra/superpowers
marketplace github.com/acme-market/plugins
local /srv/skills
`)
	p := LoadSourcePolicy(path, filepath.Join(dir, "missing"))
	if p == nil {
		t.Fatal("a policy file that exists gave no policy")
	}
	cases := []struct {
		url    string
		kind   SourceKind
		market string
		ok     bool
	}{
		{"https://git.example.com/team/skills.git", SourceGit, "", true},
		{"ssh://git@git.example.com:2222/team/skills.git", SourceGit, "", true},
		{"git@git.example.com:team/skills.git", SourceGit, "", true},
		{"https://evil.example.com/team/skills.git", SourceGit, "", false},
		{"https://git.example.com.evil.net/x.git", SourceGit, "", false},
		{"https://a.b.corp.example/x.git", SourceGit, "", true},
		{"https://corp.example/x.git", SourceGit, "", false},
		{"git://127.0.0.1:9418/x", SourceGit, "", true},
		{"git://127.0.0.1:4000/x", SourceGit, "", false},
		{"https://github.com/acme/skills.git", SourceGit, "", true},
		{"https://github.com/acme", SourceGit, "", false},
		{"https://github.com/acmeevil/skills.git", SourceGit, "", false},
		{"file:///srv/mirror/acme/tools.git", SourceGit, "", true}, // the GitHub mirror
		{"https://github.com/obra/superpowers", SourceGit, "", true},
		{"https://github.com/obra/other", SourceGit, "", false},
		{"https://github.com/acme-market/plugins.git", SourceGit, "", true},
		{"https://gitlab.com/someone/plugin.git", SourceGit, "https://github.com/acme-market/plugins.git", true},
		{"https://gitlab.com/someone/plugin.git", SourceGit, "https://github.com/acme-market/plugins.git (folder market)", true},
		{"https://gitlab.com/someone/plugin.git", SourceGit, "https://github.com/other/plugins.git", false},
		{"https://gitlab.com/someone/plugin.git", SourceGit, "", false},
		{"/srv/skills/team", SourceFolder, "", true},
		{"file:///srv/skills/repo", SourceGit, "", true},
		{"/srv/skills-evil", SourceFolder, "", false},
		{"/home/me/private", SourceFolder, "", false},
	}
	for _, c := range cases {
		err := p.Check(Source{Kind: c.kind, URL: c.url}, c.market)
		if (err == nil) != c.ok {
			t.Errorf("Check(%s, market %q) = %v, want allowed %v", c.url, c.market, err, c.ok)
		}
		if err != nil && (!errors.Is(err, ErrSourceNotAllowed) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "owner github.com/acme")) {
			t.Errorf("refusal of %s does not name the file and the patterns: %v", c.url, err)
		}
	}
}

// TestSourcePolicyEveryFileRestricts checks that a user file can narrow the
// system's policy but never widen it.
func TestSourcePolicyEveryFileRestricts(t *testing.T) {
	dir := t.TempDir()
	system := writePolicy(t, dir, "system", "owner github.com/acme\n")
	user := writePolicy(t, dir, "user", "host github.com\nhost evil.example\n")
	p := LoadSourcePolicy(system, user)
	if err := p.Check(Source{Kind: SourceGit, URL: "https://github.com/acme/x.git"}, ""); err != nil {
		t.Errorf("a source both files allow was refused: %v", err)
	}
	err := p.Check(Source{Kind: SourceGit, URL: "https://evil.example/x.git"}, "")
	var pe *PolicyError
	if !errors.As(err, &pe) || pe.File != system {
		t.Errorf("a source only the user file allows: %v, want the system file %s to refuse it", err, system)
	}
	if err := LoadSourcePolicy(writePolicy(t, dir, "empty", "# nothing yet\n")).Check(Source{Kind: SourceGit, URL: "https://github.com/acme/x.git"}, ""); err == nil || !strings.Contains(err.Error(), "lists no pattern") {
		t.Errorf("an empty policy file allowed a source, or said nothing useful: %v", err)
	}
	if LoadSourcePolicy(filepath.Join(dir, "none")) != nil {
		t.Error("no policy file gave a policy")
	}
}

// TestSourcePolicyBrokenRefusesAll checks that a bad line makes the file
// allow nothing (fail closed), naming the file and line.
func TestSourcePolicyBrokenRefusesAll(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"kind":     "host github.com\nhots evil.example\n",
		"fields":   "host github.com\nowner github.com/acme extra\n",
		"scheme":   "repo https://github.com/acme/x\n",
		"relative": "local skills\n",
		"hostpath": "host github.com/acme\n",
	} {
		path := writePolicy(t, dir, name, text)
		err := LoadSourcePolicy(path).Check(Source{Kind: SourceGit, URL: "https://github.com/acme/x.git"}, "")
		if err == nil || !strings.Contains(err.Error(), path+":") || !strings.Contains(err.Error(), "allows no source") {
			t.Errorf("%s: a broken policy gave %v, want a refusal naming %s and its line", name, err, path)
		}
	}
	fifo := filepath.Join(dir, "dir")
	if err := os.Mkdir(fifo, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := LoadSourcePolicy(fifo).Check(Source{Kind: SourceGit, URL: "https://github.com/acme/x.git"}, ""); err == nil {
		t.Error("a policy path that is a folder allowed a source")
	}
}

// TestSourcePolicyHidesPassword checks that a refusal never prints a
// remote's password.
func TestSourcePolicyHidesPassword(t *testing.T) {
	path := writePolicy(t, t.TempDir(), "policy", "host git.example.com\n")
	err := LoadSourcePolicy(path).Check(Source{Kind: SourceGit, URL: "https://bob:s3cret@evil.example/x.git"}, "")
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "bob@evil.example") {
		t.Errorf("refusal = %v, want the URL without its password", err)
	}
}

// TestSourcePolicyCanonical checks that the policy reads a URL in the form
// that is fetched: dot segments in any spelling are resolved before the
// match (acme/../evil is evil's), an owner is matched segment by segment,
// and a URL with no one form is refused before any match.
func TestSourcePolicyCanonical(t *testing.T) {
	t.Setenv(GitHubURLEnv, "file:///srv/mirror")
	path := writePolicy(t, t.TempDir(), "policy", "owner h.example/git/acme\nowner github.com/acme\n")
	p := LoadSourcePolicy(path)
	for _, c := range []struct {
		url     string
		ok      bool
		refusal string // what the error says
	}{
		{"http://h.example/git/acme/good.git", true, ""},
		{"http://h.example/git/acme/./good.git", true, ""},
		{"http://h.example/git//acme/good.git", true, ""},
		{"http://h.example/git/acme/x/../good.git", true, ""},
		{"http://h.example/git/acme/../evil/bad.git", false, "not allowed by the source policy"},
		{"http://h.example/git/acme/%2e%2e/evil/bad.git", false, "not allowed by the source policy"},
		{"http://h.example/git/acme//../evil/bad.git", false, "not allowed by the source policy"},
		{"http://h.example/git/acme/./../evil/bad.git", false, "not allowed by the source policy"},
		{"git@h.example:git/acme/../evil/bad.git", false, "not allowed by the source policy"},
		{"file:///srv/mirror/acme/../evil/tools.git", false, "not allowed by the source policy"}, // the GitHub mirror
		{"http://h.example/git/acme%2f..%2fevil/bad.git", false, "encoded '/'"},
		{"http://h.example/git/acme/..%2fevil/bad.git", false, "encoded '/'"},
		{"http://h.example/git/acme-corp/x.git", false, "not allowed by the source policy"},
		{"http://h.example/git/acme", false, "not allowed by the source policy"},
		{"ssh://-oProxyCommand=x/git/acme/x.git", false, "starts with '-'"},
	} {
		err := p.Check(Source{Kind: SourceGit, URL: c.url}, "")
		if (err == nil) != c.ok || err != nil && !strings.Contains(err.Error(), c.refusal) {
			t.Errorf("Check(%s) = %v, want allowed %v (%s)", c.url, err, c.ok, c.refusal)
		}
	}
	// An owner pattern is written plainly.
	for _, bad := range []string{"owner h.example/git/../acme\n", "owner h.example/git//acme\n", "repo h.example/acme/%2e%2e\n"} {
		path := writePolicy(t, t.TempDir(), "policy", bad)
		if err := LoadSourcePolicy(path).Check(Source{Kind: SourceGit, URL: "http://h.example/git/acme/x.git"}, ""); err == nil || !strings.Contains(err.Error(), "allows no source") {
			t.Errorf("policy %q: %v, want the file refused", bad, err)
		}
	}
}

// TestLocalSourceSymlinkEscape checks that a folder allowed on this machine
// (the policy's local DIR, --allow-local DIR) covers what is really inside
// it: a symbolic link in it to a repository elsewhere is not covered, a
// link to a place inside it is.
func TestLocalSourceSymlinkEscape(t *testing.T) {
	root := t.TempDir()
	allowed, private := filepath.Join(root, "allowed"), filepath.Join(root, "private")
	for _, d := range []string{filepath.Join(allowed, "repo"), private} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"out": private, "in": filepath.Join(allowed, "repo"), "dangling": filepath.Join(root, "later")} {
		if err := os.Symlink(to, filepath.Join(allowed, link)); err != nil {
			t.Fatal(err)
		}
	}
	policy := LoadSourcePolicy(writePolicy(t, root, "policy", "local "+allowed+"\n"))
	for _, c := range []struct {
		url string
		ok  bool
	}{
		{filepath.Join(allowed, "repo"), true},
		{"file://" + filepath.Join(allowed, "in"), true},
		{"file://" + filepath.Join(allowed, "out"), false},
		{filepath.Join(allowed, "out", "sub"), false},
		{filepath.Join(allowed, "dangling"), false},
		{filepath.Join(allowed, "repo", "..", "..", "private"), false},
	} {
		src := Source{Kind: SourceGit, URL: c.url}
		if err := policy.Check(src, ""); (err == nil) != c.ok {
			t.Errorf("policy: Check(%s) = %v, want allowed %v", c.url, err, c.ok)
		}
		err := CheckNamedSource(src, []string{allowed})
		if (err == nil) != c.ok {
			t.Errorf("--allow-local: CheckNamedSource(%s) = %v, want allowed %v", c.url, err, c.ok)
		}
		if err != nil && !errors.Is(err, ErrLocalSource) {
			t.Errorf("--allow-local: %v does not wrap ErrLocalSource", err)
		}
	}
	// Named through a link, the folder allowed is where the link leads.
	link := filepath.Join(root, "link-to-allowed")
	if err := os.Symlink(allowed, link); err != nil {
		t.Fatal(err)
	}
	if err := CheckNamedSource(Source{Kind: SourceGit, URL: filepath.Join(allowed, "repo")}, []string{link}); err != nil {
		t.Errorf("--allow-local through a link to the folder: %v", err)
	}
}
