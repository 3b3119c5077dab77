package merge

import (
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillstore/skillstore/internal/skillmd"
	"github.com/skillstore/skillstore/merge/diff3"
)

// SkillMD merges three versions of a SKILL.md. When all three start with a
// YAML frontmatter block that parses as a block mapping, the frontmatter is
// merged key by key and the body line by line (see Text): a key changed on
// one side only takes that side's value, a key changed the same way on both
// sides is kept, and a key absent on a side counts as a value, so additions
// and deletions follow the same rule. Nested mappings are merged the same
// way; any other value (lists included) is a single value. The result keeps
// ours' key order and bytes, and takes theirs' lines for the keys it
// changed; new keys from theirs go after the key they follow in theirs.
//
// If a side has no frontmatter, fails to parse, or two sides change the same
// key differently, the whole file is merged line by line instead, so the
// conflict shows up with markers as git would show it.
//
// With opts.SkillAware, the conflicts of the body (or of the whole file's
// line merge) go through the skill-aware rules of Markdown, and the ones
// they resolve are listed in TextResult.Resolutions.
func SkillMD(base, ours, theirs []byte, opts Options) (*TextResult, error) {
	res, err := Text(base, ours, theirs, opts)
	if err != nil || res.Clean() || res.Coarse {
		// A clean line merge is exactly what git gives: keep it byte for
		// byte (with a Favor option, the merge is always clean). A coarse
		// one would be as coarse again in parts.
		return res, err
	}
	whole := func() (*TextResult, error) {
		if opts.SkillAware {
			// The rules are for Markdown: a conflict that reaches into a
			// frontmatter (YAML) stays git's.
			b, o, t := fenceLines(string(base)), fenceLines(string(ours)), fenceLines(string(theirs))
			inBody := func(c *Conflict) bool {
				return c.Base.Start > b && c.Ours.Start > o && c.Theirs.Start > t
			}
			return resolveConflicts(base, ours, theirs, res, opts, inBody), nil
		}
		return res, nil
	}
	fb, okb := splitFrontmatter(string(base))
	fo, oko := splitFrontmatter(string(ours))
	ft, okt := splitFrontmatter(string(theirs))
	if !okb || !oko || !okt {
		return whole()
	}
	head, ok := mergeFrontmatter(fb, fo, ft)
	if !ok {
		return whole()
	}
	bodyRes, err := diff3.Merge([]byte(fb.body), []byte(fo.body), []byte(ft.body), opts.text())
	if err != nil {
		// A NUL byte past the file's first 8000 bytes (git's binary test)
		// can fall within the body's: keep the line merge of the whole file.
		return res, nil
	}
	body := &TextResult{Merged: bodyRes.Merged, Conflicts: bodyRes.Conflicts}
	if opts.SkillAware && !body.Clean() {
		body = resolveConflicts([]byte(fb.body), []byte(fo.body), []byte(ft.body), body, opts, nil)
	}
	for i := range body.Conflicts {
		c := &body.Conflicts[i]
		c.Base.Start += fb.bodyLine
		c.Ours.Start += fo.bodyLine
		c.Theirs.Start += ft.bodyLine
	}
	headLines := strings.Count(head, "\n")
	for i := range body.Resolutions {
		r := &body.Resolutions[i]
		r.Line += headLines
		r.Base.Start += fb.bodyLine
		r.Ours.Start += fo.bodyLine
		r.Theirs.Start += ft.bodyLine
	}
	return &TextResult{
		Merged:      append([]byte(head), body.Merged...),
		Conflicts:   body.Conflicts,
		Frontmatter: true,
		Resolutions: body.Resolutions,
	}, nil
}

// frontmatter is a SKILL.md split at its frontmatter (by skillmd, the one
// reader of the fence): open is everything up to the YAML (a byte order
// mark and the opening fence line), close the closing fence line, lines
// the YAML between them, body the rest of the file.
type frontmatter struct {
	open, close string
	lines       []string
	body        string
	bodyLine    int // number of lines before the body
	root        *yaml.Node
}

// splitFrontmatter finds and parses the frontmatter of text; false when
// there is none or it is not a block mapping of YAML.
func splitFrontmatter(text string) (*frontmatter, bool) {
	doc, err := skillmd.Parse([]byte(text))
	if err != nil {
		return nil, false
	}
	if !strings.HasSuffix(string(doc.Close), "\n") {
		return nil, false // a closing fence without a line break ends the file: nothing to merge
	}
	if doc.Root.Style&yaml.FlowStyle != 0 {
		return nil, false
	}
	lines := strings.SplitAfter(string(doc.YAML), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the YAML ends with a newline: no last, empty line
	}
	return &frontmatter{
		open: string(doc.Head), close: string(doc.Close), lines: lines,
		body: string(doc.Body), bodyLine: doc.BodyLine - 1, root: doc.Root,
	}, true
}

// fenceLines is the number of lines of text's frontmatter block, fences
// included, whether or not its YAML parses; 0 when there is none.
func fenceLines(text string) int {
	s, err := skillmd.Cut([]byte(text))
	if err != nil {
		return 0
	}
	return s.BodyLine - 1
}

// entry is one key of a block mapping and the lines it spans in its
// frontmatter: from the key's line to the next key's line.
type entry struct {
	key        string
	keyNode    *yaml.Node
	value      *yaml.Node
	start, end int // line span, 0-based indexes into frontmatter.lines
}

// entries lists the keys of mapping m, whose text ends before line end; false
// if a key is not a plain scalar or two keys share a line.
func entries(m *yaml.Node, end int) ([]entry, bool) {
	var out []entry
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Line < 1 {
			return nil, false
		}
		e := entry{key: k.Value, keyNode: k, value: v, start: k.Line - 1}
		if n := len(out); n > 0 {
			if out[n-1].start >= e.start {
				return nil, false
			}
			out[n-1].end = e.start
		}
		out = append(out, e)
	}
	if n := len(out); n > 0 {
		if out[n-1].start >= end {
			return nil, false
		}
		out[n-1].end = end
	}
	return out, true
}

// mergeFrontmatter merges the three frontmatter blocks key by key and
// returns ours' fences around the merged YAML; false on a conflict.
func mergeFrontmatter(b, o, t *frontmatter) (string, bool) {
	lines, ok := mergeMapping(
		side{b, b.root, 0, len(b.lines)},
		side{o, o.root, 0, len(o.lines)},
		side{t, t.root, 0, len(t.lines)})
	if !ok {
		return "", false
	}
	yml := strings.Join(lines, "")
	var check yaml.Node
	if err := yaml.Unmarshal([]byte(yml), &check); err != nil {
		return "", false // never write a frontmatter that does not parse
	}
	return o.open + yml + o.close, true
}

// side is one version of a mapping: its node and the lines [start, end) of
// its frontmatter that hold it.
type side struct {
	fm         *frontmatter
	node       *yaml.Node
	start, end int
}

// mergeMapping merges the three versions of a mapping and returns its lines.
func mergeMapping(b, o, t side) ([]string, bool) {
	eb, ok1 := entries(b.node, b.end)
	eo, ok2 := entries(o.node, o.end)
	et, ok3 := entries(t.node, t.end)
	if !ok1 || !ok2 || !ok3 {
		return nil, false
	}
	find := func(es []entry, key string) *entry {
		for i := range es {
			if es[i].key == key {
				return &es[i]
			}
		}
		return nil
	}
	// Lines before ours' first key (comments) stay.
	first := o.end
	if len(eo) > 0 {
		first = eo[0].start
	}
	type block struct {
		key   string
		lines []string
	}
	var out []block
	for _, e := range eo {
		eb, et := find(eb, e.key), find(et, e.key)
		ours := o.fm.lines[e.start:e.end]
		switch {
		case sameValue(&e, et): // unchanged, or changed the same way
			out = append(out, block{e.key, ours})
		case sameValue(&e, eb): // only theirs changed the key
			if et == nil {
				continue // theirs deleted it
			}
			if et.keyNode.Column != e.keyNode.Column {
				return nil, false
			}
			out = append(out, block{e.key, t.fm.lines[et.start:et.end]})
		case sameValue(et, eb): // only ours changed it
			out = append(out, block{e.key, ours})
		case eb != nil && et != nil && isBlockMap(e.value) && isBlockMap(eb.value) && isBlockMap(et.value):
			nested, ok := mergeMapping(
				side{b.fm, eb.value, eb.value.Line - 1, eb.end},
				side{o.fm, e.value, e.value.Line - 1, e.end},
				side{t.fm, et.value, et.value.Line - 1, et.end})
			if !ok {
				return nil, false
			}
			head := o.fm.lines[e.start : e.value.Line-1]
			out = append(out, block{e.key, append(append([]string(nil), head...), nested...)})
		default:
			return nil, false
		}
	}
	// Keys only theirs has: added by theirs, or deleted by ours.
	for i, e := range et {
		if find(eo, e.key) != nil {
			continue
		}
		if eb := find(eb, e.key); eb != nil {
			if sameValue(eb, &e) {
				continue // ours deleted it, theirs left it alone
			}
			return nil, false // ours deleted it, theirs changed it
		}
		if len(eo) > 0 && e.keyNode.Column != eo[0].keyNode.Column {
			return nil, false
		}
		// Insert after the nearest key before it in theirs that we have.
		at := 0
	search:
		for j := i - 1; j >= 0; j-- {
			for k := range out {
				if out[k].key == et[j].key {
					at = k + 1
					break search
				}
			}
		}
		out = append(out[:at], append([]block{{e.key, t.fm.lines[e.start:e.end]}}, out[at:]...)...)
	}
	lines := append([]string(nil), o.fm.lines[o.start:first]...)
	for _, bl := range out {
		lines = append(lines, bl.lines...)
	}
	return lines, true
}

func isBlockMap(n *yaml.Node) bool {
	return n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle == 0 && len(n.Content) > 0
}

// sameValue compares two keys' values as data (absent, a nil entry, is a
// value of its own): formatting and comments do not count.
func sameValue(a, b *entry) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var va, vb any
	if a.value.Decode(&va) != nil || b.value.Decode(&vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
