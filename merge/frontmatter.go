package merge

import (
	"errors"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillstore/skillstore/internal/skillmd"
	"github.com/skillstore/skillstore/merge/diff3"
)

// SkillMD merges three versions of a SKILL.md. When all three start with a
// YAML frontmatter block that parses as a block mapping, the frontmatter is
// merged key by key and the body line by line (see Text). Text is the
// truth: a key whose lines (quoting, comments, blank lines after it) only
// one side changed takes that side's bytes exactly, so upstream's change of
// formatting alone survives; parsed values only break ties where both sides
// changed a key's bytes (see mergeMapping). A key absent on a side counts as
// a text of its own, so additions and deletions follow the same rule, and
// nested mappings are merged the same way. The key order is ours' unless
// only theirs reordered; a new key goes after the key it follows in its side.
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
			// frontmatter (YAML) is resolved only when the result's
			// frontmatter then parses (if ours' or theirs' does), else it
			// stays git's.
			if all := resolveConflicts(base, ours, theirs, res, opts, nil); len(all.Conflicts) < len(res.Conflicts) && frontmatterHolds(all.Merged, ours, theirs) {
				return all, nil
			}
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

// frontmatterHolds reports whether merged's frontmatter parses as well as
// the sides' do: it parses, or neither ours' nor theirs' does (a side
// without one, or with YAML that does not parse), or merged has none and
// a side has none either (that side deleted it, and the merge kept the
// deletion).
func frontmatterHolds(merged, ours, theirs []byte) bool {
	if _, err := skillmd.Parse(merged); err == nil {
		return true
	}
	if noFrontmatter(merged) && (noFrontmatter(ours) || noFrontmatter(theirs)) {
		return true
	}
	_, eo := skillmd.Parse(ours)
	_, et := skillmd.Parse(theirs)
	return eo != nil && et != nil
}

// noFrontmatter reports whether text does not start with a frontmatter
// fence at all (not one that is unclosed).
func noFrontmatter(text []byte) bool {
	_, err := skillmd.Cut(text)
	return errors.Is(err, skillmd.ErrNoFrontmatter)
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

// text is the bytes of entry e of side s: its key's line to the next key's
// (comments and blank lines after it included); "" for an absent key, which
// is a text of its own.
func (s side) text(e *entry) string {
	if e == nil {
		return "\x00absent"
	}
	return strings.Join(s.fm.lines[e.start:e.end], "")
}

// block is one key of a merged mapping and its lines.
type block struct {
	key   string
	lines []string
}

// mergeMapping merges the three versions of a mapping and returns its lines.
//
// Text is the truth: a key whose bytes (its lines, with their quoting,
// comments and blank lines) only one side changed takes that side's bytes,
// so a change of formatting alone (quotes added, a trailing comma removed)
// is a change like any other. Where both sides changed a key's bytes, the
// key's lines are merged as a text of their own, and when that conflicts
// the parsed values break the tie: the same value on both sides keeps ours'
// text if it holds every word and mark theirs added; a nested block
// mapping both changed is merged key by key. Anything else is a conflict:
// a change of formatting on one side and of value on the other included,
// since either text would undo one of them. The order of
// the keys is ours' unless only theirs reordered them, and the lines before
// the first key (comments) follow the same rule as a key.
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
	// Lines before the first key (comments): one more value, merged as text.
	lead := func(s side, es []entry) []string {
		first := s.end
		if len(es) > 0 {
			first = es[0].start
		}
		return s.fm.lines[s.start:first]
	}
	lb, lo, lt := lead(b, eb), lead(o, eo), lead(t, et)
	var head []string
	switch jb, jo, jt := strings.Join(lb, ""), strings.Join(lo, ""), strings.Join(lt, ""); {
	case jo == jt || jt == jb:
		head = lo
	case jo == jb:
		head = lt
	default:
		return nil, false
	}
	// The order: ours' keys, unless ours kept the base's order and theirs
	// changed it; then theirs' keys lead and ours' new keys are placed.
	pe, oe := eo, et
	if sameOrder(eo, eb) && !sameOrder(et, eb) {
		pe, oe = et, eo
	}
	column := func(es []entry) int {
		if len(es) > 0 {
			return es[0].keyNode.Column
		}
		return -1
	}
	var out []block
	for i := range pe {
		key := pe[i].key
		lines, keep, ok := mergeKey(b, o, t, find(eb, key), find(eo, key), find(et, key))
		if !ok {
			return nil, false
		}
		if keep {
			out = append(out, block{key, lines})
		}
	}
	// Keys only the other side has: added by it, or deleted by the primary.
	for i := range oe {
		key := oe[i].key
		if find(pe, key) != nil {
			continue
		}
		lines, keep, ok := mergeKey(b, o, t, find(eb, key), find(eo, key), find(et, key))
		if !ok {
			return nil, false
		}
		if !keep {
			continue
		}
		if c := column(pe); c >= 0 && oe[i].keyNode.Column != c {
			return nil, false
		}
		// Insert after the nearest key before it in its side that we have.
		at := 0
	search:
		for j := i - 1; j >= 0; j-- {
			for k := range out {
				if out[k].key == oe[j].key {
					at = k + 1
					break search
				}
			}
		}
		out = slices.Insert(out, at, block{key, lines})
	}
	lines := append([]string(nil), head...)
	for _, bl := range out {
		lines = append(lines, bl.lines...)
	}
	return lines, true
}

// mergeKey merges one key of a mapping whose versions are eb, eo and et (nil
// where absent): its lines, whether it stays (false: deleted), false ok on
// a conflict. See mergeMapping for the rule.
func mergeKey(b, o, t side, eb, eo, et *entry) (lines []string, keep, ok bool) {
	tb, to, tt := b.text(eb), o.text(eo), t.text(et)
	take := func(s side, e *entry) ([]string, bool, bool) {
		if e == nil {
			return nil, false, true
		}
		return s.fm.lines[e.start:e.end], true, true
	}
	switch {
	case to == tt, tt == tb: // the same bytes on both sides, or only ours changed them
		return take(o, eo)
	case to == tb: // only theirs changed the key's bytes
		if et != nil && eo != nil && et.keyNode.Column != eo.keyNode.Column {
			return nil, false, false
		}
		return take(t, et)
	}
	// Both changed the bytes: a line merge of the key's lines alone, when
	// it is clean, keeps both; otherwise equal values break the tie, as long
	// as ours' text keeps every word and mark theirs added.
	spanBase := tb
	if eb == nil {
		spanBase = "" // both added the key
	}
	if eo != nil && et != nil {
		if lines, ok := mergeSpans(spanBase, to, tt); ok {
			return lines, true, true
		}
	}
	switch {
	case sameValue(eo, et) && keepsTokens(to, tt, spanBase): // changed to the same value
		return take(o, eo)
	case eb != nil && eo != nil && et != nil && isBlockMap(eo.value) && isBlockMap(eb.value) && isBlockMap(et.value):
		nested, ok := mergeMapping(
			side{b.fm, eb.value, eb.value.Line - 1, eb.end},
			side{o.fm, eo.value, eo.value.Line - 1, eo.end},
			side{t.fm, et.value, et.value.Line - 1, et.end})
		if !ok {
			return nil, false, false
		}
		// The key's own line (and any comment before the nested keys),
		// merged as text like the rest.
		hb := strings.Join(b.fm.lines[eb.start:eb.value.Line-1], "")
		ho := o.fm.lines[eo.start : eo.value.Line-1]
		ht := t.fm.lines[et.start : et.value.Line-1]
		head := ho
		if strings.Join(ho, "") == hb {
			head = ht
		} else if j := strings.Join(ht, ""); j != hb && j != strings.Join(ho, "") {
			return nil, false, false
		}
		return append(append([]string(nil), head...), nested...), true, true
	}
	return nil, false, false
}

// mergeSpans merges the lines of one key as three texts, line by line;
// false unless clean.
func mergeSpans(base, ours, theirs string) ([]string, bool) {
	r, err := diff3.Merge([]byte(base), []byte(ours), []byte(theirs), diff3.Options{})
	if err != nil || !r.Clean() || r.Coarse {
		return nil, false
	}
	return splitLines(string(r.Merged)), true
}

// keepsTokens reports whether text holds every word and punctuation mark
// (the tokens of tokenize but spaces and line ends) that side has more
// often than base: taking text drops nothing side added.
func keepsTokens(text, side, base string) bool {
	n := map[string]int{}
	count := func(s string, d int) {
		for _, tok := range tokenize(s) {
			if !isBlank(tok) && !isLineEnd(tok) {
				n[tok] += d
			}
		}
	}
	count(side, 1)
	count(base, -1)
	count(text, -1)
	for _, c := range n {
		if c > 0 {
			return false
		}
	}
	return true
}

// sameOrder reports whether two versions of a mapping list their common
// keys in the same order.
func sameOrder(a, b []entry) bool {
	in := func(es []entry, key string) bool {
		return slices.ContainsFunc(es, func(e entry) bool { return e.key == key })
	}
	var ka, kb []string
	for _, e := range a {
		if in(b, e.key) {
			ka = append(ka, e.key)
		}
	}
	for _, e := range b {
		if in(a, e.key) {
			kb = append(kb, e.key)
		}
	}
	return slices.Equal(ka, kb)
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
