package gitfetch

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckURL(t *testing.T) {
	cases := []struct {
		url, part, value string // part "" means accepted
	}{
		{url: "https://github.com/acme/skills.git"},
		{url: "https://me:s3cret@example.com:8443/a%20b/x.git?x=1#top"},
		{url: "git@github.com:acme/skills.git"},
		{url: "ssh://git@example.com/acme/skills.git"},
		{url: "file:///srv/git/skills.git"},
		{url: "/srv/git/skills.git"},
		{url: "./relative/skills"},
		{url: "https://example.com/50%25/x.git"}, // an escaped '%'
		{url: "https://example.com/%zz/x.git"},   // a '%' that starts no escape
		{url: "http://me%0ahost=github.com%0aprotocol=https@127.0.0.1/x.git", part: "user", value: `"me\nhost=github.com\nprotocol=https"`},
		{url: "http://me:pa%0Ass@127.0.0.1/x.git", part: "password"},
		{url: "http://exa%0dmple.com/x.git", part: "host", value: `"exa\rmple.com"`},
		{url: "http://example.com/x%00.git", part: "path", value: `"/x\x00.git"`},
		{url: "http://example.com/x.git?a=%1b[31m", part: "query", value: `"a=\x1b[31m"`},
		{url: "http://example.com/x.git#%7f", part: "fragment", value: `"\x7f"`},
		{url: "https://example.com/x\n.git", part: "path", value: `"/x\n.git"`},
		{url: "https://example.com/x%c2%85.git", part: "path", value: `"/x\u0085.git"`}, // C1 control
		{url: "git@git\thub.com:acme/x.git", part: "host", value: `"git\thub.com"`},
		{url: "/srv/git/ski\x1bls", part: "path", value: `"/srv/git/ski\x1bls"`},
		{url: "/srv/\xff/skills", part: "path", value: `"/srv/\xff/skills"`},
	}
	for _, tc := range cases {
		err := CheckURL(tc.url)
		var ue *URLError
		switch {
		case tc.part == "" && err != nil:
			t.Errorf("CheckURL(%q) = %v, want accepted", tc.url, err)
		case tc.part == "":
		case !errors.As(err, &ue):
			t.Errorf("CheckURL(%q) = %v, want a *URLError", tc.url, err)
		case ue.Part != tc.part || ue.Value != tc.value:
			t.Errorf("CheckURL(%q): part %q value %s, want %q %s", tc.url, ue.Part, ue.Value, tc.part, tc.value)
		case strings.ContainsAny(err.Error(), "\n\r\x00\x1b\x7f"):
			t.Errorf("CheckURL(%q): the message holds a control character: %q", tc.url, err)
		}
	}
	// The password is never printed, the rest of the URL is.
	err := CheckURL("http://me:pa%0Ass@127.0.0.1/x.git")
	if msg := err.Error(); strings.Contains(msg, "pa%0Ass") || !strings.Contains(msg, "http://me:***@127.0.0.1/x.git") {
		t.Errorf("message %q shows the password or hides the URL", msg)
	}
}
