package gitfetch

import (
	"errors"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/skillstore/skillstore/internal/semver"
)

func TestPickRelease(t *testing.T) {
	h := plumbing.NewHash("1111111111111111111111111111111111111111")
	var refs []*plumbing.Reference
	for _, n := range []string{"refs/heads/main", "refs/tags/nightly", "refs/tags/1.3.0", "refs/tags/v1.3.0", "refs/tags/v1.3.0^{}", "refs/tags/v1.2.9", "refs/tags/v2.0.0-rc.1", "refs/tags/v3.0.0"} {
		refs = append(refs, plumbing.NewHashReference(plumbing.ReferenceName(n), h))
	}
	for rng, want := range map[string]string{"^1.2": "refs/tags/v1.3.0", "~1.2": "refs/tags/v1.2.9", "*": "refs/tags/v3.0.0", ">=2.0.0-rc.1 <3": "refs/tags/v2.0.0-rc.1"} {
		r, err := semver.ParseRange(rng)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pickRelease(refs, r)
		if err != nil || string(got) != want {
			t.Errorf("%s: got %s, %v; want %s", rng, got, err, want)
		}
	}
	r, _ := semver.ParseRange("^4")
	_, err := pickRelease(refs, r)
	if !errors.Is(err, ErrNoRelease) || err.Error() != `no release tag matches "^4" (newest releases: 3.0.0, 2.0.0-rc.1, 1.3.0, 1.2.9)` {
		t.Errorf("no release: %v", err)
	}
}
