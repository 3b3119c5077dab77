package merge

import (
	"bytes"
	"flag"
	"fmt"
	"github.com/skillstore/skillstore/internal/gitmerge"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// update rewrites the expected out/ sections of testdata/*.txtar:
// go test ./merge -update
var update = flag.Bool("update", false, "rewrite the golden outputs in testdata/*.txtar")

// A golden case is one txtar archive. Its comment holds directives, one per
// line, "name: value":
//
//	kind: text | skill | markdown | tree   which function merges (Text, SkillMD, Markdown, MergeTrees)
//	skill-aware: true           Options.SkillAware (markdown cases have it always)
//	style: diff3 | merge | zdiff3
//	favor: ours | theirs | union
//	marker-size: N
//	labels: OURS BASE THEIRS
//	crlf: SECTION...            the sections' "\n" stand for "\r\n"
//	noeol: SECTION...           the sections have no final newline
//	mode: SECTION executable|symlink   a tree file's mode (tree cases)
//
// Text, skill and markdown cases hold base, ours and theirs; tree cases hold
// files under base/, ours/ and theirs/. The expected results are out/merged
// (a tree's files under out/merged/), out/conflicts, for trees out/modes,
// and with the skill-aware rules out/resolutions.
type goldenCase struct {
	kind   string
	opts   Options
	crlf   map[string]bool
	noeol  map[string]bool
	modes  map[string]Mode
	files  map[string][]byte
	layout *txtar.Archive
}

func loadCase(t *testing.T, file string) *goldenCase {
	t.Helper()
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c := &goldenCase{kind: "text", crlf: map[string]bool{}, noeol: map[string]bool{}, modes: map[string]Mode{}, files: map[string][]byte{}, layout: ar}
	for n, line := range strings.Split(string(ar.Comment), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		value = strings.TrimSpace(value)
		bad := func() { t.Fatalf("%s:%d: bad directive %q", file, n+1, line) }
		switch name {
		case "kind":
			c.kind = value
			c.opts.SkillAware = c.opts.SkillAware || value == "markdown"
		case "skill-aware":
			c.opts.SkillAware = value == "true"
		case "style":
			c.opts.Style = map[string]Style{"diff3": Diff3, "merge": Plain, "zdiff3": ZDiff3}[value]
		case "favor":
			c.opts.Favor = map[string]Favor{"ours": FavorOurs, "theirs": FavorTheirs, "union": FavorUnion}[value]
		case "marker-size":
			if c.opts.MarkerSize, err = strconv.Atoi(value); err != nil {
				bad()
			}
		case "labels":
			f := strings.Fields(value)
			if len(f) != 3 {
				bad()
			}
			c.opts.Labels = Labels{Ours: f[0], Base: f[1], Theirs: f[2]}
		case "crlf", "noeol":
			for _, s := range strings.Fields(value) {
				map[string]map[string]bool{"crlf": c.crlf, "noeol": c.noeol}[name][s] = true
			}
		case "mode":
			f := strings.Fields(value)
			if len(f) != 2 {
				bad()
			}
			c.modes[f[0]] = map[string]Mode{"executable": Executable, "symlink": Symlink}[f[1]]
		default:
			bad()
		}
	}
	for _, f := range ar.Files {
		c.files[f.Name] = c.decode(f.Name, f.Data)
	}
	return c
}

// decode applies the crlf and noeol directives to a section's data; encode
// undoes them for -update.
func (c *goldenCase) decode(name string, data []byte) []byte {
	if c.noeol[name] {
		data = bytes.TrimSuffix(data, []byte("\n"))
	}
	if c.crlf[name] {
		data = bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
	}
	return data
}

func (c *goldenCase) encode(name string, data []byte) []byte {
	if c.crlf[name] {
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	}
	if c.noeol[name] {
		data = append(data, '\n')
	}
	return data
}

func (c *goldenCase) tree(prefix string) Tree {
	t := Tree{}
	for name, data := range c.files {
		if p, ok := strings.CutPrefix(name, prefix+"/"); ok {
			mode := c.modes[name]
			if mode == Symlink {
				data = bytes.TrimSuffix(data, []byte("\n"))
			}
			t[p] = File{Mode: mode, Data: data}
		}
	}
	return t
}

// run merges the case and returns the out/ sections it produced.
func (c *goldenCase) run(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	var conflicts strings.Builder
	switch c.kind {
	case "text", "skill", "markdown":
		merge := map[string]func([]byte, []byte, []byte, Options) (*TextResult, error){
			"text": Text, "skill": SkillMD, "markdown": Markdown}[c.kind]
		r, err := merge(c.files["base"], c.files["ours"], c.files["theirs"], c.opts)
		if err != nil {
			t.Fatal(err)
		}
		out["out/merged"] = r.Merged
		if c.kind == "skill" {
			fmt.Fprintf(&conflicts, "frontmatter merged key by key: %v\n", r.Frontmatter)
		}
		writeConflicts(&conflicts, "", r.Conflicts)
		if c.opts.SkillAware {
			out["out/resolutions"] = []byte(formatResolutions("", r.Resolutions))
		}
	case "tree":
		r, err := MergeTrees(c.tree("base"), c.tree("ours"), c.tree("theirs"), c.opts)
		if err != nil {
			t.Fatal(err)
		}
		var modes strings.Builder
		for p, f := range r.Tree {
			data := f.Data
			if f.Mode == Symlink {
				data = append(append([]byte(nil), data...), '\n')
			}
			out["out/merged/"+p] = data
			if f.Mode != Regular {
				fmt.Fprintf(&modes, "%s %s\n", p, f.Mode)
			}
		}
		out["out/modes"] = []byte(sortLines(modes.String()))
		for _, pc := range r.Conflicts {
			fmt.Fprintf(&conflicts, "%s: %s (base %s, ours %s, theirs %s)\n", pc.Path, pc.Kind, describe(pc.Base), describe(pc.Ours), describe(pc.Theirs))
			writeConflicts(&conflicts, "  ", pc.Text)
		}
		if c.opts.SkillAware {
			var b strings.Builder
			for _, pr := range r.Resolved {
				fmt.Fprintf(&b, "%s", formatResolutions(pr.Path+":", []Resolution{pr.Resolution}))
			}
			out["out/resolutions"] = []byte(b.String())
		}
	default:
		t.Fatalf("unknown kind %q", c.kind)
	}
	out["out/conflicts"] = []byte(conflicts.String())
	return out
}

func describe(f *File) string {
	if f == nil {
		return "absent"
	}
	return fmt.Sprintf("%s %d bytes", f.Mode, len(f.Data))
}

func sortLines(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	sort.Strings(lines)
	return strings.TrimPrefix(strings.Join(lines, "\n")+"\n", "\n")
}

func writeConflicts(b *strings.Builder, indent string, cs []Conflict) {
	for i, c := range cs {
		fmt.Fprintf(b, "%sconflict %d\n", indent, i+1)
		for _, s := range []struct {
			name string
			s    Section
		}{{"ours", c.Ours}, {"base", c.Base}, {"theirs", c.Theirs}} {
			fmt.Fprintf(b, "%s  %s lines %d+%d %q\n", indent, s.name, s.s.Start, s.s.Count, s.s.Text)
		}
	}
}

// formatResolutions writes one line per resolution: where, which rule, and
// the sizes of the conflict it replaced.
func formatResolutions(prefix string, rs []Resolution) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "%s%s (%d lines; conflict ours %d+%d, base %d+%d, theirs %d+%d)\n", prefix, r, r.Count,
			r.Ours.Start, r.Ours.Count, r.Base.Start, r.Base.Count, r.Theirs.Start, r.Theirs.Count)
	}
	return b.String()
}

// TestGolden runs every merge case in testdata/*.txtar.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			c := loadCase(t, file)
			got := c.run(t)
			if *update {
				c.rewrite(t, file, got)
				return
			}
			for name, want := range c.files {
				if !strings.HasPrefix(name, "out/") {
					continue
				}
				if g, ok := got[name]; !ok {
					t.Errorf("%s: expected in the result, missing", name)
				} else if !bytes.Equal(g, want) {
					t.Errorf("%s:\ngot:\n%s\nwant:\n%s", name, g, want)
				}
			}
			for name := range got {
				if _, ok := c.files[name]; !ok {
					t.Errorf("%s: in the result, not in the case (run go test ./merge -update)", name)
				}
			}
		})
	}
}

// rewrite replaces the case's out/ sections with got, keeping the inputs.
func (c *goldenCase) rewrite(t *testing.T, file string, got map[string][]byte) {
	ar := &txtar.Archive{Comment: c.layout.Comment}
	for _, f := range c.layout.Files {
		if !strings.HasPrefix(f.Name, "out/") {
			ar.Files = append(ar.Files, f)
		}
	}
	names := make([]string, 0, len(got))
	for name := range got {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		ar.Files = append(ar.Files, txtar.File{Name: name, Data: c.encode(name, got[name])})
	}
	if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGoldenMatchesGit checks the text cases against the real git
// merge-file: the same bytes and the same number of conflicts. For SKILL.md
// cases, a merge git finds clean must come out the same.
func TestGoldenMatchesGit(t *testing.T) {
	gitmerge.Require(t)
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	dir := t.TempDir()
	for _, file := range files {
		c := loadCase(t, file)
		if c.kind == "tree" {
			continue
		}
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			args := []string{map[Style]string{Diff3: "--diff3", Plain: "", ZDiff3: "--zdiff3"}[c.opts.Style],
				map[Favor]string{FavorOurs: "--ours", FavorTheirs: "--theirs", FavorUnion: "--union"}[c.opts.Favor]}
			if c.opts.MarkerSize != 0 {
				args = append(args, "--marker-size", strconv.Itoa(c.opts.MarkerSize))
			}
			if l := c.opts.Labels; l.Ours != "" {
				args = append(args, "-L", l.Ours, "-L", l.Base, "-L", l.Theirs)
			}
			var nonEmpty []string
			for _, a := range args {
				if a != "" {
					nonEmpty = append(nonEmpty, a)
				}
			}
			want, code := gitmerge.MergeFile(t, dir, c.files["base"], c.files["ours"], c.files["theirs"], nonEmpty...)
			got := c.files["out/merged"]
			conflicts := strings.Count("\n"+string(c.files["out/conflicts"]), "\nconflict ")
			switch {
			case c.kind == "text" && (!bytes.Equal(got, want) || code != conflicts):
				t.Errorf("git merge-file (exit %d):\n%s\ngolden (%d conflicts):\n%s", code, want, conflicts, got)
			case c.kind != "text" && code == 0 && !bytes.Equal(got, want):
				t.Errorf("git merges cleanly to:\n%s\ngolden:\n%s", want, got)
			case c.kind == "markdown" && len(c.files["out/resolutions"]) == 0 && (!bytes.Equal(got, want) || code != conflicts):
				t.Errorf("no rule resolved a conflict, yet the result is not git's (exit %d):\n%s\ngolden:\n%s", code, want, got)
			}
		})
	}
}
