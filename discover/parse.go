package discover

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/skillstore/skillstore/internal/skillmd"
)

// MaxFileSize is the largest SKILL.md Parse accepts. The spec recommends
// bodies under 500 lines (about 5,000 tokens); a megabyte is far beyond any
// real skill, so anything larger is a mistake or an attack, refused before
// the YAML parser sees it.
const MaxFileSize = 1 << 20

// SkillFile is a parsed SKILL.md: its frontmatter, typed, and its body.
type SkillFile struct {
	Frontmatter Frontmatter
	// Body is the Markdown after the closing "---" line, byte for byte as in
	// the file (line endings kept).
	Body []byte
	// BodyLine is the 1-based line where the body starts.
	BodyLine int
	// FrontmatterLine is the 1-based line of the first YAML line (after the
	// opening fence); YAML line n is file line FrontmatterLine+n-1.
	FrontmatterLine int
	// RawFrontmatter is the YAML text between the fences, as in the file, so
	// a tool that rewrites one key can keep the others, their order and comments.
	RawFrontmatter []byte
	// BOM and CRLF record the file's encoding details for faithful rewrites.
	BOM  bool
	CRLF bool

	// keyLines maps each top-level key to its file line.
	keyLines map[string]int
	// issues are problems with individual fields found while typing them;
	// ValidateFile reports them with the mode's severity.
	issues []fieldIssue
}

// KeyLine returns the 1-based file line of a top-level frontmatter key, or
// the line of the opening fence when the key is absent.
func (f *SkillFile) KeyLine(key string) int {
	if l, ok := f.keyLines[key]; ok {
		return l
	}
	return 1
}

// fieldIssue is a problem with one field's type or spelling, reported by
// each mode as its ruling says.
type fieldIssue struct {
	line int
	msg  string
	rule ruling
}

// Parse reads a SKILL.md: a "---" line, YAML frontmatter, a "---" line, then
// a Markdown body, cut and parsed by package skillmd (the one reader of the
// fence: a UTF-8 byte order mark and CRLF line endings are accepted, only
// "---" closes the frontmatter). Before that it checks what skillmd does
// not: the size and the encoding. On malformed input it returns a
// *skillmd.ParseError naming the line and what to do. YAML aliases are
// refused, so alias bombs cost nothing.
func Parse(data []byte) (*SkillFile, error) {
	if len(data) > MaxFileSize {
		return nil, &skillmd.ParseError{Msg: fmt.Sprintf("file is %d bytes, over the %d-byte limit for SKILL.md; move long material into references/ files", len(data), MaxFileSize)}
	}
	text := bytes.TrimPrefix(data, skillmd.BOM)
	if len(text) == len(data) && (bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF})) {
		return nil, &skillmd.ParseError{Line: 1, Msg: "file is UTF-16; save it as UTF-8"}
	}
	if err := checkUTF8(text); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(text)) == 0 {
		return nil, &skillmd.ParseError{Line: 1, Msg: "file is empty; a SKILL.md starts with '---', name: and description: lines, then '---'"}
	}
	doc, err := skillmd.Parse(data)
	if err != nil {
		return nil, err
	}
	sf := &SkillFile{
		Body: doc.Body, BodyLine: doc.BodyLine, FrontmatterLine: skillmd.YAMLLine,
		RawFrontmatter: doc.YAML, BOM: doc.BOM, CRLF: doc.CRLF,
	}
	if err := sf.decodeFrontmatter(doc.Root); err != nil {
		return nil, err
	}
	return sf, nil
}

// fileLine converts a 1-based YAML line into a file line.
func (f *SkillFile) fileLine(yamlLine int) int {
	if yamlLine <= 0 {
		return f.FrontmatterLine
	}
	return yamlLine + f.FrontmatterLine - 1
}

func checkUTF8(data []byte) error {
	if utf8.Valid(data) {
		return nil
	}
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return &skillmd.ParseError{Line: line, Msg: fmt.Sprintf("invalid UTF-8 (byte 0x%02x at column %d); save the file as UTF-8", data[i], col)}
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return nil
}
