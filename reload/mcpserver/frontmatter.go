package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/skillstore/skillstore/internal/skillmd"
)

// The Skills extension sends each skill's frontmatter "rendered verbatim
// as a JSON object": every field the author wrote, so that a host that
// parses the served SKILL.md finds the same fields with the same values.
// frontmatterJSON renders it from the YAML node tree, keys in the order
// written, resolving plain scalars by the YAML 1.2 core schema (the one
// hosts' YAML parsers apply by default: yes, on and 2026-01-02 stay
// strings; 0x1f is 31; true, null, 1.5 are what they say).
//
// A frontmatter that has no exact JSON form is refused, never
// approximated: a key that is not a string, a key written twice, .inf or
// .nan, a number out of range, a custom tag. The skill is then left out
// of the extension (errFrontmatter says why) and served by the tools only.

// frontmatter is a SKILL.md's frontmatter as the extension sends it.
type frontmatter struct {
	JSON        json.RawMessage
	Name        string // the top-level name, "" when absent or not a string
	Description string // the top-level description, likewise
}

// parseFrontmatter reads data (a SKILL.md) into its JSON rendering.
func parseFrontmatter(data []byte) (frontmatter, error) {
	doc, err := skillmd.Parse(data)
	if err != nil {
		return frontmatter{}, err
	}
	var b bytes.Buffer
	if err := renderYAML(&b, doc.Root, 0); err != nil {
		return frontmatter{}, err
	}
	fm := frontmatter{JSON: b.Bytes()}
	for i := 0; i+1 < len(doc.Root.Content); i += 2 {
		k, v := doc.Root.Content[i], doc.Root.Content[i+1]
		if v.Kind != yaml.ScalarNode || coreTag(v) != "!!str" {
			continue
		}
		switch k.Value {
		case "name":
			fm.Name = v.Value
		case "description":
			fm.Description = v.Value
		}
	}
	return fm, nil
}

// maxYAMLDepth bounds nesting; hosts compare frontmatter field by field
// and some refuse deeper trees.
const maxYAMLDepth = 64

func renderYAML(b *bytes.Buffer, n *yaml.Node, depth int) error {
	if depth > maxYAMLDepth {
		return fmt.Errorf("frontmatter nests deeper than %d levels", maxYAMLDepth)
	}
	switch n.Kind {
	case yaml.MappingNode:
		b.WriteByte('{')
		seen := make(map[string]bool, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || coreTag(k) != "!!str" {
				return fmt.Errorf("line %d: the key %q is not a string, which JSON keys must be; quote it", k.Line, k.Value)
			}
			if !utf8.ValidString(k.Value) {
				return fmt.Errorf("line %d: a key is not valid UTF-8", k.Line)
			}
			if seen[k.Value] {
				return fmt.Errorf("line %d: the key %q is written twice", k.Line, k.Value)
			}
			seen[k.Value] = true
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, k.Value)
			b.WriteByte(':')
			if err := renderYAML(b, n.Content[i+1], depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := renderYAML(b, c, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		return renderScalar(b, n)
	case yaml.AliasNode:
		return fmt.Errorf("line %d: YAML aliases are not accepted", n.Line)
	default:
		return fmt.Errorf("line %d: unexpected YAML node", n.Line)
	}
	return nil
}

// YAML 1.2 core schema, plain scalars (https://yaml.org/spec/1.2.2/#1032-tag-resolution).
var (
	coreNull  = map[string]bool{"": true, "~": true, "null": true, "Null": true, "NULL": true}
	coreTrue  = map[string]bool{"true": true, "True": true, "TRUE": true}
	coreFalse = map[string]bool{"false": true, "False": true, "FALSE": true}
	// Compiled on first use rather than at start-up, which every command pays.
	coreRE = sync.OnceValue(func() [4]*regexp.Regexp {
		return [4]*regexp.Regexp{
			regexp.MustCompile(`^[-+]?[0-9]+$`),
			regexp.MustCompile(`^0o[0-7]+$`),
			regexp.MustCompile(`^0x[0-9a-fA-F]+$`),
			regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`),
		}
	})
	coreSpecialFloat = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$`) })
)

// coreTag is the core-schema tag of a scalar: its explicit tag when it
// has one, !!str when quoted or a block scalar, else resolved from its
// text.
func coreTag(n *yaml.Node) string {
	if n.Style&yaml.TaggedStyle != 0 {
		return n.Tag
	}
	if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return "!!str"
	}
	v := n.Value
	re := coreRE()
	switch {
	case coreNull[v]:
		return "!!null"
	case coreTrue[v], coreFalse[v]:
		return "!!bool"
	case re[0].MatchString(v), re[1].MatchString(v), re[2].MatchString(v):
		return "!!int"
	case re[3].MatchString(v), coreSpecialFloat().MatchString(v):
		return "!!float"
	}
	return "!!str"
}

func renderScalar(b *bytes.Buffer, n *yaml.Node) error {
	v := n.Value
	switch tag := coreTag(n); tag {
	case "!!str":
		if !utf8.ValidString(v) {
			return fmt.Errorf("line %d: a value is not valid UTF-8", n.Line)
		}
		writeJSONString(b, v)
	case "!!null":
		b.WriteString("null")
	case "!!bool":
		switch {
		case coreTrue[v]:
			b.WriteString("true")
		case coreFalse[v]:
			b.WriteString("false")
		default:
			return fmt.Errorf("line %d: %q is tagged !!bool but is not true or false", n.Line, v)
		}
	case "!!int":
		i, ok := parseCoreInt(v)
		if !ok {
			return fmt.Errorf("line %d: %q is tagged !!int but is not an integer", n.Line, v)
		}
		b.WriteString(i.String())
	case "!!float":
		if coreSpecialFloat().MatchString(v) {
			return fmt.Errorf("line %d: %s has no JSON form; quote it to make it a string", n.Line, v)
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return fmt.Errorf("line %d: the number %s has no JSON form; quote it to make it a string", n.Line, v)
		}
		b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	default:
		return fmt.Errorf("line %d: the tag %s has no JSON form", n.Line, tag)
	}
	return nil
}

// parseCoreInt reads a core-schema integer (decimal with sign, 0o, 0x).
func parseCoreInt(v string) (*big.Int, bool) {
	base, digits := 10, strings.TrimPrefix(v, "+")
	switch {
	case strings.HasPrefix(v, "0o"):
		base, digits = 8, v[2:]
	case strings.HasPrefix(v, "0x"):
		base, digits = 16, v[2:]
	}
	return new(big.Int).SetString(digits, base)
}

func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Truncate(b.Len() - 1)
}
