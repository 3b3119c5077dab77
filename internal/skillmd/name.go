package skillmd

import "bytes"

// NameEntry finds the frontmatter's top-level name entry: the byte range
// of data from the start of its "name:" line to the end of its last line
// (the lines after it indented by a space or tab continue its value),
// line break excluded. ok is false when data has no frontmatter or the
// frontmatter no such entry. A "name:" key indented under another key, one
// after a "..." line (YAML's document end: [Parse] reads nothing after it)
// or one in the body is not the entry.
func NameEntry(data []byte) (start, end int, ok bool) {
	s, err := Cut(data)
	if err != nil {
		return 0, 0, false
	}
	off := len(s.Head)
	for rest := s.YAML; len(rest) > 0; {
		line, next, _ := cutLine(rest)
		if isDocumentEnd(line) {
			break // the YAML document ends here: what follows is not read
		}
		if !bytes.HasPrefix(line, []byte("name:")) {
			off += len(rest) - len(next)
			rest = next
			continue
		}
		start, end = off, off+len(trimCR(line))
		for off, rest = off+len(rest)-len(next), next; len(rest) > 0; {
			cont, after, _ := cutLine(rest)
			cont = trimCR(cont)
			if len(cont) == 0 || (cont[0] != ' ' && cont[0] != '\t') {
				break
			}
			end = off + len(cont)
			off, rest = off+len(rest)-len(after), after
		}
		return start, end, true
	}
	return 0, 0, false
}

// SetName sets the frontmatter's top-level name to name: the name entry
// (see [NameEntry]) becomes the one line "name: NAME", its line break
// kept; a frontmatter without one gets it as its first line, ended like
// the opening fence. Everything else is kept byte for byte. Data without
// frontmatter is returned as it is. The name is written as given: the
// caller passes a valid skill name, which needs no YAML quoting.
func SetName(data []byte, name string) []byte {
	s, err := Cut(data)
	if err != nil {
		return data
	}
	entry := "name: " + name
	start, end, ok := NameEntry(data)
	if !ok {
		start, end = len(s.Head), len(s.Head)
		if s.CRLF {
			entry += "\r\n"
		} else {
			entry += "\n"
		}
	}
	out := make([]byte, 0, len(data)-(end-start)+len(entry))
	out = append(out, data[:start]...)
	out = append(out, entry...)
	return append(out, data[end:]...)
}

func trimCR(line []byte) []byte { return bytes.TrimSuffix(line, []byte("\r")) }

// isDocumentEnd reports whether line is YAML's document-end marker "...",
// ignoring trailing blanks and '\r' as a fence does.
func isDocumentEnd(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r")) == "..."
}
