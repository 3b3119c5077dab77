package gitfetch

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/skillstore/skillstore/internal/semver"
)

// ErrNoRelease means a repository has no release tag in the range asked.
var ErrNoRelease = errors.New("no release tag in range")

// pickRelease names the tag of the newest release in r among refs: a tag
// whose name, less a leading "v", is a full version. Tags that are not
// versions (nightly, latest) are not releases and never picked.
func pickRelease(refs []*plumbing.Reference, r semver.Range) (plumbing.ReferenceName, error) {
	var names []plumbing.ReferenceName
	var vs []semver.Version
	for _, ref := range refs {
		if !ref.Name().IsTag() || strings.HasSuffix(string(ref.Name()), "^{}") {
			continue
		}
		v, err := semver.Parse(ref.Name().Short())
		if err != nil {
			continue
		}
		names, vs = append(names, ref.Name()), append(vs, v)
	}
	// v1.3.0 and 1.3.0 both tagged: the name with the "v" wins, always.
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(string(names[b]), string(names[a])) })
	sorted := make([]semver.Version, len(order))
	for i, j := range order {
		sorted[i] = vs[j]
	}
	best := r.Newest(sorted)
	if best < 0 {
		return "", &NoReleaseError{Range: r.String(), Have: newestReleases(vs, 5)}
	}
	return names[order[best]], nil
}

// NoReleaseError is a repository without a release tag in Range; Have
// are its newest releases (at most a few), newest first.
type NoReleaseError struct {
	Range string
	Have  []string
}

func (e *NoReleaseError) Error() string {
	if len(e.Have) == 0 {
		return fmt.Sprintf("no release tag matches %q: the repository has no tag named as a version (v1.2.3)", e.Range)
	}
	return fmt.Sprintf("no release tag matches %q (newest releases: %s)", e.Range, strings.Join(e.Have, ", "))
}

func (e *NoReleaseError) Unwrap() error { return ErrNoRelease }

// newestReleases renders the n highest of vs, highest first.
func newestReleases(vs []semver.Version, n int) []string {
	s := slices.Clone(vs)
	slices.SortFunc(s, func(a, b semver.Version) int { return semver.Compare(b, a) })
	var out []string
	for _, v := range s {
		if len(out) == n {
			break
		}
		if str := v.String(); !slices.Contains(out, str) {
			out = append(out, str)
		}
	}
	return out
}

// releaseOf is the version a release tag's name carries ("" when it
// carries none).
func releaseOf(name plumbing.ReferenceName) string {
	v, err := semver.Parse(name.Short())
	if err != nil {
		return ""
	}
	return v.String()
}
