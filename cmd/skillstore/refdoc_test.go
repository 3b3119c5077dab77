package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/refdoc"
)

// The command reference (docs/reference) is generated from the commands'
// own help by package refdoc: `make docs` runs TestReferenceDocs with
// -update, which writes the pages; without it the test fails, naming the
// command and the flag, whenever a page differs from what the help says.
// It is a test in package main, not a separate program, because the
// command tree is built by newApp here and a main package cannot be
// imported.

// manDir is where `make man` has TestManPages write the man pages.
var manDir = flag.String("man", "", "write the man pages generated from the help into `DIR` (make man)")

const referenceDir = "../../docs/reference"

// referenceIntro is the part of the index the help does not hold.
const referenceIntro = "One page per command, generated from its `--help` (`skillstore help COMMAND` prints the same text).\n" +
	"What every command shares (the store's location, exit codes, `--json`, `--dry-run`, colour, completion)\n" +
	"is in [conventions](../conventions.md); tasks are in the [guide](../guide/README.md)."

func helpApp() *refdoc.Command {
	return refdoc.FromApp(newApp(&env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}, nil))
}

func TestReferenceDocs(t *testing.T) {
	pages, err := refdoc.Markdown(helpApp(), refdoc.MarkdownOptions{Intro: referenceIntro})
	if err != nil {
		t.Fatal(err)
	}
	have := readDir(t, referenceDir, ".md")
	if *update {
		writePages(t, referenceDir, pages, have)
		return
	}
	for _, problem := range refdoc.Compare(pages, have) {
		t.Errorf("docs/reference/%s\n\trun 'make docs' to regenerate the reference from the help", problem)
	}
}

// TestGroupUsageNamesItsSubcommands keeps a group's one-line usage that
// lists its subcommands ("vendor upstream plugins: add, list, ...") in step
// with the subcommands it has: that line is what 'skillstore --help' shows.
func TestGroupUsageNamesItsSubcommands(t *testing.T) {
	word := regexp.MustCompile(`^[a-z-]+$`)
	helpApp().Walk(func(c *refdoc.Command) {
		_, list, ok := strings.Cut(c.Usage, ": ")
		if len(c.Subcommands) == 0 || !ok {
			return
		}
		named := strings.Split(list, ", ")
		for _, n := range named {
			if !word.MatchString(n) {
				return // prose after a colon, not a list of names
			}
		}
		var have []string
		for _, s := range c.Subcommands {
			have = append(have, s.Path[len(s.Path)-1])
		}
		slices.Sort(named)
		slices.Sort(have)
		if !slices.Equal(named, have) {
			t.Errorf("'%s': its usage names %v, its subcommands are %v", c.Name(), named, have)
		}
	})
}

// TestManPages renders the man pages and has groff check each one (no
// warning, every flag of the command in the output); with -man DIR it
// writes them there.
func TestManPages(t *testing.T) {
	pages := refdoc.Man(helpApp())
	if *manDir != "" {
		if err := os.MkdirAll(*manDir, 0o755); err != nil {
			t.Fatal(err)
		}
		writePages(t, *manDir, pages, readDir(t, *manDir, ".1"))
	}
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("groff not installed: the man pages are not checked")
	}
	for _, p := range pages {
		cmd := exec.Command(groff, "-man", "-Tutf8", "-ww")
		cmd.Stdin = bytes.NewReader(p.Content)
		cmd.Env = append(os.Environ(), "GROFF_NO_SGR=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Errorf("%s: groff: %v\n%s", p.File, err, stderr.String())
			continue
		}
		text := stripOverstrike(string(out))
		for _, f := range p.Command.Flags {
			if !strings.Contains(text, f.Synopsis) {
				t.Errorf("%s: rendered page lacks flag %q", p.File, f.Synopsis)
			}
		}
	}
}

// stripOverstrike removes the backspace overstriking (bold, underline)
// that groff's tty output uses, and its hyphen and quote substitutes.
func stripOverstrike(s string) string {
	var b strings.Builder
	r := []rune(s)
	for i := 0; i < len(r); i++ {
		if i+1 < len(r) && r[i+1] == '\b' {
			continue
		}
		if r[i] == '\b' {
			continue
		}
		b.WriteRune(r[i])
	}
	return strings.NewReplacer("‐", "-", "−", "-", "’", "'", "‘", "'").Replace(b.String())
}

func readDir(t *testing.T, dir, ext string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	have := map[string][]byte{}
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ext) {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			have[e.Name()] = b
		}
	}
	return have
}

// writePages writes the pages into dir and removes the generated pages
// of commands that no longer exist (files someone wrote by hand stay).
func writePages(t *testing.T, dir string, pages []refdoc.Page, have map[string][]byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if err := os.WriteFile(filepath.Join(dir, p.File), p.Content, 0o644); err != nil {
			t.Fatal(err)
		}
		delete(have, p.File)
	}
	for name, content := range have {
		if bytes.HasPrefix(content, []byte(refdoc.Header)) || strings.Contains(string(content), "Generated by make man") {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("wrote %d pages into %s", len(pages), dir)
}
