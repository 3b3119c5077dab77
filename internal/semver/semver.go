// Package semver reads release versions (Semantic Versioning 2.0.0, with
// the leading "v" git tags carry) and the version ranges npm and Claude
// Code's plugin dependencies write: "^1.2", "~1.2.3", ">=1.2 <2", "1.x",
// "*", "1.2.3", "1.2 - 1.4" and alternatives joined by "||". It decides
// which tag of a repository a plugin follows (the newest in range) and
// whether a dependency is met.
//
// Pre-releases follow npm's rule: a range matches a pre-release
// (1.3.0-rc.1) only when one of its comparators names a pre-release of
// the same major.minor.patch, so "^1.2" never moves a user onto a
// release candidate.
package semver

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a parsed release version.
type Version struct {
	Major, Minor, Patch uint64
	// Pre is the pre-release's dot-separated identifiers ("rc.1"), nil for
	// a release. Build metadata is dropped: it never orders versions.
	Pre []string
}

// String renders the version without a "v": 1.3.0, 1.3.0-rc.1.
func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if len(v.Pre) > 0 {
		s += "-" + strings.Join(v.Pre, ".")
	}
	return s
}

// Parse reads a full version: MAJOR.MINOR.PATCH, optionally with a
// leading "v" or "=", a "-PRERELEASE" and a "+BUILD".
func Parse(s string) (Version, error) {
	p, err := parsePartial(s)
	if err != nil {
		return Version{}, err
	}
	if p.parts < 3 {
		return Version{}, fmt.Errorf("version %q: want MAJOR.MINOR.PATCH", s)
	}
	return p.v, nil
}

// Compare orders a and b: -1, 0 or +1, by precedence (SemVer 2.0.0 §11).
func Compare(a, b Version) int {
	for _, d := range [][2]uint64{{a.Major, b.Major}, {a.Minor, b.Minor}, {a.Patch, b.Patch}} {
		if d[0] != d[1] {
			if d[0] < d[1] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a.Pre) == 0 && len(b.Pre) == 0:
		return 0
	case len(a.Pre) == 0:
		return 1
	case len(b.Pre) == 0:
		return -1
	}
	for i := 0; i < len(a.Pre) && i < len(b.Pre); i++ {
		if c := comparePre(a.Pre[i], b.Pre[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(a.Pre) < len(b.Pre):
		return -1
	case len(a.Pre) > len(b.Pre):
		return 1
	}
	return 0
}

// comparePre orders two pre-release identifiers: numbers numerically and
// below words, words in ASCII order.
func comparePre(a, b string) int {
	na, ea := strconv.ParseUint(a, 10, 64)
	nb, eb := strconv.ParseUint(b, 10, 64)
	switch {
	case ea == nil && eb == nil:
		if na == nb {
			return 0
		}
		if na < nb {
			return -1
		}
		return 1
	case ea == nil:
		return -1
	case eb == nil:
		return 1
	}
	return strings.Compare(a, b)
}

// partial is a version that may stop early or hold wildcards: "1", "1.2",
// "1.x", "*". parts counts the numbers given (0 to 3).
type partial struct {
	v     Version
	parts int
}

func parsePartial(s string) (partial, error) {
	orig := s
	s = strings.TrimPrefix(strings.TrimPrefix(s, "="), "v")
	if s == "" {
		return partial{}, fmt.Errorf("version %q is empty", orig)
	}
	s, _, _ = strings.Cut(s, "+")
	core, pre, hasPre := strings.Cut(s, "-")
	fields := strings.Split(core, ".")
	if len(fields) > 3 {
		return partial{}, fmt.Errorf("version %q has more than three numbers", orig)
	}
	var p partial
	nums := []*uint64{&p.v.Major, &p.v.Minor, &p.v.Patch}
	for i, f := range fields {
		if f == "x" || f == "X" || f == "*" {
			break
		}
		if f == "" || (len(f) > 1 && f[0] == '0') {
			return partial{}, fmt.Errorf("version %q: %q is not a number (no leading zeros)", orig, f)
		}
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return partial{}, fmt.Errorf("version %q: %q is not a number", orig, f)
		}
		*nums[i] = n
		p.parts = i + 1
	}
	if p.parts < len(fields) {
		for _, f := range fields[p.parts:] {
			if f != "x" && f != "X" && f != "*" {
				return partial{}, fmt.Errorf("version %q: a number after a wildcard", orig)
			}
		}
	}
	if hasPre {
		if p.parts < 3 {
			return partial{}, fmt.Errorf("version %q: a pre-release needs MAJOR.MINOR.PATCH", orig)
		}
		for _, id := range strings.Split(pre, ".") {
			if id == "" || strings.Trim(id, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-") != "" {
				return partial{}, fmt.Errorf("version %q: bad pre-release %q", orig, pre)
			}
		}
		p.v.Pre = strings.Split(pre, ".")
	}
	return p, nil
}
