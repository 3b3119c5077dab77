package skillmd

import (
	"bytes"
	"errors"
)

// BOM is the UTF-8 byte order mark a SKILL.md may start with.
var BOM = []byte{0xEF, 0xBB, 0xBF}

// Errors of [Cut], matched with errors.Is.
var (
	// ErrNoFrontmatter: the first line (after a byte order mark) is not
	// "---", so the file has no frontmatter.
	ErrNoFrontmatter = errors.New("no frontmatter: the first line is not '---'")
	// ErrUnclosed: an opening "---" line has no closing one, so where the
	// body starts is unknown.
	ErrUnclosed = errors.New("frontmatter is never closed")
)

// Split is a SKILL.md cut at its frontmatter fences. Its four parts are
// slices of the data given to [Cut] and, in order, make it up exactly:
// Head + YAML + Close + Body.
type Split struct {
	// Head is what comes before the YAML: the byte order mark, if any,
	// and the opening fence line with its line break.
	Head []byte
	// YAML is the text between the fences, as in the file.
	YAML []byte
	// Close is the closing fence line with its line break (none when the
	// file ends on it).
	Close []byte
	// Body is the rest of the file, line endings kept.
	Body []byte
	// BOM records a byte order mark before the opening fence; CRLF, that
	// the opening fence line ends in CRLF.
	BOM, CRLF bool
	// BodyLine is the 1-based file line the body starts on. The YAML
	// always starts on line [YAMLLine].
	BodyLine int
}

// YAMLLine is the 1-based file line of the first line of the YAML: the
// line after the opening fence.
const YAMLLine = 2

// Cut finds the frontmatter of a SKILL.md by the fence rule of the package
// doc. Its error is [ErrNoFrontmatter] or [ErrUnclosed].
func Cut(data []byte) (Split, error) {
	var s Split
	rest := data
	if bytes.HasPrefix(rest, BOM) {
		s.BOM = true
		rest = rest[len(BOM):]
	}
	first, after, _ := cutLine(rest)
	if !isFence(first) {
		return Split{}, ErrNoFrontmatter
	}
	s.CRLF = bytes.HasSuffix(first, []byte("\r"))
	yamlStart := len(data) - len(after)
	s.Head = data[:yamlStart]
	for line, off := YAMLLine, yamlStart; off < len(data); line++ {
		l, next, _ := cutLine(data[off:])
		end := len(data) - len(next)
		if isFence(l) {
			s.YAML, s.Close, s.Body = data[yamlStart:off], data[off:end], data[end:]
			s.BodyLine = line + 1
			return s, nil
		}
		off = end
	}
	return Split{}, ErrUnclosed
}

// Body returns what follows the frontmatter of a SKILL.md (or of any
// Markdown file written the same way), line endings kept. A file without
// frontmatter is returned whole. The YAML is not read, so a body can be
// shown when its frontmatter is broken; an opening fence never closed is
// a *ParseError, since where the body starts is then unknown.
func Body(data []byte) ([]byte, error) {
	s, err := Cut(data)
	switch {
	case errors.Is(err, ErrNoFrontmatter):
		return data, nil
	case err != nil:
		return nil, cutError(err)
	}
	return s.Body, nil
}

// cutError is the *ParseError for an error of Cut, saying what to do.
func cutError(err error) *ParseError {
	if errors.Is(err, ErrUnclosed) {
		return &ParseError{Line: 1, Msg: "frontmatter is never closed: add a '---' line after the last YAML line"}
	}
	return &ParseError{Line: 1, Msg: "missing YAML frontmatter: the file must start with a '---' line, then name: and description:, then '---'"}
}

// cutLine splits data after its first '\n'. The returned line has no '\n'
// but keeps a trailing '\r'.
func cutLine(data []byte) (line, rest []byte, found bool) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return data[:i], data[i+1:], true
	}
	return data, data[len(data):], false
}

// isFence reports whether line is "---", ignoring trailing blanks and '\r'.
func isFence(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r")) == "---"
}
