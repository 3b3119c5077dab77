package skillmd

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

// ParseError is a SKILL.md that cannot be read as frontmatter plus body:
// the file (SKILL.md when empty), the 1-based line (0: the whole file) and
// what is wrong, said so that the reader knows what to do.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	file := e.File
	if file == "" {
		file = FileName
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", file, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", file, e.Msg)
}

// Doc is a SKILL.md cut at its fences with its frontmatter parsed.
type Doc struct {
	Split
	// Root is the frontmatter's top-level mapping; an empty or null
	// frontmatter gives an empty mapping.
	Root *yaml.Node
}

// Line converts a 1-based line of the YAML (a yaml.Node's Line) into a
// file line; 0 (no line known) gives the YAML's first line.
func (d *Doc) Line(yamlLine int) int {
	if yamlLine <= 0 {
		return YAMLLine
	}
	return yamlLine + YAMLLine - 1
}

// Parse cuts data at its fences ([Cut]) and parses the YAML between them,
// which must be a mapping. YAML aliases are refused, not expanded: an
// alias bomb is a few hundred bytes that expand into billions of nodes.
// Every error is a *ParseError naming the file line. Parse does not check
// the encoding or the size; package discover's Parse does, before it.
func Parse(data []byte) (*Doc, error) {
	s, err := Cut(data)
	if err != nil {
		return nil, cutError(err)
	}
	d := &Doc{Split: s}
	var doc yaml.Node
	if err := yaml.Unmarshal(s.YAML, &doc); err != nil {
		return nil, yamlError(s.YAML, err)
	}
	var root *yaml.Node
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		root = doc.Content[0]
	}
	if root == nil || (root.Kind == yaml.ScalarNode && root.Tag == "!!null") {
		root = &yaml.Node{Kind: yaml.MappingNode}
	}
	if alias := findAlias(root); alias != nil {
		return nil, &ParseError{Line: d.Line(alias.Line), Msg: fmt.Sprintf("frontmatter uses the YAML alias *%s; aliases are not accepted in SKILL.md (they allow 'billion laughs' expansion), write the value out", alias.Value)}
	}
	if root.Kind != yaml.MappingNode {
		return nil, &ParseError{Line: d.Line(root.Line), Msg: fmt.Sprintf("frontmatter must be a YAML mapping of keys to values (like 'name: my-skill'), found %s", Describe(root))}
	}
	d.Root = root
	return d, nil
}

// yamlError is the *ParseError for a YAML error in the frontmatter raw,
// at its file line, with a hint for the two mistakes people make most.
func yamlError(raw []byte, err error) *ParseError {
	l, msg := yamlErrorLine(err)
	if tab := tabIndentedLine(raw); tab > 0 && (l == 0 || l == tab) &&
		(strings.Contains(msg, "tab") || strings.Contains(msg, "cannot start any token")) {
		l, msg = tab, "a tab indents this line; YAML indentation must use spaces"
	}
	if l > 0 {
		l += YAMLLine - 1
	} else {
		l = 1
	}
	if strings.Contains(msg, "mapping values are not allowed") {
		msg += "; a value containing ': ' must be quoted"
	}
	return &ParseError{Line: l, Msg: "invalid YAML in frontmatter: " + msg}
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

// findAlias returns the first alias node under n, or nil.
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

// Describe names a YAML value the way error messages about a frontmatter
// do: "a list", "a mapping", `the number "3"`.
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		return fmt.Sprintf("the %s %q", ScalarKind(n), truncate(n.Value, 40))
	}
	return "an unexpected YAML node"
}

// ScalarKind names the type of a YAML scalar: number, boolean, null, date
// or string.
func ScalarKind(n *yaml.Node) string {
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
