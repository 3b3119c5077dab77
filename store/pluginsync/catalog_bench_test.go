package pluginsync

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
)

// Issue 38, item 5: intake at the speed of git. A catalog of plugins in
// the shape of Codex's official one (openai/plugins: "openai-curated")
// is generated as a git repository, and `plugin add` of it is measured
// beside `git clone` and `git clone --bare` of the same repository: wall
// time, CPU time and peak memory, side by side.

// catalogSkills is how many skills the generated plugins that hold
// skills have, in turn. Codex's catalog (openai/plugins, mid 2026: 180
// plugins, 5,253 files, 44 MB, 605 SKILL.md) is skewed: more than half
// of its plugins are an app or servers with an icon and no skill, most
// of the others hold a few skills and some hold dozens; its Markdown is
// 20 MB, its images 12 MB.
var catalogSkills = []int{1, 2, 2, 3, 3, 4, 5, 6, 8, 10, 12, 15, 20, 3, 4, 22}

// codexCatalog is a generated catalog: its repository and what it holds.
type codexCatalog struct {
	dir     string
	plugins int
	skills  int
	files   int
	bytes   int64
}

// buildCodexCatalog writes a catalog of n plugins in the shape of Codex's
// official one into dir and commits it: .agents/plugins/marketplace.json
// listing every plugin with a local source, a policy and a category;
// plugins/NAME/.codex-plugin/plugin.json ("skills": "./skills/" where it
// has skills, an "interface"), an .app.json or .mcp.json and binary
// icons (incompressible bytes); per skill a SKILL.md, agents/openai.yaml,
// references, and for some scripts, examples and images; at the top a
// README, a second marketplace file and a skill of the repository's own
// (.agents/skills/, which no plugin holds). The content is pseudo-random
// from a fixed seed: the same n gives the same repository. With n = 180
// it has about 600 skills and 4,500 files, 35 MB.
func buildCodexCatalog(tb testing.TB, dir string, n int) codexCatalog {
	tb.Helper()
	rng := rand.New(rand.NewPCG(38, uint64(n)))
	cat := codexCatalog{dir: dir, plugins: n}
	write := func(rel string, data []byte, mode os.FileMode) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, data, mode); err != nil {
			tb.Fatal(err)
		}
		cat.files++
		cat.bytes += int64(len(data))
	}
	words := strings.Fields("review deploy triage search index render format lint build test query report " +
		"schedule notify sync export import summarise translate draft plan check migrate archive label")
	text := func(size int) []byte {
		var b bytes.Buffer
		for b.Len() < size {
			for j := range 6 + rng.IntN(10) {
				if j > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[rng.IntN(len(words))])
			}
			b.WriteString(".\n")
		}
		return b.Bytes()
	}
	binary := func(size int) []byte {
		out := make([]byte, size)
		for i := range out {
			out[i] = byte(rng.Uint32())
		}
		return out
	}
	skillMD := func(name string, size int) []byte {
		head := fmt.Appendf(nil, "---\nname: %s\ndescription: %s\n---\n\n# %s\n\n", name, oneLine(text(60)), name)
		return append(head, text(size)...)
	}
	categories := []string{"Productivity", "Coding", "Design", "Data", "Communication", "Education & Research"}
	var entries []map[string]any
	withSkills := 0
	for i := range n {
		name := fmt.Sprintf("%s-%03d", words[i%len(words)], i)
		root := "plugins/" + name + "/"
		iface := map[string]any{
			"displayName": strings.ToUpper(name[:1]) + name[1:], "shortDescription": "Work with " + name,
			"longDescription": oneLine(text(200)), "developerName": "Bench",
			"category": categories[i%len(categories)], "capabilities": []string{"Interactive", "Read", "Write"},
			"composerIcon": "./assets/icon.png", "logo": "./assets/logo.png", "brandColor": "#EF4444",
			"defaultPrompt": []string{"@" + name + " " + oneLine(text(40))}, "screenshots": []string{},
		}
		manifest := map[string]any{
			"name": name, "version": fmt.Sprintf("0.%d.%d", i%5, i%7), "description": "The " + name + " plugin.",
			"author":  map[string]string{"name": "Bench", "email": "bench@example.com", "url": "https://example.com/"},
			"license": "MIT", "keywords": []string{words[i%len(words)], "bench"}, "interface": iface,
		}
		skills := 0
		if i%9 >= 5 { // 4 in 9 plugins hold skills
			skills = catalogSkills[withSkills%len(catalogSkills)]
			withSkills++
			manifest["skills"] = "./skills/"
		}
		if i%3 != 2 {
			manifest["apps"] = "./.app.json"
			write(root+".app.json", fmt.Appendf(nil, `{"apps": {%q: {"id": "connector_%03d"}}}`+"\n", name, i), 0o644)
		} else {
			manifest["mcpServers"] = "./.mcp.json"
			write(root+".mcp.json", fmt.Appendf(nil, `{"mcpServers": {%q: {"url": "https://mcp.example.com/%s"}}}`+"\n", name, name), 0o644)
		}
		data, err := json.MarshalIndent(manifest, "", "  ")
		if err != nil {
			tb.Fatal(err)
		}
		write(root+".codex-plugin/plugin.json", append(data, '\n'), 0o644)
		write(root+"assets/icon.png", binary(8<<10+rng.IntN(48<<10)), 0o644)
		if i%2 == 0 {
			write(root+"assets/logo.png", binary(16<<10+rng.IntN(64<<10)), 0o644)
		}
		if i == 7 {
			write(root+"assets/logo-large.png", binary(2<<20), 0o644) // one large image, as catalogs have
		}
		if skills > 0 {
			write(root+"README.md", text(2<<10+rng.IntN(6<<10)), 0o644)
		}
		for k := range skills {
			skill := fmt.Sprintf("%s-%s-%d", words[(i+k*7)%len(words)], name, k)
			sd := root + "skills/" + skill + "/"
			write(sd+"SKILL.md", skillMD(skill, 2<<10+rng.IntN(8<<10)), 0o644)
			write(sd+"agents/openai.yaml", fmt.Appendf(nil, "interface:\n  display_name: %q\n  short_description: %q\n", skill, "Use "+skill), 0o644)
			for r := range k % 7 {
				write(fmt.Sprintf("%sreferences/topic-%d.md", sd, r), text(2<<10+rng.IntN(8<<10)), 0o644)
			}
			if k%3 == 0 {
				write(sd+"scripts/run.py", append([]byte("#!/usr/bin/env python3\n# "+skill+"\n"), text(4<<10+rng.IntN(20<<10))...), 0o755)
			}
			if k%5 == 1 {
				for e := range 5 {
					write(fmt.Sprintf("%sexamples/example-%d.md", sd, e), text(1<<10+rng.IntN(4<<10)), 0o644)
				}
			}
			if k%10 == 3 {
				write(sd+"assets/diagram.png", binary(16<<10+rng.IntN(64<<10)), 0o644)
			}
			cat.skills++
		}
		entries = append(entries, map[string]any{
			"name":     name,
			"source":   map[string]string{"source": "local", "path": "./plugins/" + name},
			"policy":   map[string]string{"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
			"category": categories[i%len(categories)],
		})
	}
	data, err := json.MarshalIndent(map[string]any{
		"name": "bench-curated", "interface": map[string]string{"displayName": "Bench curated"}, "plugins": entries,
	}, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	write(".agents/plugins/marketplace.json", append(data, '\n'), 0o644)
	write(".agents/plugins/api_marketplace.json", []byte(`{"name": "bench-api", "plugins": []}`+"\n"), 0o644)
	write(".agents/skills/plugin-creator/SKILL.md", skillMD("plugin-creator", 4<<10), 0o644)
	write(".agents/skills/plugin-creator/scripts/create.py", text(8<<10), 0o755)
	write("README.md", append([]byte("# Bench catalog\n\n"), text(4<<10)...), 0o644)
	write(".gitignore", []byte("node_modules/\n"), 0o644)
	storetest.GitCommitAll(tb, dir, "catalog")
	// Packed, as a forge serves a repository: a clone reuses the pack's
	// deltas instead of searching for them.
	storetest.Git(tb, dir, "repack", "-adq")
	return cat
}

// oneLine is text on one line.
func oneLine(text []byte) string {
	return strings.TrimSpace(strings.ReplaceAll(string(text), "\n", " "))
}

// The child process of BenchmarkAddCodexCatalog: `plugin add` of a
// source into a store, in a process of its own, so that its peak memory
// is its own (the benchmark's process holds the generated catalog and
// the test framework). TestMain runs it when intakeChildEnv is set.
const intakeChildEnv = "SKILLSTORE_BENCH_INTAKE_CHILD"

// intakeChild runs the child's add: the value of intakeChildEnv is
// "STORE SOURCE" (two absolute paths, tab-separated).
func intakeChild(arg string) int {
	dir, src, _ := strings.Cut(arg, "\t")
	ctx := context.Background()
	s, err := store.Init(ctx, dir, store.Options{Actor: store.Signature{Name: "Bench", Email: "bench@example.com"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	source, err := plugins.ParseSource(src, "")
	if err == nil {
		_, err = Add(ctx, s, source, AddOptions{})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// benchLaunchEnv makes the test binary a launcher (see TestMain): it
// runs the command its arguments give, measures it, and writes the
// figures as JSON into the file the variable names. Linux counts in a
// child's peak memory the memory of the process that started it (the
// child shares it until exec), so the measured commands are started by
// this small process, not by the benchmark's, which holds the generated
// catalog.
const benchLaunchEnv = "SKILLSTORE_BENCH_LAUNCH"

// procRun is one process measured: wall time, CPU time, peak memory.
type procRun struct {
	Wall time.Duration `json:"wall"`
	CPU  time.Duration `json:"cpu"`
	RSS  int64         `json:"rss"`
	Exit int           `json:"exit"`
}

func (r procRun) String() string {
	return fmt.Sprintf("%8.0fms %8.0fms %6.0fMB", float64(r.Wall)/1e6, float64(r.CPU)/1e6, float64(r.RSS)/(1<<20))
}

// benchLaunch is the launcher: args is the command, out the file for
// its figures. It returns the command's exit code.
func benchLaunch(out string, args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, benchLaunchEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	start := time.Now()
	err := cmd.Run()
	r := procRun{Wall: time.Since(start), Exit: -1}
	if cmd.ProcessState != nil {
		r.Exit = cmd.ProcessState.ExitCode()
		r.CPU, r.RSS = storetest.ProcessUsage(cmd.ProcessState)
	}
	if err != nil && r.Exit <= 0 {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	data, _ := json.Marshal(r)
	if err := os.WriteFile(out, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return r.Exit
}

// benchReps is how many times BenchmarkAddCodexCatalog runs each
// process it measures: $SKILLSTORE_BENCH_REPS, else 3.
func benchReps() int {
	if n, err := strconv.Atoi(os.Getenv("SKILLSTORE_BENCH_REPS")); err == nil && n > 0 {
		return n
	}
	return 3
}

// bestOf sums up runs of one process on a loaded machine: the shortest
// wall time (the least disturbed run), the median CPU time and the
// highest peak memory.
func bestOf(runs []procRun) procRun {
	out := runs[0]
	cpus := make([]time.Duration, len(runs))
	for i, r := range runs {
		out.Wall, out.RSS = min(out.Wall, r.Wall), max(out.RSS, r.RSS)
		cpus[i] = r.CPU
	}
	slices.Sort(cpus)
	out.CPU = cpus[len(cpus)/2]
	return out
}

// measure runs args in dir with env through the launcher and returns
// its figures.
func measure(tb testing.TB, dir string, env []string, args ...string) procRun {
	tb.Helper()
	out := filepath.Join(tb.TempDir(), "usage.json")
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir, cmd.Env = dir, append(env, benchLaunchEnv+"="+out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	var r procRun
	if err := json.Unmarshal(data, &r); err != nil {
		tb.Fatal(err)
	}
	return r
}

// BenchmarkAddCodexCatalog adds a generated catalog of 180 plugins in
// Codex's shape (see buildCodexCatalog) to an empty store, beside `git
// clone` and `git clone --bare` of the same repository (file://, so both
// go through git's pack protocol and neither waits on a network). ns/op
// is the add in this process (what -cpuprofile and -memprofile see); the
// table it logs runs each of the three in a process of its own: wall
// time, CPU time, peak resident memory. The goal: at most about
// twice git clone, the safety check included.
func BenchmarkAddCodexCatalog(b *testing.B) {
	storetest.NeedGit(b)
	var cat codexCatalog
	if dir := os.Getenv("SKILLSTORE_BENCH_CATALOG"); dir != "" {
		// A real catalog's repository instead (a clone of openai/plugins):
		// the same figures, on the real thing.
		cat = codexCatalog{dir: dir, plugins: -1}
	} else {
		cat = buildCodexCatalog(b, filepath.Join(b.TempDir(), "catalog"), 180)
	}
	src, err := plugins.ParseSource(cat.dir, "")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var ours time.Duration
	for range b.N {
		s := storetest.NewStore(b)
		start := time.Now()
		rep, err := Add(ctx, s, src, AddOptions{})
		ours += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if cat.plugins < 0 {
			cat.plugins = len(rep.Plugins)
		}
		if rep.Failed() || len(rep.Plugins) != cat.plugins {
			for _, p := range rep.Plugins {
				if p.Error != "" {
					b.Error(p.Error)
				}
				for _, s := range append(p.Skills, partsOrNone(&p)...) {
					if len(s.LeftOut) > 0 || s.Error != "" {
						b.Error(p.Plugin, s.Skill, s.LeftOut, s.Error)
					}
				}
			}
			b.Fatalf("add: %d plugins added, want %d", len(rep.Plugins), cat.plugins)
		}
	}
	b.StopTimer()
	env := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	tmp := b.TempDir()
	var adds, clones, bares []procRun
	for i := range benchReps() {
		run := filepath.Join(tmp, strconv.Itoa(i))
		if err := os.Mkdir(run, 0o755); err != nil {
			b.Fatal(err)
		}
		adds = append(adds, measure(b, run, append(env, intakeChildEnv+"="+filepath.Join(run, "store")+"\t"+cat.dir), os.Args[0]))
		clones = append(clones, measure(b, run, env, "git", "clone", "--quiet", "file://"+cat.dir, "clone"))
		bares = append(bares, measure(b, run, env, "git", "clone", "--quiet", "--bare", "file://"+cat.dir, "bare.git"))
	}
	add, clone, bare := bestOf(adds), bestOf(clones), bestOf(bares)
	if cat.files > 0 {
		b.Logf("catalog: %d plugins, %d skills, %d files, %.0f MB", cat.plugins, cat.skills, cat.files, float64(cat.bytes)/(1<<20))
	} else {
		b.Logf("catalog: %s, %d plugins added", cat.dir, cat.plugins)
	}
	b.Logf("best of %d runs each (wall: shortest; cpu: median; peak: highest)", len(adds))
	b.Logf("%-18s %10s %10s %8s", "", "wall", "cpu", "peak")
	b.Logf("%-18s %s", "plugin add", add)
	b.Logf("%-18s %s   (add/clone %.1fx)", "git clone", clone, float64(add.Wall)/float64(clone.Wall))
	b.Logf("%-18s %s   (add/bare %.1fx)", "git clone --bare", bare, float64(add.Wall)/float64(bare.Wall))
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "ns/op")
	b.ReportMetric(float64(clone.Wall.Nanoseconds()), "clone-ns")
	b.ReportMetric(float64(add.RSS)/(1<<20), "peak-MB")
	b.ReportMetric(float64(clone.RSS)/(1<<20), "clone-peak-MB")
}
