package discover

import (
	"bufio"
	"io"
	"path/filepath"
	"strings"
)

// WritePrompt writes the <available_skills> XML block that the Agent Skills
// reference tooling (skills-ref to-prompt) generates for an agent's system
// prompt: for each skill its name, description and the absolute, resolved
// path of its SKILL.md, each value on its own line and escaped.
func WritePrompt(w io.Writer, skills []*Skill) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("<available_skills>\n")
	for _, s := range skills {
		loc := s.Path()
		if real, err := filepath.EvalSymlinks(loc); err == nil {
			loc = real
		}
		bw.WriteString("<skill>\n")
		writeElement(bw, "name", s.Name)
		writeElement(bw, "description", s.Description)
		writeElement(bw, "location", loc)
		bw.WriteString("</skill>\n")
	}
	bw.WriteString("</available_skills>\n")
	return bw.Flush()
}

func writeElement(w *bufio.Writer, tag, value string) {
	w.WriteString("<" + tag + ">\n")
	xmlEscaper.WriteString(w, value)
	w.WriteString("\n</" + tag + ">\n")
}

// xmlEscaper escapes as Python's html.escape does in the reference
// implementation.
var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;")
