package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/mdexample"
)

// Checks that keep the documentation in step with the code beside it:
// its links resolve, the licence table lists every module of go.mod, and
// the design's package map every package. The command reference has its
// own (refdoc_test.go), the examples theirs (docs_test.go).

// TestDocLinks checks that every relative link of README.md and docs/
// points at a file that exists and, with a #fragment into a Markdown
// file, at one of its headings.
func TestDocLinks(t *testing.T) {
	for _, file := range docFiles(t) {
		src, err := os.ReadFile(filepath.Join(repoRoot, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range mdexample.Links(src) {
			if problem := checkLink(file, src, l.Target); problem != "" {
				t.Errorf("%s:%d: link %s: %s", file, l.Line, l.Target, problem)
			}
		}
	}
}

// TestLicencesListEveryModule keeps docs/licences.md in step with go.mod:
// each module required, direct or indirect, has its row, at the version
// go.mod names, and no row names a module go.mod no longer has.
func TestLicencesListEveryModule(t *testing.T) {
	gomod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "licences.md"))
	if err != nil {
		t.Fatal(err)
	}
	required := map[string]string{}
	inBlock := false
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && f[0] == "require" && f[1] == "(":
			inBlock = true
		case inBlock && len(f) > 0 && f[0] == ")":
			inBlock = false
		case inBlock && len(f) >= 2:
			required[f[0]] = f[1]
		case len(f) >= 3 && f[0] == "require":
			required[f[1]] = f[2]
		}
	}
	listed := map[string]string{}
	for _, line := range strings.Split(string(doc), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.Contains(cells[1], ".") {
			continue
		}
		module := strings.TrimSuffix(strings.TrimSpace(cells[1]), " (direct)")
		listed[module] = strings.TrimSpace(cells[2])
	}
	for m, v := range required {
		if listed[m] != v {
			t.Errorf("docs/licences.md: module %s %s of go.mod is listed at %q: add its row (version and the licence in its LICENSE file)", m, v, listed[m])
		}
	}
	for m := range listed {
		if _, ok := required[m]; !ok {
			t.Errorf("docs/licences.md lists %s, which go.mod no longer requires", m)
		}
	}
	if len(required) == 0 {
		t.Fatal("read no module from go.mod")
	}
}

// TestDesignNamesEveryPackage keeps the package map in docs/design/README.md
// in step with the code: every package of the module has a row (its path in
// backquotes in the first column), and no row names a package that is gone.
func TestDesignNamesEveryPackage(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "design", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Packages\n")
	if !ok {
		t.Fatal("docs/design/README.md has no '## Packages' section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	named := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			continue
		}
		for _, m := range regexp.MustCompile("`([a-z0-9/]+)`").FindAllStringSubmatch(cells[1], -1) {
			named[m[1]] = true
		}
	}
	packages := goPackages(t)
	for _, p := range packages {
		if !named[p] {
			t.Errorf("docs/design/README.md: package %s has no row in the package map: add one (what it owns, what it imports)", p)
		}
	}
	for p := range named {
		if !slices.Contains(packages, p) {
			t.Errorf("docs/design/README.md: the package map names %s, which is no package of the module any more", p)
		}
	}
}

// goPackages lists the module's package folders (those holding a
// non-test .go file), testdata and hidden folders left out.
func goPackages(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != repoRoot && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			rel, err := filepath.Rel(repoRoot, filepath.Dir(p))
			if err != nil {
				return err
			}
			seen[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func checkLink(file string, src []byte, target string) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	path, frag, _ := strings.Cut(target, "#")
	content := src
	if path != "" {
		full := filepath.Join(repoRoot, filepath.Dir(file), filepath.FromSlash(path))
		info, err := os.Stat(full)
		if err != nil {
			return "no such file"
		}
		if frag == "" || info.IsDir() || !strings.HasSuffix(path, ".md") {
			return ""
		}
		if content, err = os.ReadFile(full); err != nil {
			return err.Error()
		}
	}
	if frag != "" && !mdexample.Anchors(content)[frag] {
		return fmt.Sprintf("no heading #%s there", frag)
	}
	return ""
}
