package semver

import (
	"slices"
	"testing"
)

func TestRangeMatch(t *testing.T) {
	cases := []struct {
		rng string
		in  []string
		out []string
	}{
		{"^1.2", []string{"1.2.0", "1.9.9", "v1.2.5"}, []string{"1.1.9", "2.0.0", "2.0.0-rc.1", "1.3.0-rc.1"}},
		{"^1.2.3", []string{"1.2.3", "1.4.0"}, []string{"1.2.2", "2.0.0"}},
		{"^0.2.3", []string{"0.2.3", "0.2.9"}, []string{"0.3.0", "0.2.2"}},
		{"^0.0.3", []string{"0.0.3"}, []string{"0.0.4", "0.0.2"}},
		{"~1.2.3", []string{"1.2.3", "1.2.9"}, []string{"1.3.0", "1.2.2"}},
		{"~1.2", []string{"1.2.0", "1.2.9"}, []string{"1.3.0"}},
		{"~1", []string{"1.0.0", "1.9.0"}, []string{"2.0.0"}},
		{">=1.2 <2", []string{"1.2.0", "1.99.0"}, []string{"1.1.0", "2.0.0", "2.0.0-alpha"}},
		{">= 1.2.0", []string{"1.2.0", "7.0.0"}, []string{"1.1.9"}},
		{">1.2", []string{"1.3.0"}, []string{"1.2.9", "1.2.0"}},
		{"<=1.2", []string{"1.2.9", "0.1.0"}, []string{"1.3.0"}},
		{"1.x", []string{"1.0.0", "1.5.2"}, []string{"2.0.0", "0.9.0"}},
		{"1.2.x", []string{"1.2.0", "1.2.7"}, []string{"1.3.0"}},
		{"*", []string{"0.0.1", "9.9.9"}, []string{"1.0.0-beta"}},
		{"", []string{"3.1.4"}, nil},
		{"x", []string{"3.1.4"}, nil},
		{"1.2.3", []string{"1.2.3", "v1.2.3", "1.2.3+build.5"}, []string{"1.2.4"}},
		{"=1.2.3", []string{"1.2.3"}, []string{"1.2.4"}},
		{"1.2", []string{"1.2.0", "1.2.8"}, []string{"1.3.0"}},
		{"1.2.3 - 1.4", []string{"1.2.3", "1.4.9"}, []string{"1.5.0", "1.2.2"}},
		{"^1.0.0 || ^3.0.0", []string{"1.5.0", "3.1.0"}, []string{"2.0.0"}},
		{">=1.3.0-rc.1 <2", []string{"1.3.0-rc.2", "1.3.0", "1.4.0"}, []string{"1.4.0-rc.1", "1.3.0-beta"}},
	}
	for _, c := range cases {
		r, err := ParseRange(c.rng)
		if err != nil {
			t.Fatalf("ParseRange(%q): %v", c.rng, err)
		}
		for _, s := range c.in {
			if v, err := Parse(s); err != nil || !r.Match(v) {
				t.Errorf("%q should match %s (err %v)", c.rng, s, err)
			}
		}
		for _, s := range c.out {
			if v, err := Parse(s); err != nil || r.Match(v) {
				t.Errorf("%q should not match %s (err %v)", c.rng, s, err)
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	for _, s := range []string{"^1.2.3.4", "1.02", ">=abc", "1.x.3", "1.2-rc", "^"} {
		if _, err := ParseRange(s); err == nil {
			t.Errorf("ParseRange(%q) took it", s)
		}
	}
	for _, s := range []string{"1.2", "v1", "", "1.2.3-", "1.2.3-a..b"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) took it", s)
		}
	}
}

func TestOrderAndNewest(t *testing.T) {
	// SemVer 2.0.0 §11's example order.
	order := []string{"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "2.0.0"}
	var vs []Version
	for _, s := range order {
		v, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	if !slices.IsSortedFunc(vs, Compare) {
		t.Errorf("not ordered as SemVer says: %v", vs)
	}
	for i := 1; i < len(vs); i++ {
		if Compare(vs[i], vs[i-1]) != 1 || Compare(vs[i-1], vs[i]) != -1 {
			t.Errorf("%s vs %s", vs[i-1], vs[i])
		}
	}
	r, _ := ParseRange("^1.0")
	if got := r.Newest(vs); got < 0 || vs[got].String() != "1.1.0" {
		t.Errorf("newest of ^1.0 = %d", got)
	}
	r, _ = ParseRange("^3")
	if got := r.Newest(vs); got != -1 {
		t.Errorf("newest of ^3 = %d, want none", got)
	}
}

// FuzzParseRange holds the parser to its contract on any input: no panic,
// a range that parses matches or refuses any version without one, and a
// version that parses prints back as itself (less "v" and build).
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"^1.2", "~1.2.3", ">=1.2 <2", "1.x", "*", "1.2.3 - 1.4", "^1 || ^3", ">=1.3.0-rc.1", "v1.2.3+b"} {
		f.Add(s, "1.2.3")
	}
	f.Fuzz(func(t *testing.T, rng, ver string) {
		r, rerr := ParseRange(rng)
		v, verr := Parse(ver)
		if rerr == nil && verr == nil {
			r.Match(v)
		}
		if verr == nil {
			back, err := Parse(v.String())
			if err != nil || Compare(back, v) != 0 {
				t.Fatalf("%q: %s does not read back (%v)", ver, v, err)
			}
		}
	})
}
