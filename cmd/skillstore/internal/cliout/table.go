package cliout

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Table prints aligned columns, as text/tabwriter does (two spaces between
// columns, the last column unpadded), with two things tabwriter cannot do:
// a status column coloured on a terminal without breaking the alignment
// (colour codes take no columns), and a last column that fits what is left
// of the terminal's width (file lists summarised to fit) or, holding a
// message, wraps under itself at the report width (--width).
type Table struct {
	rows []tableRow
	// statusCol is the column whose words are coloured (-1: none).
	statusCol int
}

type tableRow struct {
	cells []string
	// fit, when set, renders the last column within budget columns
	// (budget < 0: the width is not known).
	fit func(budget int) string
}

// NewTable returns a table whose column statusCol (-1: none) holds status
// words, coloured by the painter it is written with.
func NewTable(statusCol int) *Table { return &Table{statusCol: statusCol} }

// Add appends a row of fixed cells.
func (t *Table) Add(cells ...string) { t.rows = append(t.rows, tableRow{cells: cells}) }

// AddFit appends a row whose last column is rendered by fit.
func (t *Table) AddFit(fit func(budget int) string, cells ...string) {
	t.rows = append(t.rows, tableRow{cells: append(cells, ""), fit: fit})
}

// Write prints the rows to w; width is the terminal's width (0: unknown).
func (t *Table) Write(w io.Writer, p Painter, width int) error {
	// Cells are Quoted here (Quote: a cell is one line, with no tab)
	// and the table written raw, so that the colours are the terminal's
	// to show and nothing in a cell is.
	for ri := range t.rows {
		for i, c := range t.rows[ri].cells {
			t.rows[ri].cells[i] = Quote(c)
		}
	}
	var widths []int
	for _, r := range t.rows {
		for i, c := range r.cells[:len(r.cells)-1] {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	if width > 0 {
		t.fitColumns(widths, width)
	}
	var b strings.Builder
	for _, r := range t.rows {
		used := 0
		last := len(r.cells) - 1
		var row strings.Builder
		for i, c := range r.cells[:last] {
			text := c
			if i == t.statusCol {
				text = p.Status(c)
			}
			row.WriteString(text)
			pad := widths[i] + 2 - utf8.RuneCountInString(c)
			row.WriteString(strings.Repeat(" ", pad))
			used += widths[i] + 2
		}
		lastText := r.cells[last]
		if r.fit != nil {
			budget := -1
			if width > 0 {
				budget = max(width-used-1, 20)
			}
			lastText = Quote(r.fit(budget))
		}
		if rw := ReportWidthOf(w); rw > 0 && used+utf8.RuneCountInString(lastText) > rw {
			// A long last cell (a message) wraps under its column.
			lastText = strings.ReplaceAll(WrapLine(lastText, max(rw-used, 40), ""), "\n", "\n"+strings.Repeat(" ", used))
		}
		if last == t.statusCol {
			lastText = p.Status(lastText)
		}
		if lastText == "" {
			// No padding after the last cell with text: a line never
			// ends in spaces.
			b.WriteString(strings.TrimRight(row.String(), " "))
		} else {
			b.WriteString(row.String())
			b.WriteString(lastText)
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(Raw(w), b.String())
	return err
}

// minLastColumn is the columns a row keeps for its last cell when the
// others are shortened to fit the terminal.
const minLastColumn = 20

// minShortened is the narrowest a shortened column gets.
const minShortened = 12

// fitColumns narrows the widest columns but the status column until a
// row fits in width with minLastColumn left for its last cell, and
// shortens, in the middle, each cell longer than its column: a row never
// wraps on the terminal (the full names are in --json and --verbose,
// which sets no width).
func (t *Table) fitColumns(widths []int, width int) {
	avail := width - minLastColumn - 2*len(widths)
	total := 0
	for _, w := range widths {
		total += w
	}
	for total > avail {
		widest := -1
		for i, w := range widths {
			if i != t.statusCol && w > minShortened && (widest < 0 || w > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			break // as narrow as names can usefully get
		}
		widths[widest]--
		total--
	}
	for ri := range t.rows {
		cells := t.rows[ri].cells
		for i := range cells[:len(cells)-1] {
			cells[i] = ShortenMiddle(cells[i], widths[i])
		}
	}
}

// ShortenMiddle returns s in at most n columns (runes): whole when it
// fits, else its start and end around "…", so both a plugin's prefix and
// a skill's distinguishing tail stay readable.
func ShortenMiddle(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n || n < 3 {
		return s
	}
	head := (n - 1) / 2
	tail := n - 1 - head
	return string(rs[:head]) + "…" + string(rs[len(rs)-tail:])
}

// Width is the width lines are kept to: the terminal's (or
// $COLUMNS), 0 when unknown or with --verbose (everything is printed).
func Width(w io.Writer, verbose bool) int {
	if verbose {
		return 0
	}
	width, ok := TermWidth(w)
	if !ok {
		return 0
	}
	return width
}

// FileSummary lists paths as "SKILL.md, scripts/run.sh and 10 more":
// every path with verbose; else as many as fit in budget columns (at
// least one), or, when the width is unknown (budget < 0), all of up to
// three and the first two of more.
func FileSummary(paths []string, budget int, verbose bool) string {
	paths = QuoteAll(paths)
	if verbose || len(paths) <= 1 {
		return strings.Join(paths, ", ")
	}
	if budget < 0 {
		if len(paths) <= 3 {
			return strings.Join(paths, ", ")
		}
		return strings.Join(paths[:2], ", ") + fmt.Sprintf(" and %d more", len(paths)-2)
	}
	if all := strings.Join(paths, ", "); utf8.RuneCountInString(all) <= budget {
		return all
	}
	n := 1
	for n < len(paths)-1 {
		next := strings.Join(paths[:n+1], ", ") + fmt.Sprintf(" and %d more", len(paths)-n-1)
		if utf8.RuneCountInString(next) > budget {
			break
		}
		n++
	}
	return strings.Join(paths[:n], ", ") + fmt.Sprintf(" and %d more", len(paths)-n)
}
