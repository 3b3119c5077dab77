package treediff

import (
	"fmt"
	"io"
	"strings"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// FileStat counts the lines a change adds and deletes, as git diff --stat
// does; a binary file counts none.
type FileStat struct {
	Path       string `json:"path"`
	Insertions int    `json:"insertions"`
	Deletions  int    `json:"deletions"`
	Binary     bool   `json:"binary,omitempty"`
}

// Stats counts the added and deleted lines of each change's patch. A
// rename is shown as "old => new".
func Stats(changes []FileChange) []FileStat {
	out := make([]FileStat, 0, len(changes))
	for _, c := range changes {
		st := FileStat{Path: c.path(), Binary: c.Binary}
		if c.Kind == ChangeRenamed {
			st.Path = c.OldPath + " => " + c.NewPath
		}
		for _, line := range strings.SplitAfter(c.Patch, "\n") {
			switch {
			case strings.HasPrefix(line, "+"):
				st.Insertions++
			case strings.HasPrefix(line, "-"):
				st.Deletions++
			}
		}
		out = append(out, st)
	}
	return out
}

// WriteStat prints stats the way git diff --stat does: one line per file
// with a bar of + and - scaled to width columns, then a summary line.
func WriteStat(w io.Writer, stats []FileStat, width int) error {
	nameWidth, most := 0, 0
	names := make([]string, len(stats)) // quoted as git quotes a path
	for i, s := range stats {
		names[i] = skillfs.QuotePath(s.Path)
		nameWidth = max(nameWidth, len(names[i]))
		most = max(most, s.Insertions+s.Deletions)
	}
	countWidth := len(fmt.Sprint(most))
	bar := max(width-nameWidth-countWidth-5, 10)
	var ins, del int
	for i, s := range stats {
		ins, del = ins+s.Insertions, del+s.Deletions
		if s.Binary {
			fmt.Fprintf(w, " %-*s | Bin\n", nameWidth, names[i])
			continue
		}
		plus, minus := s.Insertions, s.Deletions
		if most > bar {
			plus, minus = scale(plus, most, bar), scale(minus, most, bar)
		}
		graph := strings.Repeat("+", plus) + strings.Repeat("-", minus)
		if graph != "" {
			graph = " " + graph
		}
		fmt.Fprintf(w, " %-*s | %*d%s\n", nameWidth, names[i], countWidth, s.Insertions+s.Deletions, graph)
	}
	_, err := fmt.Fprintln(w, statSummary(len(stats), ins, del))
	return err
}

// scale shrinks n of total to fit width columns, keeping at least one
// column for a non-zero count.
func scale(n, total, width int) int {
	if n == 0 {
		return 0
	}
	return max(n*width/total, 1)
}

func statSummary(files, ins, del int) string {
	s := fmt.Sprintf(" %d file%s changed", files, plural(files))
	if ins > 0 || del == 0 {
		s += fmt.Sprintf(", %d insertion%s(+)", ins, plural(ins))
	}
	if del > 0 || ins == 0 {
		s += fmt.Sprintf(", %d deletion%s(-)", del, plural(del))
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
