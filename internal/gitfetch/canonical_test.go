package gitfetch

import (
	"errors"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/transport"
)

func TestCanonicalURL(t *testing.T) {
	cases := []struct {
		in, want string
		part     string // the refused part; "" means accepted as want
	}{
		// Already canonical.
		{in: "https://github.com/acme/skills.git", want: "https://github.com/acme/skills.git"},
		{in: "ssh://git@example.com:2222/acme/x.git", want: "ssh://git@example.com:2222/acme/x.git"},
		{in: "git://127.0.0.1:9418/up", want: "git://127.0.0.1:9418/up"},
		{in: "git@github.com:acme/skills.git", want: "git@github.com:acme/skills.git"},
		{in: "file:///srv/git/skills.git", want: "file:///srv/git/skills.git"},
		{in: "/srv/git/skills.git", want: "/srv/git/skills.git"},
		{in: "http://[::1]:8080/x.git", want: "http://[::1]:8080/x.git"},
		{in: "https://me:s3cret@example.com/x.git", want: "https://me:s3cret@example.com/x.git"},

		// Case, ports, unreserved escapes, empty segments.
		{in: "HTTPS://GitHub.COM/acme/skills.git", want: "https://github.com/acme/skills.git"},
		{in: "http://h:0080/x.git", want: "http://h:80/x.git"},
		{in: "http://h/%61cme/%7euser/x.git", want: "http://h/acme/~user/x.git"},
		{in: "http://h/a%20b/x.git", want: "http://h/a%20b/x.git"},
		{in: "http://h//acme///x.git/", want: "http://h/acme/x.git"},

		// Dot segments in every spelling resolve to the repository a
		// server would serve.
		{in: "http://h/git/acme/../evil/bad.git", want: "http://h/git/evil/bad.git"},
		{in: "http://h/git/acme/%2e%2e/evil/bad.git", want: "http://h/git/evil/bad.git"},
		{in: "http://h/git/acme/%2E%2e/evil/bad.git", want: "http://h/git/evil/bad.git"},
		{in: "http://h/git/acme/.%2e/evil/bad.git", want: "http://h/git/evil/bad.git"},
		{in: "http://h/git/acme//../evil/bad.git", want: "http://h/git/evil/bad.git"}, // "//" is one separator, as servers merge it
		{in: "http://h/git/acme/./../evil/bad.git", want: "http://h/git/evil/bad.git"},
		{in: "http://h/git/acme/x/%2e/../../evil/bad.git", want: "http://h/git/evil/bad.git"},
		{in: "ssh://git@h/acme/../evil/x.git", want: "ssh://git@h/evil/x.git"},
		{in: "git@h:acme/../evil/x.git", want: "git@h:evil/x.git"},
		{in: "git@h:/srv/acme/./../evil.git", want: "git@h:/srv/evil.git"},
		{in: "file:///srv/acme/%2e%2e/evil.git", want: "file:///srv/evil.git"},
		{in: "/srv/acme/../evil.git", want: "/srv/evil.git"},
		{in: "file:///srv/50%25/x.git", want: "file:///srv/50%25/x.git"}, // a '%' in a local path is kept

		// Refused: what a server or go-git could read another way.
		{in: "http://h/git/acme%2f..%2fevil/bad.git", part: "path"},
		{in: "http://h/git/acme/..%2Fevil/bad.git", part: "path"},
		{in: "http://h/git/acme%5c..%5cevil/bad.git", part: "path"},
		{in: `http://h/git/acme\..\evil/bad.git`, part: "path"},
		{in: "http://h/git/acme%252e%252e/x.git", part: "path"}, // go-git decodes once more
		{in: "http://h/git/acme%3f/x.git", part: "path"},
		{in: "http://h/git/acme%23/x.git", part: "path"},
		{in: "http://h/../x.git", part: "path"},
		{in: "http://h/a/%2e%2e/%2e%2e/x.git", part: "path"},
		{in: "git@h:../x.git", part: "path"},
		{in: "http://h/x.git?service=evil", part: "query"},
		{in: "http://h/x.git?", part: "query"},
		{in: "http://h/x.git#frag", part: "fragment"},
		{in: "http://h/x%zz.git", part: "url"},

		// Refused: a host an ssh or git process would read as an option.
		{in: "ssh://-oProxyCommand=touch/x.git", part: "host"},
		{in: "ssh://git@-oProxyCommand=x/x.git", part: "host"},
		{in: "http://-h/x.git", part: "host"},
		{in: "-oProxyCommand=x:acme/x.git", part: "host"},
		{in: "git@-oProxyCommand=x:acme/x.git", part: "host"},
		{in: "http:///x.git", part: "host"},
		{in: "a://0%250/x", part: "host"},
		{in: "http://h:99999/x.git", part: "port"},
		{in: "file://evil.example.com/srv/x.git", part: "host"},

		// Control characters are CheckURL's.
		{in: "http://me%0ahost=github.com@h/x.git", part: "user"},
	}
	for _, tc := range cases {
		got, err := CanonicalURL(tc.in)
		var ue *URLError
		switch {
		case tc.part == "" && err != nil:
			t.Errorf("CanonicalURL(%q) = %v, want %q", tc.in, err, tc.want)
		case tc.part == "" && got != tc.want:
			t.Errorf("CanonicalURL(%q) = %q, want %q", tc.in, got, tc.want)
		case tc.part == "":
		case !errors.As(err, &ue):
			t.Errorf("CanonicalURL(%q) = %q, %v, want a *URLError about its %s", tc.in, got, err, tc.part)
		case ue.Part != tc.part:
			t.Errorf("CanonicalURL(%q): %v: part %q, want %q", tc.in, err, ue.Part, tc.part)
		case !strings.Contains(err.Error(), "refused"):
			t.Errorf("CanonicalURL(%q): %q does not say it is refused", tc.in, err)
		}
	}
}

// TestCanonicalURLRelative: a relative path is made absolute.
func TestCanonicalURLRelative(t *testing.T) {
	got, err := CanonicalURL("./a/../b")
	want, _ := filepath.Abs("b")
	if err != nil || got != want {
		t.Errorf("CanonicalURL(./a/../b) = %q, %v, want %q", got, err, want)
	}
}

// FuzzCanonicalURL: the canonical form is a fixed point, go-git reads the
// same host and path from it, and its path has no dot or empty segment a
// server could resolve otherwise.
func FuzzCanonicalURL(f *testing.F) {
	for _, s := range []string{
		"http://h/git/acme/../evil/bad.git", "http://h/a/%2e%2e/b", "http://h//a/./b/", "git@h:a/../b/c",
		"ssh://u@h:22/a/%2E/b", "file:///a/b/../c", "/a/./b", "http://h/a%2fb", "http://h/a%252e",
		"https://u:p@H/A/B.git", "http://h/%7e/x", "git://h/a b", "http://h/é/x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := CanonicalURL(raw)
		if err != nil {
			return
		}
		again, err := CanonicalURL(c)
		if err != nil || again != c {
			t.Fatalf("CanonicalURL(%q) = %q, whose canonical form is %q, %v", raw, c, again, err)
		}
		ep, err := transport.NewEndpoint(c)
		if err != nil {
			t.Fatalf("go-git cannot read %q (from %q): %v", c, raw, err)
		}
		if strings.HasPrefix(ep.Host, "-") {
			t.Fatalf("%q (from %q): host %q", c, raw, ep.Host)
		}
		for _, seg := range strings.Split(strings.Trim(ep.Path, "/"), "/") {
			if seg == ".." || seg == "." || (seg == "" && ep.Path != "" && ep.Path != "/") {
				t.Fatalf("%q (from %q): go-git reads the path %q", c, raw, ep.Path)
			}
		}
		if ep.Protocol == "http" || ep.Protocol == "https" {
			// go-git writes the decoded path into its request: it must
			// read back as the same path, untouched.
			u, err := url.Parse(ep.String())
			if err != nil || u.Path != ep.Path || u.RawQuery != "" || u.Fragment != "" {
				t.Fatalf("%q (from %q): go-git requests %q", c, raw, ep.String())
			}
		}
	})
}
