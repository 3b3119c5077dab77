package semver

import (
	"fmt"
	"strings"
)

// Range is a set of versions: alternatives ("||"), each a conjunction
// of comparators. The zero Range matches nothing; Parse("*") everything.
type Range struct {
	text string
	sets [][]comparator
}

// String is the range as it was written.
func (r Range) String() string { return r.text }

type op int

const (
	opEQ op = iota
	opGT
	opGE
	opLT
	opLE
)

type comparator struct {
	op op
	v  Version
}

func (c comparator) holds(v Version) bool {
	n := Compare(v, c.v)
	switch c.op {
	case opGT:
		return n > 0
	case opGE:
		return n >= 0
	case opLT:
		return n < 0
	case opLE:
		return n <= 0
	}
	return n == 0
}

// ParseRange reads a range as npm writes one: "^1.2.3", "~1.2", ">=1.2.0
// <2.0.0", "1.x", "1.2", "*" (or "" and "x": any release), "=1.2.3",
// "1.2.3 - 1.4" and "A || B".
func ParseRange(s string) (Range, error) {
	r := Range{text: strings.TrimSpace(s)}
	for _, alt := range strings.Split(r.text, "||") {
		set, err := parseSet(strings.TrimSpace(alt))
		if err != nil {
			return Range{}, fmt.Errorf("version range %q: %w", s, err)
		}
		r.sets = append(r.sets, set)
	}
	return r, nil
}

// parseSet reads one alternative: comparators separated by spaces, or a
// hyphen range.
func parseSet(s string) ([]comparator, error) {
	if lo, hi, ok := strings.Cut(s, " - "); ok {
		a, err := parsePartial(strings.TrimSpace(lo))
		if err != nil {
			return nil, err
		}
		b, err := parsePartial(strings.TrimSpace(hi))
		if err != nil {
			return nil, err
		}
		set := []comparator{{opGE, a.v}}
		return append(set, upperOf(b)...), nil
	}
	// ">= 1.2" is written with a space too: join an operator to its version.
	var words []string
	for _, w := range strings.Fields(s) {
		if n := len(words); n > 0 && strings.Trim(words[n-1], "<>=~^") == "" {
			words[n-1] += w
			continue
		}
		words = append(words, w)
	}
	if len(words) == 0 {
		return []comparator{{opGE, Version{}}}, nil
	}
	var set []comparator
	for _, w := range words {
		cs, err := parseComparator(w)
		if err != nil {
			return nil, err
		}
		set = append(set, cs...)
	}
	return set, nil
}

// upperOf is the bound "<= b" of a hyphen range, where a partial b
// means everything it covers: "1.2 - 1.4" ends below 1.5.0.
func upperOf(b partial) []comparator {
	switch b.parts {
	case 0:
		return nil
	case 1:
		return []comparator{{opLT, Version{Major: b.v.Major + 1, Pre: []string{"0"}}}}
	case 2:
		return []comparator{{opLT, Version{Major: b.v.Major, Minor: b.v.Minor + 1, Pre: []string{"0"}}}}
	}
	return []comparator{{opLE, b.v}}
}

func parseComparator(w string) ([]comparator, error) {
	var prefix string
	for _, p := range []string{">=", "<=", ">", "<", "=", "^", "~>", "~"} {
		if strings.HasPrefix(w, p) {
			prefix, w = p, w[len(p):]
			break
		}
	}
	p, err := parsePartial(w)
	if err != nil {
		return nil, err
	}
	v := p.v
	// The smallest version above everything p covers ("1.2" covers
	// 1.2.*): the exclusive upper end of p, as npm's "-0" floor.
	next := func(parts int) Version {
		switch parts {
		case 1:
			return Version{Major: v.Major + 1, Pre: []string{"0"}}
		case 2:
			return Version{Major: v.Major, Minor: v.Minor + 1, Pre: []string{"0"}}
		}
		return Version{Major: v.Major, Minor: v.Minor, Patch: v.Patch + 1, Pre: []string{"0"}}
	}
	any := []comparator{{opGE, Version{}}}
	switch prefix {
	case ">":
		if p.parts == 0 {
			return []comparator{{opLT, Version{}}}, nil // nothing
		}
		if p.parts < 3 {
			return []comparator{{opGE, next(p.parts)}}, nil
		}
		return []comparator{{opGT, v}}, nil
	case ">=":
		return []comparator{{opGE, v}}, nil
	case "<":
		return []comparator{{opLT, withFloor(v, p.parts)}}, nil
	case "<=":
		if p.parts == 0 {
			return any, nil
		}
		if p.parts < 3 {
			return []comparator{{opLT, next(p.parts)}}, nil
		}
		return []comparator{{opLE, v}}, nil
	case "~", "~>":
		if p.parts == 0 {
			return any, nil
		}
		hi := next(min(p.parts, 2))
		if p.parts == 1 {
			hi = next(1)
		}
		return []comparator{{opGE, v}, {opLT, hi}}, nil
	case "^":
		if p.parts == 0 {
			return any, nil
		}
		var hi Version
		switch {
		case v.Major > 0 || p.parts == 1:
			hi = next(1)
		case v.Minor > 0 || p.parts == 2:
			hi = next(2)
		default:
			hi = next(3)
		}
		return []comparator{{opGE, v}, {opLT, hi}}, nil
	}
	// No operator, or "=": exactly v, or all p covers.
	if p.parts == 0 {
		return any, nil
	}
	if p.parts < 3 {
		return []comparator{{opGE, v}, {opLT, next(p.parts)}}, nil
	}
	return []comparator{{opEQ, v}}, nil
}

// withFloor is "<1.2" read as below 1.2.0's pre-releases too.
func withFloor(v Version, parts int) Version {
	if parts < 3 && len(v.Pre) == 0 {
		v.Pre = []string{"0"}
	}
	return v
}

// Match reports whether v is in the range.
func (r Range) Match(v Version) bool {
	for _, set := range r.sets {
		if matchSet(set, v) {
			return true
		}
	}
	return false
}

func matchSet(set []comparator, v Version) bool {
	for _, c := range set {
		if !c.holds(v) {
			return false
		}
	}
	if len(v.Pre) == 0 {
		return true
	}
	// A pre-release only where a comparator names one of its release.
	for _, c := range set {
		if len(c.v.Pre) > 0 && c.v.Pre[0] != "0" || len(c.v.Pre) > 1 {
			if c.v.Major == v.Major && c.v.Minor == v.Minor && c.v.Patch == v.Patch {
				return true
			}
		}
	}
	return false
}

// Newest returns the index of the highest version of vs in the range,
// -1 when none is.
func (r Range) Newest(vs []Version) int {
	best := -1
	for i, v := range vs {
		if r.Match(v) && (best < 0 || Compare(v, vs[best]) > 0) {
			best = i
		}
	}
	return best
}
