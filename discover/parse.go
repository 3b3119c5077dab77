package discover

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
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

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Parse reads a SKILL.md: a "---" line, YAML frontmatter, a "---" line, then
// a Markdown body. A UTF-8 byte order mark and CRLF line endings are
// accepted. On malformed input it returns a *ParseError naming the line and
// what to do. YAML aliases are refused, so alias bombs cost nothing.
func Parse(data []byte) (*SkillFile, error) {
	if len(data) > MaxFileSize {
		return nil, &ParseError{Msg: fmt.Sprintf("file is %d bytes, over the %d-byte limit for SKILL.md; move long material into references/ files", len(data), MaxFileSize)}
	}
	sf := &SkillFile{}
	if bytes.HasPrefix(data, utf8BOM) {
		sf.BOM = true
		data = data[len(utf8BOM):]
	} else if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return nil, &ParseError{Line: 1, Msg: "file is UTF-16; save it as UTF-8"}
	}
	if err := checkUTF8(data); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &ParseError{Line: 1, Msg: "file is empty; a SKILL.md starts with '---', name: and description: lines, then '---'"}
	}

	first, rest, _ := cutLine(data)
	if !isFence(first) {
		return nil, &ParseError{Line: 1, Msg: "missing YAML frontmatter: the file must start with a '---' line, then name: and description:, then '---'"}
	}
	sf.CRLF = bytes.HasSuffix(first, []byte("\r"))
	yamlStart := len(data) - len(rest)
	line := 2
	for off := yamlStart; ; line++ {
		if off >= len(data) {
			return nil, &ParseError{Line: 1, Msg: "frontmatter is never closed: add a '---' line after the last YAML line"}
		}
		l, after, _ := cutLine(data[off:])
		if isFence(l) {
			sf.RawFrontmatter = data[yamlStart:off]
			sf.Body = data[len(data)-len(after):]
			sf.BodyLine = line + 1
			break
		}
		off = len(data) - len(after)
	}
	sf.FrontmatterLine = 2

	var doc yaml.Node
	if err := yaml.Unmarshal(sf.RawFrontmatter, &doc); err != nil {
		l, msg := yamlErrorLine(err)
		if tab := tabIndentedLine(sf.RawFrontmatter); tab > 0 && (l == 0 || l == tab) &&
			(strings.Contains(msg, "tab") || strings.Contains(msg, "cannot start any token")) {
			l, msg = tab, "a tab indents this line; YAML indentation must use spaces"
		}
		if l > 0 {
			l += sf.FrontmatterLine - 1
		} else {
			l = 1
		}
		if strings.Contains(msg, "mapping values are not allowed") {
			msg += "; a value containing ': ' must be quoted"
		}
		return nil, &ParseError{Line: l, Msg: "invalid YAML in frontmatter: " + msg}
	}
	var root *yaml.Node
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		root = doc.Content[0]
	}
	if root == nil || (root.Kind == yaml.ScalarNode && root.Tag == "!!null") {
		root = &yaml.Node{Kind: yaml.MappingNode}
	}
	if alias := findAlias(root); alias != nil {
		return nil, &ParseError{Line: sf.fileLine(alias.Line), Msg: fmt.Sprintf("frontmatter uses the YAML alias *%s; aliases are not accepted in SKILL.md (they allow 'billion laughs' expansion), write the value out", alias.Value)}
	}
	if root.Kind != yaml.MappingNode {
		return nil, &ParseError{Line: sf.fileLine(root.Line), Msg: fmt.Sprintf("frontmatter must be a YAML mapping of keys to values (like 'name: my-skill'), found %s", describeNode(root))}
	}
	if err := sf.decodeFrontmatter(root); err != nil {
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

// cutLine splits data after its first '\n'. The returned line has no '\n'
// but keeps a trailing '\r'.
func cutLine(data []byte) (line, rest []byte, found bool) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return data[:i], data[i+1:], true
	}
	return data, nil, false
}

// isFence reports whether line is "---", ignoring trailing blanks and '\r'.
func isFence(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r")) == "---"
}

func checkUTF8(data []byte) error {
	if utf8.Valid(data) {
		return nil
	}
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return &ParseError{Line: line, Msg: fmt.Sprintf("invalid UTF-8 (byte 0x%02x at column %d); save the file as UTF-8", data[i], col)}
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

// Compiled on first use rather than at start-up, which every command pays.
var yamlLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// yamlErrorLine extracts the 1-based YAML line from a yaml.v3 error.
func yamlErrorLine(err error) (int, string) {
	msg := err.Error()
	if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, m[2]
	}
	if len(msg) > 6 && msg[:6] == "yaml: " {
		msg = msg[6:]
	}
	return 0, msg
}

// findAlias returns the first alias node under n, or nil. Aliases are
// refused rather than expanded: an alias bomb is a few hundred bytes that
// expand into billions of nodes.
func findAlias(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		return n
	}
	for _, c := range n.Content {
		if a := findAlias(c); a != nil {
			return a
		}
	}
	return nil
}

func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		return fmt.Sprintf("the %s %q", scalarKind(n), truncate(n.Value, 40))
	}
	return "an unexpected YAML node"
}

func scalarKind(n *yaml.Node) string {
	switch n.ShortTag() {
	case "!!int", "!!float":
		return "number"
	case "!!bool":
		return "boolean"
	case "!!null":
		return "null"
	case "!!timestamp":
		return "date"
	}
	return "string"
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// tabIndentedLine returns the 1-based line of the first YAML line indented
// with a tab, or 0. yaml.v3 reports that mistake without a line.
func tabIndentedLine(raw []byte) int {
	for n := 1; len(raw) > 0; n++ {
		var line []byte
		line, raw, _ = cutLine(raw)
		trimmed := bytes.TrimLeft(line, " ")
		if len(trimmed) > 0 && trimmed[0] == '\t' {
			return n
		}
	}
	return 0
}
