package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/store"
)

// The small pieces of wording the reports share.

func shortHash(h store.Hash) string { return h.String()[:12] }

func ShortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// shortRef drops "refs/" and "heads/" as git does when it prints refs.
func shortRef(ref string) string {
	return strings.TrimPrefix(strings.TrimPrefix(ref, "refs/"), "heads/")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// oneLineTrunc folds whitespace and cuts s to n runes.
func oneLineTrunc(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// relativeDiagnostics rewrites diagnostic paths with displayPath.
func relativeDiagnostics(diags []discover.Diagnostic) []discover.Diagnostic {
	out := make([]discover.Diagnostic, len(diags))
	for i, d := range diags {
		d.File = displayPath(d.File)
		out[i] = d
	}
	return out
}

// displayPath shortens an absolute path for people: relative to the
// working directory when inside it, else with the home directory as "~".
func displayPath(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return rel
		}
	}
	if home, err := os.UserHomeDir(); err == nil && home != "/" {
		if rel, err := filepath.Rel(home, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.Join("~", rel)
		}
	}
	return p
}
