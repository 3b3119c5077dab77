package skillfs

import "testing"

// Names are quoted as git quotes a path, and read back exactly.
func TestQuotePath(t *testing.T) {
	cases := map[string]string{
		"SKILL.md":                 "SKILL.md",
		"évite 日本.md":              "évite 日本.md",
		"evil\nadded x@v9: forged": `"evil\nadded x@v9: forged"`,
		"tab\there":                `"tab\there"`,
		"esc\x1b[2J":               `"esc\033[2J"`,
		"quote\"d":                 `"quote\"d"`,
		`back\slash`:               `"back\\slash"`,
		"bidi \u202eevil":          `"bidi \342\200\256evil"`,
		"line \u2028added x@v9":    `"line \342\200\250added x@v9"`,
		"para \u2029added x@v9":    `"para \342\200\251added x@v9"`,
		"bad \xff byte":            `"bad \377 byte"`,
		"del\x7f":                  `"del\177"`,
	}
	for in, want := range cases {
		got := QuotePath(in)
		if got != want {
			t.Errorf("QuotePath(%q) = %s, want %s", in, got, want)
		}
		if got == in {
			continue
		}
		back, rest, ok := UnquotePrefix(got + ": tail")
		if !ok || back != in || rest != ": tail" {
			t.Errorf("UnquotePrefix(%s) = %q, %q, %v", got, back, rest, ok)
		}
	}
	if QuoteText(`a "quoted" word`) != `a "quoted" word` {
		t.Error("QuoteText quoted text holding only quotes")
	}
	for _, bad := range []string{`plain`, `"open`, `"bad \q"`, `"short \12"`} {
		if _, _, ok := UnquotePrefix(bad); ok {
			t.Errorf("UnquotePrefix(%s) accepted", bad)
		}
	}
}
