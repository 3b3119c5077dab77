package merge

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// largeSkill is a SKILL.md of n body lines and its two sides: 50 scattered
// one-line changes on each side, five lines both changed differently (git
// conflicts), and frontmatter changes next to each other (a key added by
// ours after the one theirs changed), which git conflicts on and the
// frontmatter merge resolves. hostile makes every body line one letter and
// reorders them all on each side: the worst case of a line diff, which
// the diff budget ends.
func largeSkill(n int, hostile bool) (base, ours, theirs []byte) {
	r := rand.New(rand.NewPCG(uint64(n), 3))
	lines := make([]string, n)
	for i := range lines {
		if hostile {
			lines[i] = string(rune('a' + r.IntN(26)))
		} else {
			lines[i] = fmt.Sprintf("line %d: %s", i, strings.Repeat("x", r.IntN(40)))
		}
	}
	o, t := append([]string(nil), lines...), append([]string(nil), lines...)
	if hostile {
		r.Shuffle(n, func(i, j int) { o[i], o[j] = o[j], o[i] })
		r.Shuffle(n, func(i, j int) { t[i], t[j] = t[j], t[i] })
	} else {
		for k := range 50 {
			o[k*(n/50)+3] = fmt.Sprintf("changed by ours %d", k)
			t[k*(n/50)+n/100] = fmt.Sprintf("changed by theirs %d", k)
		}
		for k := range 5 {
			i := k*(n/5) + 7
			o[i], t[i] = lines[i]+" (ours)", lines[i]+" (theirs)"
		}
	}
	doc := func(fm string, body []string) []byte {
		return []byte("---\n" + fm + "---\n" + strings.Join(body, "\n") + "\n")
	}
	return doc("name: big\ndescription: A big skill.\nlicense: MIT\n", lines),
		doc("name: big\ndescription: A big skill.\nlicense: MIT\nx-owner: platform\n", o),
		doc("name: big\ndescription: A bigger skill.\nlicense: Apache-2.0\n", t)
}

// BenchmarkMergeLargeSkill merges a 500,000-line SKILL.md (see largeSkill)
// with SkillMD and the skill-aware rules, in process (ns/op), and reports
// beside it git merge-file -p --diff3 of the same files, start to exit
// (git-proc-ns/op, the median of 3 runs), and their ratio (skillstore/git;
// the goal is at most 2).
func BenchmarkMergeLargeSkill(b *testing.B) {
	_, gitErr := exec.LookPath("git")
	for _, c := range []struct {
		name    string
		hostile bool
	}{{"lines=500000", false}, {"hostile=500000", true}} {
		b.Run(c.name, func(b *testing.B) {
			base, ours, theirs := largeSkill(500000, c.hostile)
			for b.Loop() {
				if _, err := SkillMD(base, ours, theirs, Options{SkillAware: true}); err != nil {
					b.Fatal(err)
				}
			}
			per := b.Elapsed() / time.Duration(b.N)
			if gitErr != nil {
				b.Skip("git is not installed: no reference figure")
			}
			dir := b.TempDir()
			for name, data := range map[string][]byte{"base": base, "ours": ours, "theirs": theirs} {
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			var runs []time.Duration
			for range 3 {
				cmd := exec.Command("git", "merge-file", "-p", "--diff3", "ours", "base", "theirs")
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
				start := time.Now()
				if err := cmd.Run(); err != nil && (cmd.ProcessState == nil || cmd.ProcessState.ExitCode() < 0 || cmd.ProcessState.ExitCode() >= 128) {
					b.Fatalf("git merge-file: %v", err)
				}
				runs = append(runs, time.Since(start))
			}
			slices.Sort(runs)
			git := runs[1]
			b.ReportMetric(float64(git.Nanoseconds()), "git-proc-ns/op")
			b.ReportMetric(float64(per)/float64(git), "skillstore/git")
		})
	}
}
