package merge

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/skillstore/skillstore/internal/gitmerge"
	"github.com/skillstore/skillstore/internal/skillmd"
)

// The merge-quality corpus: three-way cases built from the histories of
// skill files. A history is a file's versions in order; each pair of a
// version (the base) and the next (upstream, "theirs") gives one case per
// local edit (ours: the base with one deterministic edit of the kinds
// people make to an installed skill). Each case is merged by git merge-file
// --diff3 and by SkillMD with the skill-aware rules, and counted as:
//
//	git clean, identical   git is clean and so is skillstore, byte for byte
//	resolved               git conflicts, skillstore is clean and checkKeepsBoth passes
//	conflicts              git conflicts, and so does skillstore
//	wrong                  a clean result that differs from git's clean one,
//	                       or fails checkKeepsBoth
//
// The corpora are the committed histories in testdata/corpus (written for
// this project, in the shape of real skills, agents and prompts) and, when
// SKILLSTORE_MERGE_CORPORA names them, the histories of git repositories:
// a list (separated like PATH) of git directories, or of folders holding
// git directories (NAME/repo or NAME.git or NAME/.git), read with git log;
// nothing of them is copied into the project.

// mergeCorporaEnv names the git repositories whose histories the benchmark
// reads.
const mergeCorporaEnv = "SKILLSTORE_MERGE_CORPORA"

// corpusCasesPerRepo caps the cases of one repository (pairs times edits).
const corpusCasesPerRepo = 400

// corpusPair is a file at one version (base) and the next (theirs).
type corpusPair struct {
	name         string // path@commit, for messages
	base, theirs []byte
}

// localEdit is one kind of local edit; false when the file has no place
// for it (no frontmatter, no sentence).
type localEdit struct {
	name string
	edit func(text string, n int) (string, bool)
}

var localEdits = []localEdit{
	{"line appended", func(text string, n int) (string, bool) {
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		return text + "\nLocal note " + strconv.Itoa(n) + ": run it against the staging cluster first.\n", true
	}},
	{"frontmatter key added", func(text string, n int) (string, bool) {
		s, err := skillmd.Cut([]byte(text))
		if err != nil || len(s.YAML) == 0 {
			return "", false
		}
		head := len(s.Head) + len(s.YAML)
		return text[:head] + "x-local-owner: platform-team-" + strconv.Itoa(n) + "\n" + text[head:], true
	}},
	{"sentence extended", func(text string, n int) (string, bool) {
		lines := strings.SplitAfter(text, "\n")
		start := bodyStart(text, lines)
		var idx []int
		for i := start; i < len(lines); i++ {
			l := strings.TrimRight(lines[i], "\r\n")
			if strings.HasSuffix(l, ".") && !strings.HasPrefix(strings.TrimSpace(l), "#") && !strings.HasPrefix(strings.TrimSpace(l), "|") {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			return "", false
		}
		i := idx[n%len(idx)]
		l := strings.TrimRight(lines[i], "\r\n")
		eol := lines[i][len(l):]
		lines[i] = strings.TrimSuffix(l, ".") + " (locally: ask the platform team first)." + eol
		return strings.Join(lines, ""), true
	}},
	{"line inserted at the top", func(text string, n int) (string, bool) {
		lines := strings.SplitAfter(text, "\n")
		i := bodyStart(text, lines)
		return strings.Join(slices.Insert(lines, i, "> Maintained locally by the platform team ("+strconv.Itoa(n)+").\n"), ""), true
	}},
}

// bodyStart is the index of the first line after the frontmatter (0 when
// there is none).
func bodyStart(text string, lines []string) int {
	s, err := skillmd.Cut([]byte(text))
	if err != nil {
		return 0
	}
	return min(s.BodyLine-1, len(lines))
}

// corpusCount tallies a corpus.
type corpusCount struct {
	cases, gitClean, identical, gitConflicts, resolved, conflicts, wrong int
	conflictsBy                                                          map[string]int // cases left in conflict, by local edit
	examples                                                             []string       // the first wrong cases
}

// runCorpus merges every case of pairs and tallies them.
func runCorpus(t testing.TB, pairs []corpusPair, limit int) *corpusCount {
	t.Helper()
	dir := t.TempDir()
	c := &corpusCount{conflictsBy: map[string]int{}}
	n := 0
	for _, p := range pairs {
		if bytes.Equal(p.base, p.theirs) {
			continue
		}
		for _, le := range localEdits {
			if c.cases >= limit {
				return c
			}
			n++
			ours, ok := le.edit(string(p.base), n)
			if !ok {
				continue
			}
			c.cases++
			base, o, theirs := p.base, []byte(ours), p.theirs
			want, code := gitmerge.MergeFile(t, dir, base, o, theirs, "--diff3")
			got, err := SkillMD(base, o, theirs, Options{SkillAware: true, Labels: Labels{Ours: "ours", Base: "base", Theirs: "theirs"}})
			if err != nil {
				c.cases-- // binary to git's test too: no case
				continue
			}
			wrong := func(why string) {
				c.wrong++
				dumpCase(t, p.name, le.name+" WRONG", base, o, theirs, got.Merged)
				if len(c.examples) < 3 {
					c.examples = append(c.examples, fmt.Sprintf("%s (%s): %s\nbase:\n%s\nours:\n%s\ntheirs:\n%s\nmerged:\n%s", p.name, le.name, why, base, o, theirs, got.Merged))
				}
			}
			if code == 0 {
				c.gitClean++
				if got.Clean() && bytes.Equal(got.Merged, want) {
					c.identical++
				} else {
					wrong("git merges cleanly, skillstore differs")
				}
				continue
			}
			c.gitConflicts++
			if !got.Clean() {
				c.conflicts++
				c.conflictsBy[le.name]++
				dumpCase(t, p.name, le.name, base, o, theirs, got.Merged)
				continue
			}
			if err := checkKeepsBoth(base, o, theirs, got.Merged); err != nil {
				wrong(err.Error())
				continue
			}
			c.resolved++
		}
	}
	return c
}

// dumpCase writes a case left in conflict, or a wrong one, into the folder
// SKILLSTORE_MERGE_CORPUS_DUMP names, if set, as a folder of four files
// (base, ours, theirs, merged, each byte for byte: a txtar archive would
// end a last line that has no line end): what docs/design/merge.md's
// account of the conflicts left is read from.
func dumpCase(t testing.TB, name, edit string, base, ours, theirs, merged []byte) {
	dir := os.Getenv("SKILLSTORE_MERGE_CORPUS_DUMP")
	if dir == "" {
		return
	}
	dir = filepath.Join(dir, strings.NewReplacer("/", "_", "@", "_", " ", "_").Replace(name+"_"+edit))
	for n, d := 2, dir; ; n++ {
		if err := os.Mkdir(d, 0o755); err == nil {
			dir = d
			break
		} else if !os.IsExist(err) {
			t.Fatal(err)
		}
		d = dir + "_" + strconv.Itoa(n) // the same path and commit in another history
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{"base", base}, {"ours", ours}, {"theirs", theirs}, {"merged", merged}} {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// committedCorpus reads testdata/corpus/*.txtar: each archive is one
// history, its files the versions in order.
func committedCorpus(t testing.TB) []corpusPair {
	t.Helper()
	files, err := filepath.Glob("testdata/corpus/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no committed corpus in testdata/corpus: %v", err)
	}
	var pairs []corpusPair
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(ar.Files); i++ {
			pairs = append(pairs, corpusPair{
				name: filepath.Base(f) + ":" + ar.Files[i].Name,
				base: ar.Files[i-1].Data, theirs: ar.Files[i].Data,
			})
		}
	}
	return pairs
}

// mirrorRepos lists the git directories SKILLSTORE_MERGE_CORPORA names, by
// a short name; nil when it is not set.
func mirrorRepos() (names, dirs []string) {
	isGitDir := func(d string) bool {
		_, err := os.Stat(filepath.Join(d, "HEAD"))
		_, err2 := os.Stat(filepath.Join(d, "objects"))
		return err == nil && err2 == nil
	}
	for _, root := range filepath.SplitList(os.Getenv(mergeCorporaEnv)) {
		if root == "" {
			continue
		}
		if isGitDir(root) {
			name := filepath.Base(root)
			if name == "repo" || name == ".git" {
				name = filepath.Base(filepath.Dir(root)) // NAME/repo, NAME/.git
			}
			names, dirs = append(names, strings.TrimSuffix(name, ".git")), append(dirs, root)
			continue
		}
		if isGitDir(filepath.Join(root, ".git")) {
			names, dirs = append(names, filepath.Base(root)), append(dirs, filepath.Join(root, ".git"))
			continue
		}
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			for _, d := range []string{filepath.Join(root, e.Name(), "repo"), filepath.Join(root, e.Name(), ".git"), filepath.Join(root, e.Name())} {
				if e.IsDir() && isGitDir(d) {
					names, dirs = append(names, strings.TrimSuffix(e.Name(), ".git")), append(dirs, d)
					break
				}
			}
		}
	}
	return names, dirs
}

// historyPairs reads the history of the Markdown files of the git directory
// gitDir (README and CHANGELOG files left out: they are not skills, agents
// or prompts) and returns up to max pairs of a file before and after a
// commit that modified it, spread evenly over the history.
func historyPairs(t testing.TB, gitDir string, max int) []corpusPair {
	t.Helper()
	git := func(stdin io.Reader, args ...string) []byte {
		cmd := exec.Command("git", append([]string{"--git-dir=" + gitDir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		cmd.Stdin = stdin
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s in %s: %v", strings.Join(args, " "), gitDir, err)
		}
		return out
	}
	log := git(nil, "log", "--first-parent", "--no-renames", "--diff-filter=M", "--format=commit %H", "--name-only", "HEAD", "--", "*.md")
	type change struct{ commit, path string }
	var changes []change
	var commit string
	for _, line := range strings.Split(string(log), "\n") {
		switch {
		case strings.HasPrefix(line, "commit "):
			commit = strings.TrimPrefix(line, "commit ")
		case line == "":
		default:
			base := strings.ToLower(path.Base(line))
			if !strings.HasSuffix(base, ".md") || strings.HasPrefix(base, "readme") || strings.HasPrefix(base, "changelog") {
				continue
			}
			changes = append(changes, change{commit, line})
		}
	}
	slices.Reverse(changes) // oldest first
	if len(changes) > max {
		picked := make([]change, 0, max)
		for i := range max {
			picked = append(picked, changes[i*len(changes)/max])
		}
		changes = picked
	}
	var req strings.Builder
	for _, c := range changes {
		fmt.Fprintf(&req, "%s^:%s\n%s:%s\n", c.commit, c.path, c.commit, c.path)
	}
	out := bufio.NewReader(bytes.NewReader(git(strings.NewReader(req.String()), "cat-file", "--batch")))
	read := func() ([]byte, bool) {
		header, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("git cat-file in %s: %v", gitDir, err)
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			return nil, false // missing
		}
		size, _ := strconv.Atoi(f[2])
		data := make([]byte, size+1)
		if _, err := io.ReadFull(out, data); err != nil {
			t.Fatalf("git cat-file in %s: %v", gitDir, err)
		}
		return data[:size], true
	}
	var pairs []corpusPair
	for _, c := range changes {
		base, ok1 := read()
		theirs, ok2 := read()
		if !ok1 || !ok2 || len(base) > 1<<20 || len(theirs) > 1<<20 || !utf8.Valid(base) || !utf8.Valid(theirs) {
			continue
		}
		pairs = append(pairs, corpusPair{name: c.path + "@" + c.commit[:12], base: base, theirs: theirs})
	}
	return pairs
}

// corpusTable writes the tally of each corpus as a table.
func corpusTable(names []string, counts []*corpusCount) string {
	var b strings.Builder
	b.WriteString("| corpus | cases | git clean: identical | git conflicts | resolved keeping both | conflicts | wrong | conflicts left, by local edit |\n|---|---|---|---|---|---|---|---|\n")
	var total corpusCount
	row := func(name string, c *corpusCount) {
		var by []string
		for _, le := range localEdits {
			if n := c.conflictsBy[le.name]; n > 0 {
				by = append(by, fmt.Sprintf("%s %d", le.name, n))
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %d of %d | %d | %d (%.1f%%) | %d | %d | %s |\n", name, c.cases, c.identical, c.gitClean,
			c.gitConflicts, c.resolved, pct(c.resolved, c.gitConflicts), c.conflicts, c.wrong, strings.Join(by, ", "))
	}
	total.conflictsBy = map[string]int{}
	for i, c := range counts {
		row(names[i], c)
		total.cases += c.cases
		total.gitClean += c.gitClean
		total.identical += c.identical
		total.gitConflicts += c.gitConflicts
		total.resolved += c.resolved
		total.conflicts += c.conflicts
		total.wrong += c.wrong
		for k, v := range c.conflictsBy {
			total.conflictsBy[k] += v
		}
	}
	if len(counts) > 1 {
		row("**all**", &total)
	}
	return b.String()
}

// TestMergeCorpusCommitted runs the committed corpus: no case may be wrong.
func TestMergeCorpusCommitted(t *testing.T) {
	gitmerge.Require(t)
	c := runCorpus(t, committedCorpus(t), corpusCasesPerRepo)
	t.Logf("\n%s", corpusTable([]string{"committed"}, []*corpusCount{c}))
	for _, e := range c.examples {
		t.Error(e)
	}
	if c.gitConflicts == 0 || c.identical == 0 {
		t.Errorf("the committed corpus has %d git-clean and %d conflicted cases: it tests nothing", c.identical, c.gitConflicts)
	}
}

// BenchmarkMergeCorpus prints the merge-quality table (see runCorpus) for
// the committed corpus and for each repository SKILLSTORE_MERGE_CORPORA
// names, up to corpusCasesPerRepo cases each: git's outcome beside
// skillstore's. It fails on a wrong case.
func BenchmarkMergeCorpus(b *testing.B) {
	gitmerge.Require(b)
	names := []string{"committed (testdata/corpus)"}
	pairsOf := []func() []corpusPair{func() []corpusPair { return committedCorpus(b) }}
	repoNames, dirs := mirrorRepos()
	if len(dirs) == 0 {
		b.Logf("%s is not set (or names no git directory): only the committed corpus; set it to a list of git clones of skill repositories to measure on their histories", mergeCorporaEnv)
	}
	for i, d := range dirs {
		names = append(names, repoNames[i])
		pairsOf = append(pairsOf, func() []corpusPair { return historyPairs(b, d, corpusCasesPerRepo/2) })
	}
	var counts []*corpusCount
	for b.Loop() {
		counts = counts[:0]
		for _, pairs := range pairsOf {
			counts = append(counts, runCorpus(b, pairs(), corpusCasesPerRepo))
		}
	}
	// On stdout: a benchmark's log is cut at ten lines.
	fmt.Printf("merge quality, git merge-file --diff3 beside skillstore's skill-aware merge:\n%s", corpusTable(names, counts))
	var total, resolved, wrong int
	for i, c := range counts {
		total += c.gitConflicts
		resolved += c.resolved
		wrong += c.wrong
		for _, e := range c.examples {
			b.Errorf("%s: %s", names[i], e)
		}
	}
	b.ReportMetric(pct(resolved, total), "%resolved")
	b.ReportMetric(float64(wrong), "wrong")
}
