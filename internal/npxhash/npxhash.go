package npxhash

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// Sum is the computedHash of a skill folder's files (with Data): 64
// lowercase hex digits. Files other than regular or executable ones, and
// those under a .git or node_modules folder, do not count.
func Sum(files []skillfs.File) string {
	var kept []skillfs.File
	for _, f := range files {
		if (f.Mode == skillfs.Regular || f.Mode == skillfs.Executable) && !skipped(f.Path) {
			kept = append(kept, f)
		}
	}
	slices.SortStableFunc(kept, func(a, b skillfs.File) int { return Compare(a.Path, b.Path) })
	h := sha256.New()
	for _, f := range kept {
		h.Write([]byte(f.Path))
		h.Write(f.Data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Valid reports whether s has the form of a computedHash.
func Valid(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// skipped reports a path inside a folder 'npx skills' does not read.
func skipped(p string) bool {
	parts := strings.Split(p, "/")
	for _, d := range parts[:len(parts)-1] {
		if d == ".git" || d == "node_modules" {
			return true
		}
	}
	return false
}

// asciiOrder is ICU's root collation order of printable ASCII, each
// letter once (its lower case; the upper case sorts with it, after it).
const asciiOrder = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"

// primary is each ASCII byte's primary weight (1 + its place in
// asciiOrder); 0 for a byte asciiOrder does not hold.
var primary = func() (w [128]int) {
	for i := 0; i < len(asciiOrder); i++ {
		w[asciiOrder[i]] = i + 1
		if c := asciiOrder[i]; c >= 'a' && c <= 'z' {
			w[c-'a'+'A'] = i + 1
		}
	}
	return w
}()

// weight is a rune's primary weight: ASCII by the table, anything else
// after all of it, in code point order.
func weight(r rune) int {
	if r < 128 && primary[r] > 0 {
		return primary[r]
	}
	return len(asciiOrder) + 1 + int(r)
}

// Compare orders two paths as localeCompare does (see the package doc):
// first by the characters, the case of letters aside; then, when those
// are the same, by case, lower before upper, at the first place they
// differ. It returns -1, 0 or +1.
func Compare(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	for i := 0; i < len(ra) && i < len(rb); i++ {
		if wa, wb := weight(ra[i]), weight(rb[i]); wa != wb {
			if wa < wb {
				return -1
			}
			return 1
		}
	}
	if len(ra) != len(rb) {
		if len(ra) < len(rb) {
			return -1
		}
		return 1
	}
	for i := range ra {
		ua, ub := isUpper(ra[i]), isUpper(rb[i])
		if ua != ub {
			if ub {
				return -1
			}
			return 1
		}
	}
	return 0
}

// Less reports whether path a sorts before path b (Compare < 0).
func Less(a, b string) bool { return Compare(a, b) < 0 }

func isUpper(r rune) bool { return r >= 'A' && r <= 'Z' }
