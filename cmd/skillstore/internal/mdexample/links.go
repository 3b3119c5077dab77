package mdexample

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Link is an inline link's target, outside code.
type Link struct {
	Line   int
	Target string
}

var (
	inlineLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// Links returns the targets of the inline links ([text](target)) of a
// Markdown file, leaving out fenced code blocks and code spans.
func Links(src []byte) []Link {
	var out []Link
	eachProseLine(src, func(n int, line string) {
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			out = append(out, Link{Line: n, Target: m[1]})
		}
	})
	return out
}

// Anchors returns the fragment ids GitHub gives the headings of a
// Markdown file ("## Global options" is #global-options); a heading seen
// before gets -1, -2... as GitHub numbers them.
func Anchors(src []byte) map[string]bool {
	out := map[string]bool{}
	count := map[string]int{}
	eachProseLine(src, func(_ int, line string) {
		m := heading.FindStringSubmatch(line)
		if m == nil {
			return
		}
		slug := Slug(m[1])
		id := slug
		if n := count[slug]; n > 0 {
			id = fmt.Sprintf("%s-%d", slug, n)
		}
		count[slug]++
		out[id] = true
	})
	return out
}

// Slug is GitHub's fragment id of a heading's text: lower case, letters,
// digits, '-' and '_' kept, spaces made '-', everything else dropped
// (code marks and link brackets included).
func Slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// eachProseLine calls fn with each line outside fenced code blocks.
func eachProseLine(src []byte, fn func(n int, line string)) {
	var fence string
	for i, line := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			for _, c := range t[3:] {
				if c != rune(t[0]) {
					break
				}
				fence += string(c)
			}
			continue
		}
		fn(i+1, line)
	}
}
