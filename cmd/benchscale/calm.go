package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// The calm works (issue 28) measure the commands a store of a few hundred
// plugin skills runs every day, with nothing to do, beside git doing the
// same work on the same repositories: verify beside git fsck --strict on
// the store; a no-op sync beside git fetch --multiple --jobs=8 of the
// same sources into a repository that already has them; a no-op export
// and doctor (no git counterpart).
//
// The fixture is generated once under the cache: -calm plugins, most each
// in a git repository of its own (file:// sources, listed by a
// marketplace, as a catalog of other repositories is), a fifth of them in
// one repository holding them all (a marketplace whose plugins share its
// commit), calmSkills skills each; a store that added them all, with two
// targets (Claude Code's and Codex's folders in the fixture's own HOME)
// exported once.

// calmSkills is the number of skills of each generated plugin.
const calmSkills = 3

// calmFixture is the generated data of the calm works.
type calmFixture struct {
	plugins int
	dir     string // <cache>/<genVersion>/calm<N>
	repos   string // the plugin repositories (and the marketplace's)
	store   string
	home    string // HOME of the commands: the targets are its agents' folders
	ref     string // a bare repository with one remote per source, fetched once
}

func newCalmFixture(cache string, plugins int) *calmFixture {
	dir := filepath.Join(cache, genVersion, fmt.Sprintf("calm%d", plugins))
	return &calmFixture{plugins: plugins, dir: dir, repos: filepath.Join(dir, "repos"),
		store: filepath.Join(dir, "store"), home: filepath.Join(dir, "home"), ref: filepath.Join(dir, "ref.git")}
}

// bench is b with the fixture's HOME, where doctor finds the targets.
func (f *calmFixture) bench(b *bench) *bench {
	c := *b
	c.env = nil
	for _, kv := range b.env {
		if !strings.HasPrefix(kv, "HOME=") {
			c.env = append(c.env, kv)
		}
	}
	c.env = append(c.env, "HOME="+f.home)
	return &c
}

// split is how many plugins get a repository of their own (the rest share
// the monorepo marketplace's).
func (f *calmFixture) split() (own, shared int) {
	shared = f.plugins / 5
	return f.plugins - shared, shared
}

// ensure generates the fixture unless a previous run finished it.
func (f *calmFixture) ensure(b *bench) error {
	done := filepath.Join(f.dir, "done")
	if _, err := os.Stat(done); err == nil {
		return nil
	}
	own, shared := f.split()
	fmt.Fprintf(os.Stderr, "generating %d plugins (%d skills) under %s (once)\n", f.plugins, f.plugins*calmSkills, f.dir)
	if err := os.RemoveAll(f.dir); err != nil {
		return err
	}
	var entries []string
	for i := 0; i < own; i++ {
		name := fmt.Sprintf("p%03d", i)
		repo := filepath.Join(f.repos, name)
		if err := writeCalmPlugin(repo, name); err != nil {
			return err
		}
		if err := gitCommitAll(b, repo); err != nil {
			return err
		}
		entries = append(entries, fmt.Sprintf(`{"name": %q, "source": {"source": "url", "url": "file://%s"}}`, name, repo))
	}
	if err := writeMarketplace(filepath.Join(f.repos, "market"), entries); err != nil {
		return err
	}
	if err := gitCommitAll(b, filepath.Join(f.repos, "market")); err != nil {
		return err
	}
	if err := f.writeMono(b, shared); err != nil {
		return err
	}
	if err := f.setUpStore(b); err != nil {
		return err
	}
	if err := f.setUpRef(b); err != nil {
		return err
	}
	return os.WriteFile(done, []byte(genVersion+"\n"), 0o644)
}

// writeMono writes one repository holding shared plugins and the
// marketplace that lists them by folder.
func (f *calmFixture) writeMono(b *bench, shared int) error {
	mono := filepath.Join(f.repos, "mono")
	var entries []string
	for i := 0; i < shared; i++ {
		name := fmt.Sprintf("m%03d", i)
		if err := writeCalmPlugin(filepath.Join(mono, "plugins", name), name); err != nil {
			return err
		}
		entries = append(entries, fmt.Sprintf(`{"name": %q, "source": "./plugins/%s"}`, name, name))
	}
	if err := writeMarketplace(mono, entries); err != nil {
		return err
	}
	return gitCommitAll(b, mono)
}

// writeCalmPlugin writes a plugin folder: a manifest and calmSkills
// skills of about 4 KB each (the synthetic skill's three files).
func writeCalmPlugin(dir, name string) error {
	if err := os.MkdirAll(filepath.Join(dir, ".claude-plugin"), 0o755); err != nil {
		return err
	}
	manifest := fmt.Sprintf(`{"name": %q, "version": "1.0.0", "description": "Benchmark plugin %s."}`, name, name)
	if err := os.WriteFile(filepath.Join(dir, ".claude-plugin", "plugin.json"), []byte(manifest+"\n"), 0o644); err != nil {
		return err
	}
	for k := 0; k < calmSkills; k++ {
		skill := fmt.Sprintf("%s-s%d", name, k)
		// Each skill's files are its own (its name in every line), as
		// real skills' are: no blob is shared between skills.
		files := skillFiles(0, "")
		for p, data := range files {
			data = []byte(strings.ReplaceAll(string(data), skillName(0), skill))
			full := filepath.Join(dir, "skills", skill, p)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(full, data, fileMode(p)); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeMarketplace(dir string, entries []string) error {
	if err := os.MkdirAll(filepath.Join(dir, ".claude-plugin"), 0o755); err != nil {
		return err
	}
	data := fmt.Sprintf("{\n  \"name\": \"bench-%s\",\n  \"owner\": {\"name\": \"Bench\"},\n  \"plugins\": [\n    %s\n  ]\n}\n",
		filepath.Base(dir), strings.Join(entries, ",\n    "))
	return os.WriteFile(filepath.Join(dir, ".claude-plugin", "marketplace.json"), []byte(data), 0o644)
}

func gitCommitAll(b *bench, dir string) error {
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "v1"}} {
		if _, err := b.runIn(dir, "git", "", nil, args...); err != nil {
			return err
		}
	}
	return nil
}

// setUpStore adds both marketplaces, the two agents' targets, and exports.
func (f *calmFixture) setUpStore(b *bench) error {
	cb := f.bench(b)
	steps := [][]string{
		{"init"},
		{"plugin", "add", "--allow-local", f.repos, "file://" + filepath.Join(f.repos, "market")},
		{"plugin", "add", "file://" + filepath.Join(f.repos, "mono")},
		{"target", "add", "claude"},
		{"target", "add", "codex"},
		{"export"},
		{"sync"},
	}
	for _, args := range steps {
		if _, err := cb.run(cb.bin, f.store, args...); err != nil {
			return err
		}
	}
	return nil
}

// sourceURLs are the store's git sources, one per repository.
func (f *calmFixture) sourceURLs() []string {
	own, _ := f.split()
	var urls []string
	for i := 0; i < own; i++ {
		urls = append(urls, "file://"+filepath.Join(f.repos, fmt.Sprintf("p%03d", i)))
	}
	return append(urls, "file://"+filepath.Join(f.repos, "market"), "file://"+filepath.Join(f.repos, "mono"))
}

// setUpRef makes the repository git fetch works on: a remote per source,
// fetched once, so the timed fetches find nothing new, as the sync does.
func (f *calmFixture) setUpRef(b *bench) error {
	if _, err := b.run("git", "", "init", "-q", "--bare", f.ref); err != nil {
		return err
	}
	for i, u := range f.sourceURLs() {
		if _, err := b.run("git", "", "--git-dir", f.ref, "remote", "add", fmt.Sprintf("r%03d", i), u); err != nil {
			return err
		}
	}
	_, err := b.run("git", "", "--git-dir", f.ref, "fetch", "-q", "--multiple", "--jobs=8", "--all")
	return err
}

// calmWork is one calm work: skillstore's arguments and the reference
// command (nil: none).
type calmWork struct {
	name string
	args []string
	ref  []string
}

func (f *calmFixture) works() []calmWork {
	return []calmWork{
		{name: "verify", args: []string{"verify"}, ref: []string{"git", "--git-dir", f.store, "fsck", "--strict"}},
		{name: "sync (no-op)", args: []string{"sync"}, ref: []string{"git", "--git-dir", f.ref, "fetch", "-q", "--multiple", "--jobs=8", "--all"}},
		{name: "export (no-op)", args: []string{"export"}},
		{name: "doctor", args: []string{"doctor"}},
	}
}

// measureCalm runs each calm work reps times, interleaved with its
// reference, and prints the table.
func measureCalm(b *bench, cache string, plugins, reps int) error {
	f := newCalmFixture(cache, plugins)
	if err := f.ensure(b); err != nil {
		return fmt.Errorf("generate the calm fixture: %w", err)
	}
	cb := f.bench(b)
	var rows []row
	for _, w := range f.works() {
		r := row{work: w.name, n: f.plugins * calmSkills, refCommand: "-"}
		var ours, ref []sample
		for k := 0; k < reps; k++ {
			s, err := cb.run(cb.bin, f.store, w.args...)
			if err != nil && !(w.name == "doctor" && s.exit == 1) {
				return fmt.Errorf("%s: %w", w.name, err)
			}
			ours = append(ours, s)
			if w.ref != nil {
				r.refCommand = strings.Join(w.ref[:1], " ") + " " + refVerb(w.ref)
				s, err := cb.run(w.ref[0], "", w.ref[1:]...)
				if err != nil {
					return fmt.Errorf("%s: %w", strings.Join(w.ref, " "), err)
				}
				ref = append(ref, s)
			}
		}
		r.ours, r.ref = summarize(ours), summarize(ref)
		printRow(r)
		rows = append(rows, r)
	}
	exclusive, err := f.exclusiveLocks(cb)
	if err != nil {
		return err
	}
	fmt.Printf("\ncalm: %d plugins, %d skills, 2 targets (%s)\n", f.plugins, f.plugins*calmSkills, f.dir)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "work\tskillstore (wall / cpu / peak mem)\treference\tref\tvs ref (wall, cpu, mem)\n")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.work, r.ours, r.refCommand, r.ref, ratios(r.ours, r.ref))
	}
	tw.Flush()
	fmt.Printf("a no-op sync took the store's exclusive lock %d times (readers wait only behind that lock)\n", exclusive)
	return nil
}

// refVerb names a reference git command by its verb and options.
func refVerb(argv []string) string {
	for i, a := range argv[1:] {
		if !strings.HasPrefix(a, "-") && (i == 0 || argv[i] != "--git-dir") {
			rest := argv[i+2:]
			var opts []string
			for _, o := range rest {
				if strings.HasPrefix(o, "--") && o != "--all" {
					opts = append(opts, o)
				}
			}
			return strings.Join(append([]string{a}, opts...), " ")
		}
	}
	return ""
}

// exclusiveLocks runs one more no-op sync with --debug and counts the
// times it took the exclusive side of the store lock.
func (f *calmFixture) exclusiveLocks(b *bench) (int, error) {
	cmd := exec.Command(b.bin, "--store", f.store, "--debug", "sync")
	cmd.Env = b.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("sync --debug: %v\n%s", err, stderr.String())
	}
	return strings.Count(stderr.String(), `msg="store lock taken" mode=exclusive`), nil
}
