package discover

import "bytes"

// Body returns what follows the frontmatter of a SKILL.md (or any Markdown
// file written the same way): the bytes after the closing "---" line,
// line endings kept. A file that does not start with a "---" line (after
// an optional byte order mark) has no frontmatter and is returned whole.
// The YAML between the fences is not read, so a body can be printed even
// when its frontmatter is broken; an opening fence never closed is an
// error, since where the body starts is then unknown.
func Body(data []byte) ([]byte, error) {
	rest := bytes.TrimPrefix(data, utf8BOM)
	first, after, _ := cutLine(rest)
	if !isFence(first) {
		return data, nil
	}
	for len(after) > 0 {
		var l []byte
		l, after, _ = cutLine(after)
		if isFence(l) {
			if after == nil {
				return []byte{}, nil
			}
			return after, nil
		}
	}
	return nil, &ParseError{Line: 1, Msg: "frontmatter is never closed: add a '---' line after the last YAML line"}
}
