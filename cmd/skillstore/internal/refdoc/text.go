package refdoc

import "strings"

// A help description is plain text wrapped by hand: paragraphs separated
// by blank lines, and indented runs (tables of values, examples, lists of
// variables) whose columns line up. Both renderers keep that shape: prose
// becomes paragraphs, an indented run stays preformatted.

// block is a paragraph (pre false) or an indented run (pre true).
type block struct {
	pre   bool
	lines []string
}

// splitText cuts a description into blocks: a blank line ends a block, and
// within a run of lines an indented line starts a preformatted block, an
// unindented one a paragraph.
func splitText(s string) []block {
	var blocks []block
	var cur *block
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		line = strings.TrimRight(line, " \t")
		if line == "" {
			cur = nil
			continue
		}
		pre := line[0] == ' ' || line[0] == '\t'
		if cur == nil || cur.pre != pre {
			blocks = append(blocks, block{pre: pre})
			cur = &blocks[len(blocks)-1]
		}
		cur.lines = append(cur.lines, line)
	}
	for i := range blocks {
		if blocks[i].pre {
			blocks[i].lines = dedent(blocks[i].lines)
		}
	}
	return blocks
}

// dedent removes the indentation every line shares.
func dedent(lines []string) []string {
	least := -1
	for _, l := range lines {
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if least < 0 || n < least {
			least = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l[least:]
	}
	return out
}

// fileName is the page of a command: "plugin-add" for skillstore plugin
// add; the program's own page is the index.
func fileName(c *Command, ext string) string {
	if c.IsRoot() {
		return "README" + ext
	}
	return strings.Join(c.Path[1:], "-") + ext
}
