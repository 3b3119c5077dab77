package merge

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/gitmerge"
)

// The corpus of TestSkillAwareCorpus: generated SKILL.md files (a frontmatter
// as in TestOracleSkillMD, a Markdown body of sections), local edits of the
// kinds people make to an installed skill, and upstream edits of the kinds a
// plugin's new version brings.
var (
	corpusSentences = []string{
		"Run the linter before you commit.", "Read the diff line by line.", "Check the logs for errors.",
		"Ask before deleting anything.", "Keep the change small.", "Write the summary in plain words.",
		"Run the unit tests first.", "Tag the release commit.", "Update the changelog.", "Never push to main.",
	}
	corpusTitles   = []string{"Deploy", "Review", "Release", "Lint", "Debug"}
	corpusHeadings = []string{"Steps", "Rollback", "Checks", "Usage", "Limits"}
	corpusNotes    = []string{"staging first, always", "ask Dana about billing", "use the VPN", "the CI is slow on Mondays"}
)

// corpusLocalEdits are the local edits: each takes the body's lines and
// returns them edited.
var corpusLocalEdits = map[string]func(r *rand.Rand, body []string) []string{
	// a "## Local notes" section at the end
	"local-section": func(r *rand.Rand, body []string) []string {
		return append(body, "", "## Local notes", "", "- "+pick(r, corpusNotes))
	},
	// a policy line under the title
	"policy-line": func(r *rand.Rand, body []string) []string {
		return slices.Insert(body, 1, "Policy: "+pick(r, corpusNotes)+".")
	},
	// a clarification appended to a sentence
	"clarify": func(r *rand.Rand, body []string) []string {
		i := pickSentence(r, body)
		body[i] = strings.TrimSuffix(body[i], ".") + " (local: " + pick(r, corpusNotes) + ")."
		return body
	},
	// a line added after a sentence
	"add-line": func(r *rand.Rand, body []string) []string {
		i := pickSentence(r, body)
		return slices.Insert(body, i+1, "Locally: "+pick(r, corpusNotes)+".")
	},
}

// corpusUpstreamEdits are the upstream edits.
var corpusUpstreamEdits = map[string]func(r *rand.Rand, body []string) []string{
	// a sentence reworded (a word changed, a word added)
	"reword": func(r *rand.Rand, body []string) []string {
		i := pickSentence(r, body)
		f := strings.Fields(body[i])
		f[0] = "Always " + strings.ToLower(f[0])
		if len(f) > 2 {
			f[len(f)-2] = "the " + f[len(f)-2]
		}
		body[i] = strings.Join(f, " ")
		return body
	},
	// a line appended to the last section
	"append-text": func(r *rand.Rand, body []string) []string {
		return append(body, "Then: "+strings.ToLower(pick(r, corpusSentences)))
	},
	// a section appended
	"append-section": func(r *rand.Rand, body []string) []string {
		return append(body, "", "## "+pick(r, corpusHeadings)+" (new)", "", pick(r, corpusSentences))
	},
	// an intro paragraph under the title
	"intro": func(r *rand.Rand, body []string) []string {
		return slices.Insert(body, 1, "", "This skill helps you "+strings.ToLower(strings.TrimSuffix(pick(r, corpusSentences), "."))+".")
	},
	// an intro line right under the title
	"intro-line": func(r *rand.Rand, body []string) []string {
		return slices.Insert(body, 1, "This skill helps you "+strings.ToLower(pick(r, corpusSentences)))
	},
	// a heading renamed
	"rename-heading": func(r *rand.Rand, body []string) []string {
		var hs []int
		for i, l := range body {
			if strings.HasPrefix(l, "## ") {
				hs = append(hs, i)
			}
		}
		i := hs[r.IntN(len(hs))]
		body[i] = body[i] + " and more"
		return body
	},
}

func pick(r *rand.Rand, s []string) string { return s[r.IntN(len(s))] }

func pickSentence(r *rand.Rand, body []string) int {
	var idx []int
	for i, l := range body {
		if strings.HasSuffix(l, ".") && !strings.HasPrefix(l, "#") {
			idx = append(idx, i)
		}
	}
	return idx[r.IntN(len(idx))]
}

// corpusBody is a body: a title, a sentence, then one to three sections of
// one to three sentences.
func corpusBody(r *rand.Rand) []string {
	body := []string{"# " + pick(r, corpusTitles), "", pick(r, corpusSentences)}
	for _, h := range r.Perm(len(corpusHeadings))[:1+r.IntN(3)] {
		body = append(body, "", "## "+corpusHeadings[h], "")
		for range 1 + r.IntN(3) {
			body = append(body, pick(r, corpusSentences))
		}
	}
	return body
}

// corpusTally counts the outcomes of one kind of case.
type corpusTally struct {
	cases, gitConflicts, frontmatter, resolved, partly, wrong, hunks, hunksResolved int
}

func (c *corpusTally) add(o corpusTally) {
	c.cases += o.cases
	c.gitConflicts += o.gitConflicts
	c.frontmatter += o.frontmatter
	c.resolved += o.resolved
	c.partly += o.partly
	c.wrong += o.wrong
	c.hunks += o.hunks
	c.hunksResolved += o.hunksResolved
}

// TestSkillAwareCorpus merges generated SKILL.md triples with SkillMD, with
// and without the skill-aware rules, against the real git merge-file: where
// git is clean the result is git's byte for byte; every resolution passes
// checkSkillAware ("wrong" counts the failures, which fail the test). It
// logs, per pair of edit kinds: cases, git's conflicts, those the
// frontmatter merge resolves alone, those the skill-aware rules resolve
// (the file comes out clean), and the conflict hunks resolved.
func TestSkillAwareCorpus(t *testing.T) {
	gitmerge.Require(t)
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(20, 26))
	perPair := 30
	if testing.Short() {
		perPair = 5
	}
	local := sortedKeys(corpusLocalEdits)
	upstream := sortedKeys(corpusUpstreamEdits)
	tallies := map[string]*corpusTally{}
	var order []string
	var leftInFrontmatter, leftInBody int
	run := func(name string, ours, theirs []func(*rand.Rand, []string) []string) {
		if tallies[name] == nil {
			tallies[name] = &corpusTally{}
			order = append(order, name)
		}
		tl := tallies[name]
		var keys []skillKey
		for _, n := range skillKeyNames[:4] {
			keys = append(keys, randomKey(r, n))
		}
		body := corpusBody(r)
		ko, kt := keys, keys
		if r.IntN(3) == 0 { // a local frontmatter edit
			ko, _ = editSkill(r, keys, nil)
		}
		if r.IntN(3) == 0 { // an upstream frontmatter edit
			kt, _ = editSkill(r, keys, nil)
		}
		bo, bt := slices.Clone(body), slices.Clone(body)
		for _, e := range ours {
			bo = e(r, bo)
		}
		for _, e := range theirs {
			bt = e(r, bt)
		}
		base, o, th := genSkill(keys, body), genSkill(ko, bo), genSkill(kt, bt)
		tl.cases++
		want, code := gitmerge.MergeFile(t, dir, base, o, th, "--diff3")
		labels := testLabels(base, o, th)
		plain, err := SkillMD(base, o, th, Options{Labels: labels})
		if err != nil {
			t.Fatal(err)
		}
		got, err := SkillMD(base, o, th, Options{Labels: labels, SkillAware: true})
		if err != nil {
			t.Fatal(err)
		}
		if code == 0 {
			if def, _ := SkillMD(base, o, th, Options{SkillAware: true}); !bytes.Equal(def.Merged, want) || len(def.Resolutions) > 0 {
				t.Errorf("%s: git merges cleanly, the skill-aware merge differs:\n%s\ngit:\n%s", name, def.Merged, want)
				tl.wrong++
			}
			return
		}
		tl.gitConflicts++
		if err := checkSkillAware(plain, got, labels); err != nil {
			tl.wrong++
			t.Errorf("%s: %v\nbase:\n%s\nours:\n%s\ntheirs:\n%s", name, err, base, o, th)
			return
		}
		for _, c := range got.Conflicts {
			if c.Ours.Start <= fenceLines(string(o)) {
				leftInFrontmatter++
			} else {
				leftInBody++
			}
		}
		tl.hunks += len(plain.Conflicts)
		tl.hunksResolved += len(got.Resolutions)
		switch {
		case plain.Clean():
			tl.frontmatter++
		case got.Clean():
			tl.resolved++
		case len(got.Resolutions) > 0:
			tl.partly++
		}
	}
	for _, l := range local {
		for _, u := range upstream {
			for range perPair {
				run(l+" / "+u, []func(*rand.Rand, []string) []string{corpusLocalEdits[l]},
					[]func(*rand.Rand, []string) []string{corpusUpstreamEdits[u]})
			}
		}
	}
	for range perPair * 10 {
		run("two local + two upstream edits",
			[]func(*rand.Rand, []string) []string{corpusLocalEdits[pick(r, local)], corpusLocalEdits[pick(r, local)]},
			[]func(*rand.Rand, []string) []string{corpusUpstreamEdits[pick(r, upstream)], corpusUpstreamEdits[pick(r, upstream)]})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| local edit / upstream edit | cases | git conflicts | frontmatter merge alone | skill-aware: clean | partly | hunks resolved | wrong |\n|---|---|---|---|---|---|---|---|\n")
	var total corpusTally
	for _, name := range order {
		tl := tallies[name]
		total.add(*tl)
		writeTally(&b, name, tl)
	}
	writeTally(&b, "**all**", &total)
	t.Logf("%s", b.String())
	t.Logf("of git's %d conflicted files, the skill-aware merge makes %d clean (%.1f%%; %d more by the frontmatter merge alone), %d wrong",
		total.gitConflicts, total.resolved, pct(total.resolved, total.gitConflicts), total.frontmatter, total.wrong)
	t.Logf("conflicts left: %d in a frontmatter, %d in a body", leftInFrontmatter, leftInBody)
}

func writeTally(b *strings.Builder, name string, tl *corpusTally) {
	fmt.Fprintf(b, "| %s | %d | %d | %d | %d (%.0f%%) | %d | %d of %d | %d |\n", name, tl.cases, tl.gitConflicts, tl.frontmatter,
		tl.resolved, pct(tl.resolved, tl.gitConflicts), tl.partly, tl.hunksResolved, tl.hunks, tl.wrong)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
