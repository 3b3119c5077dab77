package merge

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitMergeFile runs the real `git merge-file -p` on the three texts and
// returns its output and its exit code (the number of conflicts).
func gitMergeFile(t testing.TB, dir string, base, ours, theirs []byte, args ...string) ([]byte, int) {
	t.Helper()
	for name, data := range map[string][]byte{"base": base, "ours": ours, "theirs": theirs} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	argv := append([]string{"merge-file", "-p"}, args...)
	if !slices.Contains(args, "-L") {
		argv = append(argv, "-L", "ours", "-L", "base", "-L", "theirs")
	}
	argv = append(argv, "ours", "base", "theirs")
	cmd := exec.Command("git", argv...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out, 0
	case errors.As(err, &exit) && exit.ExitCode() < 128:
		return out, exit.ExitCode()
	default:
		t.Fatalf("git merge-file: %v: %s", err, stderr.String())
		return nil, 0
	}
}

func requireGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: no oracle")
	}
}

// genTriple makes a base of short, often repeated lines and two sides with
// random line edits: the inputs where diff alignment choices matter most.
func genTriple(r *rand.Rand) (base, ours, theirs []byte) {
	return genTripleFrom(r, []string{"a", "b", "c", "d", "{", "}", "", "x = 1", "return"}, 25)
}

// genProseTriple draws lines from a large vocabulary, so most lines are
// distinct, as in real documents.
func genProseTriple(r *rand.Rand) (base, ours, theirs []byte) {
	vocab := make([]string, 300)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("sentence %d of the document", i)
	}
	vocab = append(vocab, "", "", "---") // blank lines and rules do repeat
	return genTripleFrom(r, vocab, 60)
}

func genTripleFrom(r *rand.Rand, alphabet []string, maxLines int) (base, ours, theirs []byte) {
	n := r.IntN(maxLines)
	lines := make([]string, n)
	for i := range lines {
		lines[i] = alphabet[r.IntN(len(alphabet))]
	}
	eol := "\n"
	if r.IntN(10) == 0 {
		eol = "\r\n"
	}
	render := func(ls []string) []byte {
		if len(ls) == 0 {
			return nil
		}
		s := strings.Join(ls, eol) + eol
		if r.IntN(8) == 0 {
			s = strings.TrimSuffix(s, eol)
		}
		return []byte(s)
	}
	edit := func() []string {
		out := append([]string(nil), lines...)
		for range r.IntN(5) {
			pos := r.IntN(len(out) + 1)
			line := alphabet[r.IntN(len(alphabet))]
			if r.IntN(3) == 0 {
				line = fmt.Sprintf("new %d", r.IntN(4))
			}
			switch r.IntN(3) {
			case 0: // insert
				out = append(out[:pos], append([]string{line}, out[pos:]...)...)
			case 1: // delete
				if pos < len(out) {
					out = append(out[:pos], out[pos+1:]...)
				}
			default: // replace
				if pos < len(out) {
					out[pos] = line
				}
			}
		}
		return out
	}
	return render(lines), render(edit()), render(edit())
}

// TestOracleGitMergeFile compares Text with the real git merge-file over a
// seeded corpus of generated triples, in all three conflict styles.
func TestOracleGitMergeFile(t *testing.T) {
	requireGit(t)
	dir := t.TempDir()
	styles := []struct {
		name  string
		style Style
		args  []string
		n     int
		gen   func(*rand.Rand) ([]byte, []byte, []byte)
	}{
		{"diff3", Diff3, []string{"--diff3"}, 2000, genTriple},
		{"merge", Plain, nil, 600, genTriple},
		{"zdiff3", ZDiff3, []string{"--zdiff3"}, 600, genTriple},
		{"diff3-prose", Diff3, []string{"--diff3"}, 600, genProseTriple},
	}
	if testing.Short() {
		for i := range styles {
			styles[i].n /= 10
		}
	}
	for _, st := range styles {
		t.Run(st.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(42, uint64(st.style)))
			var agreeClean, agreeBytes, cleanN, cleanBytes, conflictN, conflictBytes int
			for i := range st.n {
				base, ours, theirs := st.gen(r)
				want, code := gitMergeFile(t, dir, base, ours, theirs, st.args...)
				got, err := Text(base, ours, theirs, Options{Style: st.style})
				if err != nil {
					t.Fatal(err)
				}
				if (code == 0) == got.Clean() {
					agreeClean++
				}
				same := bytes.Equal(got.Merged, want)
				if same && code == len(got.Conflicts) {
					agreeBytes++
				}
				if code == 0 {
					cleanN++
					if same {
						cleanBytes++
					}
				} else {
					conflictN++
					if same {
						conflictBytes++
					}
				}
				if (!same || code != len(got.Conflicts)) && !alignmentTie(t, dir, base, ours, theirs) {
					t.Errorf("case %d: git clean=%v, ours clean=%v\nbase:\n%q\nours:\n%q\ntheirs:\n%q\ngit:\n%q\ngot:\n%q",
						i, code == 0, got.Clean(), base, ours, theirs, want, got.Merged)
				}
			}
			if !testing.Short() && (pct(agreeClean, st.n) < 99 || pct(agreeBytes, st.n) < 97.5) {
				t.Errorf("agreement with git fell: clean/conflicted %.2f%% (want ≥ 99%%), byte for byte %.2f%% (want ≥ 97.5%%)",
					pct(agreeClean, st.n), pct(agreeBytes, st.n))
			}
			t.Logf("%s: %d triples; clean/conflicted agreement %d/%d (%.2f%%); byte-for-byte %d/%d (%.2f%%); git clean %d of which byte-identical %d (%.2f%%), git conflicted %d of which byte-identical %d (%.2f%%)",
				st.name, st.n, agreeClean, st.n, pct(agreeClean, st.n), agreeBytes, st.n, pct(agreeBytes, st.n),
				cleanN, cleanBytes, pct(cleanBytes, cleanN), conflictN, conflictBytes, pct(conflictBytes, conflictN))
		})
	}
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}

// alignmentTie reports whether go-diff's line diffs of base→ours and
// base→theirs are exactly as short as git's own (git diff --numstat, with
// the same options as merge-file) and differ only in which of several
// equally short alignments they picked. A merge that disagrees with git for
// that reason is a different, equally valid reading of the edits, not a bug.
func alignmentTie(t testing.TB, dir string, base, ours, theirs []byte) bool {
	t.Helper()
	in := newInterner(0)
	b := in.intern(splitLines(string(base)))
	for _, side := range []struct {
		name string
		data []byte
	}{{"ours", ours}, {"theirs", theirs}} {
		cmd := exec.Command("git", "diff", "--no-index", "--no-indent-heuristic", "--diff-algorithm=myers", "--numstat", "base", side.name)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir)
		out, _ := cmd.Output() // exit 1 means "differs"
		var add, del int
		if len(out) > 0 {
			if _, err := fmt.Sscanf(string(out), "%d\t%d", &add, &del); err != nil {
				t.Fatalf("git diff --numstat: %q: %v", out, err)
			}
		}
		var ins, rem int
		s := in.intern(splitLines(string(side.data)))
		for _, h := range diffLines(b, s, len(in.ids)) {
			rem += h.chg1
			ins += h.chg2
		}
		if ins != add || rem != del {
			t.Logf("%s: go-diff +%d -%d, git +%d -%d", side.name, ins, rem, add, del)
			return false
		}
	}
	return true
}
