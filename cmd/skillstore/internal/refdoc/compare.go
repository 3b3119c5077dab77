package refdoc

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Compare checks the pages on disk (have: file name → content, the
// directory's .md files) against the pages the help makes (want), and
// returns one problem per page that differs, each naming the command and,
// where that is the difference, the flag or subcommand the page lacks or
// still has. A file without Header is someone's own and never a problem.
func Compare(want []Page, have map[string][]byte) []string {
	var problems []string
	wanted := map[string]bool{}
	for _, p := range want {
		wanted[p.File] = true
		got, ok := have[p.File]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("'%s' has no page %s", p.Command.Name(), p.File))
		case !bytes.Equal(got, p.Content):
			problems = append(problems, explain(p, got)...)
		}
	}
	var extra []string
	for name, content := range have {
		if !wanted[name] && bytes.HasPrefix(content, []byte(Header)) {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		problems = append(problems, fmt.Sprintf("%s documents a command the help no longer has (removed or renamed)", name))
	}
	return problems
}

var (
	flagLine = regexp.MustCompile("(?m)^- `(--?[^ ,`=]+)")
	cmdRow   = regexp.MustCompile("(?m)^\\| \\[`([^`]+)`\\]")
)

// explain says how the page on disk differs from the help: flags or
// subcommands missing or left over, else the first line that differs.
func explain(p Page, got []byte) []string {
	where := fmt.Sprintf("%s ('%s')", p.File, p.Command.Name())
	var out []string
	wantFlags, gotFlags := matches(flagLine, p.Content), matches(flagLine, got)
	for _, f := range missing(wantFlags, gotFlags) {
		out = append(out, fmt.Sprintf("%s: flag %s is in the help but not documented", where, f))
	}
	for _, f := range missing(gotFlags, wantFlags) {
		out = append(out, fmt.Sprintf("%s: documents flag %s, which the command no longer has", where, f))
	}
	wantCmds, gotCmds := matches(cmdRow, p.Content), matches(cmdRow, got)
	for _, c := range missing(wantCmds, gotCmds) {
		out = append(out, fmt.Sprintf("%s: command '%s' is in the help but not listed", where, c))
	}
	for _, c := range missing(gotCmds, wantCmds) {
		out = append(out, fmt.Sprintf("%s: lists command '%s', which no longer exists", where, c))
	}
	if len(out) > 0 {
		return out
	}
	n, page, help := firstDifference(got, p.Content)
	return []string{fmt.Sprintf("%s: line %d differs from the help:\n\tpage: %s\n\thelp: %s", where, n, page, help)}
}

func matches(re *regexp.Regexp, b []byte) []string {
	var out []string
	for _, m := range re.FindAllSubmatch(b, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// missing returns the elements of a that b lacks.
func missing(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func firstDifference(got, want []byte) (line int, g, w string) {
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		g, w = at(gl, i), at(wl, i)
		if g != w {
			return i + 1, g, w
		}
	}
	return 0, "", ""
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return fmt.Sprintf("%q", lines[i])
	}
	return "(end of file)"
}
