package app

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/store"
)

// The small pieces of wording the reports share.

func ShortHash(h store.Hash) string { return h.String()[:12] }

func ShortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// ShortRef drops "refs/" and "heads/" as git does when it prints refs.
func ShortRef(ref string) string {
	return strings.TrimPrefix(strings.TrimPrefix(ref, "refs/"), "heads/")
}

// Plural is "1 skill", "2 skills", "0 entries": never "skill(s)".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if stem, ok := strings.CutSuffix(word, "y"); ok && stem != "" && !strings.ContainsAny(stem[len(stem)-1:], "aeiou") {
		return fmt.Sprintf("%d %sies", n, stem)
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

// RelativeDiagnostics rewrites diagnostic paths with displayPath.
func RelativeDiagnostics(diags []discover.Diagnostic) []discover.Diagnostic {
	out := make([]discover.Diagnostic, len(diags))
	for i, d := range diags {
		d.File = DisplayPath(d.File)
		out[i] = d
	}
	return out
}

// DisplayPath shortens an absolute path for people: relative to the
// working directory when inside it, else with the home directory as "~".
func DisplayPath(p string) string {
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

// Waiting is "1 candidate waits" or "3 candidates wait".
func Waiting(n int) string { return Plural(n, "candidate") + " " + waits(n) }

// waits agrees "wait" with a count.
func waits(n int) string {
	if n == 1 {
		return "waits"
	}
	return "wait"
}

// joinNonEmpty joins the words that are not empty with a space: "p 1.0",
// or "p" alone, never "p " with a space at the end of a line.
func joinNonEmpty(words ...string) string {
	var out []string
	for _, w := range words {
		if w != "" {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// mergeModeLabel is how log and show name the way a version was made: a
// plugin skill's version that no merge made is a local edit (its
// Merge-Mode trailer says none).
func mergeModeLabel(v store.Version) string {
	if v.MergeMode == store.MergeModeNone && v.Plugin != "" {
		return "local edit"
	}
	return string(v.MergeMode)
}

// GitOutput runs the real git CLI and returns its trimmed output.
func GitOutput(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	return strings.TrimSpace(out.String()), err
}
