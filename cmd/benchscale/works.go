package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// work is one thing measured: the skillstore command, the git command
// that does the same work (empty when git has no counterpart), and what
// runs untimed before each repetition.
type work struct {
	name string
	// args are skillstore's arguments after --store; k is the repetition.
	args func(f *fixture, k int, tmp string) []string
	// git are git's arguments (run with --git-dir on the store).
	git func(f *fixture, k int, tmp string) []string
	// ref, instead of git, is a whole reference command (program first).
	ref func(f *fixture, k int, tmp string) []string
	// before runs untimed before each repetition (both binaries).
	before func(b *bench, f *fixture, k int, tmp string) error
	// noStore: the command takes no --store (start-up).
	noStore bool
	// fresh: the work writes a new store each time (import).
	fresh bool
	// slow: from 10k skills the work runs once.
	slow bool
	// measure, when set, measures the work its own way (gc).
	measure func(b *bench, f *fixture, reps int, tmp string) (row, error)
}

const oneSkill = "skill-00042"

func skillRef(name string) string { return "refs/heads/skills/" + name }

func fixed(args ...string) func(*fixture, int, string) []string {
	return func(*fixture, int, string) []string { return args }
}

func allWorks() []work {
	works := []work{
		{name: "start-up", noStore: true, args: fixed("--version"), git: fixed("--version")},
		{name: "show", args: fixed("show", oneSkill), git: fixed("show", skillRef(oneSkill))},
		{name: "log", args: fixed("log", oneSkill), git: fixed("log", skillRef(oneSkill))},
		{name: "cat", args: fixed("cat", oneSkill), git: fixed("cat-file", "-p", skillRef(oneSkill)+":SKILL.md")},
		{name: "diff", args: fixed("diff", diffSkill+"@v1", "@v2"), git: fixed("diff", skillRef(diffSkill)+"~1", skillRef(diffSkill))},
		{name: "checkout",
			args: func(f *fixture, k int, tmp string) []string {
				return []string{"checkout", oneSkill, filepath.Join(tmp, fmt.Sprintf("co-%d-%d", f.n, k))}
			},
			git: func(f *fixture, k int, tmp string) []string {
				return []string{"archive", "-o", filepath.Join(tmp, fmt.Sprintf("co-%d-%d.tar", f.n, k)), skillRef(oneSkill)}
			}},
		{name: "add (one skill)", before: editAddSkill,
			args: func(f *fixture, k int, tmp string) []string { return []string{"add", addSkillDir(tmp)} }},
		{name: "rollback", before: addEdit, args: fixed("rollback", addSkill, "v1")},
		{name: "candidates show", before: ensureCandidate,
			args: fixed("candidates", "show", pluginSkillName), git: fixed("show", pluginCandidateRef)},
		{name: "candidates accept", before: func(b *bench, f *fixture, k int, tmp string) error {
			candidateRound++
			return f.newCandidate(b, candidateRound)
		},
			args: fixed("candidates", "accept", pluginSkillName)},
		{name: "list", args: fixed("list"), git: fixed("for-each-ref", "--format=%(refname) %(contents:subject)")},
		{name: "import", fresh: true},
	}
	works = append(works, exportWorks()...)
	works = append(works, statusWorks()...)
	works = append(works, mcpWorks()...)
	return append(works, gcWorks()...)
}

func selectWorks(all []work, names []string) []work {
	var out []work
	for _, w := range all {
		for _, n := range names {
			if strings.TrimSpace(n) == w.name || strings.HasPrefix(w.name, strings.TrimSpace(n)+" ") {
				out = append(out, w)
				break
			}
		}
	}
	return out
}

var addRound int

func addSkillDir(tmp string) string { return filepath.Join(tmp, "add", addSkill) }

// editAddSkill writes a new edit of addSkill, different at every call, so
// each add records a version (and rollback to v1 then has work to do).
func editAddSkill(b *bench, f *fixture, k int, tmp string) error {
	addRound++
	return writeSkill(addSkillDir(tmp), 2, fmt.Sprintf("\nEdit round %d.\n", addRound))
}

// addEdit records a new edit of addSkill (untimed), so that rollback to
// v1 has work to do.
func addEdit(b *bench, f *fixture, k int, tmp string) error {
	if err := editAddSkill(b, f, k, tmp); err != nil {
		return err
	}
	_, err := b.run(b.bin, f.store, "add", addSkillDir(tmp))
	return err
}

var candidateRound = 1000

// ensureCandidate makes a candidate for the plugin's skill unless one is
// pending.
func ensureCandidate(b *bench, f *fixture, k int, tmp string) error {
	if _, err := os.Stat(filepath.Join(f.store, filepath.FromSlash(pluginCandidateRef))); err == nil {
		return nil
	}
	if _, err := b.runIn("", "git", "", nil, "--git-dir", f.store, "rev-parse", "--verify", "-q", pluginCandidateRef); err == nil {
		return nil
	}
	candidateRound++
	return f.newCandidate(b, candidateRound)
}

// measureWork runs w reps times with each binary and git, interleaved so
// that load on the machine falls on all of them alike.
func measureWork(b *bench, f *fixture, w work, reps int, tmp string) (row, error) {
	if w.fresh {
		return measureImport(b, f, reps, tmp)
	}
	if w.measure != nil {
		return w.measure(b, f, reps, tmp)
	}
	r := row{work: w.name, n: f.n, refCommand: "-"}
	if w.slow && f.n >= 10000 {
		reps = 1
	}
	var ours, old, ref []sample
	store := f.store
	if w.noStore {
		store = ""
	}
	for k := 0; k < reps; k++ {
		bins := []string{b.bin}
		if b.oldBin != "" {
			bins = append(bins, b.oldBin)
		}
		for i, bin := range bins {
			if w.before != nil {
				if err := w.before(b, f, k, tmp); err != nil {
					return r, err
				}
			}
			s, err := b.run(bin, store, w.args(f, k*2+i, tmp)...)
			if err != nil {
				return r, err
			}
			if i == 0 {
				ours = append(ours, s)
			} else {
				old = append(old, s)
			}
		}
		if w.git != nil {
			args := w.git(f, k, tmp)
			r.refCommand = "git " + args[0]
			if !w.noStore {
				args = append([]string{"--git-dir", f.store}, args...)
			}
			s, err := b.run("git", "", args...)
			if err != nil {
				return r, err
			}
			ref = append(ref, s)
		}
		if w.ref != nil {
			argv := w.ref(f, k, tmp)
			r.refCommand = argv[0] + " " + argv[1]
			if argv[0] == "git" {
				r.refCommand = "git " + refVerb(argv)
			}
			s, err := b.run(argv[0], "", argv[1:]...)
			if err != nil {
				return r, err
			}
			ref = append(ref, s)
		}
	}
	r.ours, r.old, r.ref = summarize(ours), summarize(old), summarize(ref)
	return r, nil
}

// measureImport imports the fixture's skills into a new store, and git
// fast-imports the same skills into a new bare repository. Large sizes
// run once.
func measureImport(b *bench, f *fixture, reps int, tmp string) (row, error) {
	if f.n >= 10000 {
		reps = 1
	}
	r := row{work: "import", n: f.n, refCommand: "git fast-import"}
	// Read the skills once, untimed, so the first binary measured does
	// not pay for a cold page cache that the others then find warm.
	if err := warmFiles(f.skills); err != nil {
		return r, err
	}
	stream := filepath.Join(tmp, "fast-import.stream")
	if err := writeFastImportStream(stream, f.n); err != nil {
		return r, err
	}
	defer os.Remove(stream)
	var ours, old, ref []sample
	bins := []string{b.bin}
	if b.oldBin != "" {
		bins = append(bins, b.oldBin)
	}
	for k := 0; k < reps; k++ {
		for i, bin := range bins {
			dir := filepath.Join(tmp, fmt.Sprintf("import-%d-%d-%d", f.n, k, i))
			if _, err := b.run(bin, dir, "init"); err != nil {
				return r, err
			}
			s, err := b.run(bin, dir, "import", f.skills)
			os.RemoveAll(dir)
			if err != nil {
				return r, err
			}
			if i == 0 {
				ours = append(ours, s)
			} else {
				old = append(old, s)
			}
		}
		dir := filepath.Join(tmp, fmt.Sprintf("import-%d-%d.git", f.n, k))
		if _, err := b.run("git", "", "init", "--quiet", "--bare", dir); err != nil {
			return r, err
		}
		in, err := os.Open(stream)
		if err != nil {
			return r, err
		}
		s, err := b.runIn(dir, "git", "", in, "fast-import", "--quiet")
		in.Close()
		os.RemoveAll(dir)
		if err != nil {
			return r, err
		}
		ref = append(ref, s)
	}
	r.ours, r.old, r.ref = summarize(ours), summarize(old), summarize(ref)
	return r, nil
}

// warmFiles reads every file under root.
func warmFiles(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		_, err = os.ReadFile(path)
		return err
	})
}
