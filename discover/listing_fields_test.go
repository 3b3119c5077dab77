package discover

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestListingFieldsAsParseReads: whenever the reading without YAML takes
// a SKILL.md, it gives what Parse gives; it takes the common shapes and
// leaves the others (quotes, comments, nulls, folded lines, other
// spellings of keys) to Parse.
func TestListingFieldsAsParseReads(t *testing.T) {
	keys := []string{"name", "description", "when_to_use", "license", "when-to-use", "defaultEnabled", "default_enabled", "metadata", "Name"}
	values := []string{
		"pdf-tools", "Reads PDFs when the user asks.", "Don't guess; ask.", "a: b", "ends with:", "tail # comment",
		"'quoted'", `"double"`, "null", "~", "true", "123", "-dash", "*alias", "&anchor", "!tag", "[a, b]", "{a: b}",
		"> folded", "| literal", "with\ttab", "trailing   ", "C# Expert", "100% sure", "x@y", "Émile's skill", "",
	}
	rng := rand.New(rand.NewPCG(3, 4))
	fast := 0
	for i := range 5000 {
		var b strings.Builder
		b.WriteString("---\n")
		for range 1 + rng.IntN(4) {
			fmt.Fprintf(&b, "%s: %s\n", keys[rng.IntN(len(keys))], values[rng.IntN(len(values))])
			if rng.IntN(10) == 0 {
				b.WriteString("  continued\n")
			}
		}
		b.WriteString("---\nBody.\n")
		data := []byte(b.String())
		n, d, w, ok := plainListing(data)
		if !ok {
			continue
		}
		fast++
		sf, err := Parse(data)
		if err != nil {
			t.Fatalf("case %d: read without YAML, but Parse fails (%v):\n%s", i, err, data)
		}
		fm := sf.Frontmatter
		if n != fm.Name || d != fm.Description || w != fm.WhenToUse {
			t.Fatalf("case %d: without YAML %q %q %q, Parse %q %q %q:\n%s", i, n, d, w, fm.Name, fm.Description, fm.WhenToUse, data)
		}
	}
	if fast < 200 {
		t.Errorf("only %d of 5000 read without YAML: the fast path is not taken", fast)
	}
	for _, md := range []string{
		"---\nname: a\ndescription: One line.\n---\n",
		"---\r\nname: a\r\ndescription: Windows lines.\r\n---\r\n",
	} {
		if _, _, _, ok := plainListing([]byte(md)); !ok {
			t.Errorf("a plain frontmatter is not read without YAML: %q", md)
		}
	}
}
