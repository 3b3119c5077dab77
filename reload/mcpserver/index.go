package mcpserver

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// Index ranks skills for a query over their names, descriptions and
// bodies. It is built from a list of skills and reuses, for a skill whose
// version did not change, the terms it read before, so rebuilding after a
// sync costs reading the changed skills only.
//
// Scoring is BM25 over three fields with weights (a word of the name
// counts most, then the description, then the body), plus a bonus when the
// query names a skill exactly. A query word of three letters or more also
// matches the words it begins (deplo finds deploy), at half weight.
//
// Terms are interned, and both what a skill holds (its terms with their
// counts) and the postings (the skills holding each term) are varint runs
// in byte slices: a few bytes per distinct word of each skill, and nothing
// for the garbage collector to walk.
type Index struct {
	docs  []indexDoc
	dict  map[string]uint32 // term -> number, while terms are added (nil after Build)
	words []string          // number -> term
	post  []byte            // postings of term t: post[postAt[t]:postAt[t+1]]
	// postAt has one more entry than the terms known at the last Build;
	// df is each term's number of skills.
	postAt []uint32
	df     []uint32
	vocab  []uint32 // term numbers in the order of their text: prefix lookups
	avg    [fields]float64
	cache  map[docKey]*docTerms // terms of the versions served, by name and tree
	slot   []int32              // by term number: its place+1 in the skill being read (scratch)
}

const (
	fieldName = iota
	fieldDesc
	fieldBody
	fields
)

// Field weights, and BM25's usual k1 and b.
var fieldWeight = [fields]float64{4, 2, 0.5}

const (
	bm25K1 = 1.2
	bm25B  = 0.75
	// maxBodyTerms bounds the words of one body that are indexed, so the
	// index's memory grows with the number of skills, not their length.
	maxBodyTerms = 4000
	// maxQueryWords bounds the words of a query that are looked up.
	maxQueryWords = 32
)

// Counts of a term in a field saturate at these (the body's at
// maxBodyTerms, below its bound), so that the three fit one varint.
const (
	maxTFName = 1<<8 - 1
	maxTFDesc = 1<<10 - 1
	maxTFBody = 1<<14 - 1
)

// docKey names what a skill's terms are read from: its name and the tree
// of its version (the description and body are in the tree's SKILL.md).
type docKey struct {
	name string
	tree skillfs.ID
}

func keyOf(s Skill) docKey { return docKey{name: s.Name, tree: s.Tree} }

type indexDoc struct {
	skill *Skill // into the list built from
	terms *docTerms
}

// docTerms are the terms of one skill version, by number, with their
// counts per field (see encodeTerms), and each field's length in words.
type docTerms struct {
	terms  []byte
	length [fields]int32
}

// termCount is one term of a skill with its count in each field.
type termCount struct {
	term uint32
	tf   [fields]uint16
}

// packTF packs a term's three counts into one number, the body's low:
// a word only the body holds, a few times, is one byte.
func packTF(tf [fields]uint16) uint64 {
	return uint64(min(tf[fieldBody], maxTFBody)) | uint64(min(tf[fieldDesc], maxTFDesc))<<14 | uint64(min(tf[fieldName], maxTFName))<<24
}

func unpackTF(v uint64) [fields]uint16 {
	return [fields]uint16{fieldName: uint16(v >> 24 & maxTFName), fieldDesc: uint16(v >> 14 & maxTFDesc), fieldBody: uint16(v & maxTFBody)}
}

// encodeTerms writes terms (sorted by number) as the gap from the
// previous term's number and the packed counts.
func encodeTerms(terms []termCount) []byte {
	var b []byte
	prev := uint32(0)
	for _, tc := range terms {
		b = binary.AppendUvarint(b, uint64(tc.term-prev))
		b = binary.AppendUvarint(b, packTF(tc.tf))
		prev = tc.term
	}
	return slices.Clip(b)
}

// nextPair reads the first (gap, packed frequencies) pair of a run that
// encodeTerms or the postings wrote: two varints; ok is false where b
// does not start with a whole pair.
func nextPair(b []byte) (gap, packed uint64, rest []byte, ok bool) {
	gap, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, 0, nil, false
	}
	packed, m := binary.Uvarint(b[n:])
	if m <= 0 {
		return 0, 0, nil, false
	}
	return gap, packed, b[n+m:], true
}

// eachTerm calls fn with each term of dt, in the order of their numbers.
func (dt *docTerms) eachTerm(fn func(term uint32, tf [fields]uint16)) {
	b, term := dt.terms, uint32(0)
	for len(b) > 0 {
		gap, tf, rest, ok := nextPair(b)
		if !ok {
			return
		}
		b = rest
		term += uint32(gap)
		fn(term, unpackTF(tf))
	}
}

// Result is one skill a search found.
type Result struct {
	Skill
	Score float64 `json:"score"`
}

// NewIndex returns an empty index.
func NewIndex() *Index { return &Index{cache: map[docKey]*docTerms{}} }

// adopt takes the words and versions' terms of an index file into an
// empty index, numbered as the file numbers them; false (nothing taken)
// when the index holds words already.
func (ix *Index) adopt(d *diskIndex) bool {
	if len(ix.words) > 0 || len(ix.cache) > 0 {
		return false
	}
	ix.words = d.words
	ix.cache = d.docs
	return true
}

// Needs returns the skills whose bodies the index has not read yet.
func (ix *Index) Needs(skills []Skill) []Skill {
	var out []Skill
	for _, s := range skills {
		if ix.cache[keyOf(s)] == nil {
			out = append(out, s)
		}
	}
	return out
}

// Build makes the index hold exactly skills; bodies holds the SKILL.md text
// of the versions it has not seen (by key; see Needs). Terms of versions
// no longer listed are dropped.
func (ix *Index) Build(skills []Skill, bodies map[docKey]string) {
	ix.docs = slices.Grow(ix.docs[:0], len(skills))[:len(skills)]
	kept, added := 0, false
	for i := range skills {
		s := &skills[i]
		k := keyOf(*s)
		dt := ix.cache[k]
		if dt == nil {
			dt, added = ix.newDocTerms(*s, bodies[k]), true
		} else {
			kept++
		}
		ix.docs[i] = indexDoc{skill: s, terms: dt}
	}
	ix.docs = slices.Clip(ix.docs)
	// The cache keeps the terms of the listed versions only. When every
	// version it holds is still listed (a start from an index file, a
	// sync that added skills) it is kept and the new ones added: no
	// second map of every skill.
	// Its keys' names are copies, so the cache never keeps a list's
	// strings (one string for all its skills, see StoreCatalog) once the
	// list is gone: one string for all of a new map's, one each added.
	if kept == len(ix.cache) {
		if added {
			for _, d := range ix.docs {
				if k := keyOf(*d.skill); ix.cache[k] == nil {
					k.name = strings.Clone(k.name)
					ix.cache[k] = d.terms
				}
			}
		}
	} else {
		size := 0
		for _, s := range skills {
			size += len(s.Name)
		}
		var b strings.Builder
		b.Grow(size)
		for _, s := range skills {
			b.WriteString(s.Name)
		}
		names, at := b.String(), 0
		ix.cache = make(map[docKey]*docTerms, len(skills))
		for _, d := range ix.docs {
			k := keyOf(*d.skill)
			k.name, at = names[at:at+len(k.name)], at+len(k.name)
			ix.cache[k] = d.terms
		}
	}
	df := make([]uint32, len(ix.words))
	size := make([]uint32, len(ix.words)) // bytes of each term's postings
	var total [fields]int64
	last := make([]int32, len(ix.words)) // the last skill of each term's postings, +1
	for i, d := range ix.docs {
		d.terms.eachTerm(func(t uint32, tf [fields]uint16) {
			df[t]++
			size[t] += uint32(uvarintLen(uint64(int32(i)+1-last[t])) + uvarintLen(packTF(tf)))
			last[t] = int32(i) + 1
		})
		for f := range fields {
			total[f] += int64(d.terms.length[f])
		}
	}
	ix.postAt = make([]uint32, len(ix.words)+1)
	for t, n := range size {
		ix.postAt[t+1] = ix.postAt[t] + n
	}
	ix.post = make([]byte, ix.postAt[len(ix.words)])
	at := slices.Clone(ix.postAt[:len(ix.words)])
	clear(last)
	for i, d := range ix.docs {
		d.terms.eachTerm(func(t uint32, tf [fields]uint16) {
			n := binary.PutUvarint(ix.post[at[t]:], uint64(int32(i)+1-last[t]))
			n += binary.PutUvarint(ix.post[at[t]+uint32(n):], packTF(tf))
			at[t] += uint32(n)
			last[t] = int32(i) + 1
		})
	}
	ix.df = df
	ix.vocab = ix.vocab[:0]
	for t, n := range df {
		if n > 0 {
			ix.vocab = append(ix.vocab, uint32(t))
		}
	}
	slices.SortFunc(ix.vocab, func(a, b uint32) int { return strings.Compare(ix.words[a], ix.words[b]) })
	ix.dict = nil
	for f := range fields {
		ix.avg[f] = 1
		if len(ix.docs) > 0 && total[f] > 0 {
			ix.avg[f] = float64(total[f]) / float64(len(ix.docs))
		}
	}
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// term returns w's number, adding it to the dictionary. The dictionary
// is made when a skill's terms are first read, and dropped by Build: the
// search finds words in the sorted vocabulary.
func (ix *Index) term(w []byte) uint32 {
	if ix.dict == nil {
		ix.dict = make(map[string]uint32, len(ix.words))
		for t, w := range ix.words {
			ix.dict[w] = uint32(t)
		}
	}
	if t, ok := ix.dict[string(w)]; ok {
		return t
	}
	t := uint32(len(ix.words))
	s := string(w)
	ix.dict[s] = t
	ix.words = append(ix.words, s)
	return t
}

func (ix *Index) newDocTerms(s Skill, body string) *docTerms {
	dt := &docTerms{}
	var terms []termCount
	texts := [fields]string{s.Name, s.Description, body}
	for f, text := range texts {
		n := 0
		eachWord(text, func(w []byte) bool {
			if f == fieldBody && n >= maxBodyTerms {
				return false
			}
			n++
			t := ix.term(w)
			for int(t) >= len(ix.slot) {
				ix.slot = append(ix.slot, 0)
			}
			at := ix.slot[t]
			if at == 0 {
				terms = append(terms, termCount{term: t})
				at = int32(len(terms))
				ix.slot[t] = at
			}
			if tc := &terms[at-1]; tc.tf[f] < math.MaxUint16 {
				tc.tf[f]++
			}
			return true
		})
		dt.length[f] = int32(n)
	}
	for _, tc := range terms {
		ix.slot[tc.term] = 0
	}
	slices.SortFunc(terms, func(a, b termCount) int { return cmp.Compare(a.term, b.term) })
	dt.terms = encodeTerms(terms)
	return dt
}

// eachWord calls fn with each lower-case word of text (runs of letters
// and digits: a qualified name document-skills:docx gives document,
// skills, docx) until fn returns false. The slice is reused.
func eachWord(text string, fn func([]byte) bool) {
	var w []byte
	flush := func() bool {
		if len(w) == 0 {
			return true
		}
		ok := fn(w)
		w = w[:0]
		return ok
	}
	for _, r := range text {
		switch {
		case r < utf8.RuneSelf && ('a' <= r && r <= 'z' || '0' <= r && r <= '9'):
			w = append(w, byte(r))
		case r < utf8.RuneSelf && 'A' <= r && r <= 'Z':
			w = append(w, byte(r+'a'-'A'))
		case r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			w = utf8.AppendRune(w, unicode.ToLower(r))
		default:
			if !flush() {
				return
			}
		}
	}
	flush()
}

// Words splits text into the lower-case words the index knows.
func Words(text string) []string {
	var out []string
	eachWord(text, func(w []byte) bool { out = append(out, string(w)); return true })
	return out
}

// Search returns at most limit skills matching query, best first (ties by
// name). A skill matches when any word of the query matches.
func (ix *Index) Search(query string, limit int) []Result {
	words := Words(query)
	if len(words) > maxQueryWords {
		words = words[:maxQueryWords]
	}
	words = slices.Compact(slices.Sorted(slices.Values(words)))
	// Scores are dense (a slot per skill) and the skills touched listed,
	// so a word every skill holds costs one pass over its postings; the
	// best limit are then kept in a bounded heap, not a sort of all.
	sc := scoring{scores: make([]float64, len(ix.docs)), seen: make([]bool, len(ix.docs))}
	n := float64(len(ix.docs))
	for _, w := range words {
		i := sort.Search(len(ix.vocab), func(i int) bool { return ix.words[ix.vocab[i]] >= w })
		if i < len(ix.vocab) && ix.words[ix.vocab[i]] == w {
			ix.score(&sc, ix.vocab[i], 1, n)
		}
		if len(w) >= 3 {
			for ; i < len(ix.vocab) && strings.HasPrefix(ix.words[ix.vocab[i]], w); i++ {
				if ix.words[ix.vocab[i]] != w {
					ix.score(&sc, ix.vocab[i], 0.5, n)
				}
			}
		}
	}
	q := strings.ToLower(strings.TrimSpace(query))
	best := topResults{limit: limit}
	for _, doc := range sc.touched {
		d := ix.docs[doc].skill
		score := sc.scores[doc]
		if name := strings.ToLower(d.Name); name == q || strings.HasSuffix(name, ":"+q) {
			score += 10
		}
		best.offer(Result{Skill: *d, Score: math.Round(score*1000) / 1000})
	}
	return best.sorted()
}

// scoring is a search's running scores: one per skill, and the skills
// that have one.
type scoring struct {
	scores  []float64
	seen    []bool
	touched []int32
}

func (s *scoring) add(doc int32, v float64) {
	if !s.seen[doc] {
		s.seen[doc] = true
		s.touched = append(s.touched, doc)
	}
	s.scores[doc] += v
}

// topResults keeps the limit best results offered (a min-heap on the
// order results are listed in: score, then name).
type topResults struct {
	limit int
	heap  []Result
}

// before reports whether a is listed before b.
func before(a, b Result) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Name < b.Name
}

func (t *topResults) offer(r Result) {
	if t.limit <= 0 {
		return
	}
	h := t.heap
	if len(h) < t.limit {
		h = append(h, r)
		for i := len(h) - 1; i > 0; { // up: the worst stays at the root
			p := (i - 1) / 2
			if !before(h[p], h[i]) {
				break
			}
			h[p], h[i] = h[i], h[p]
			i = p
		}
		t.heap = h
		return
	}
	if !before(r, h[0]) {
		return
	}
	h[0] = r
	for i := 0; ; { // down
		worst, l, rt := i, 2*i+1, 2*i+2
		if l < len(h) && before(h[worst], h[l]) {
			worst = l
		}
		if rt < len(h) && before(h[worst], h[rt]) {
			worst = rt
		}
		if worst == i {
			break
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}

func (t *topResults) sorted() []Result {
	out := slices.Clone(t.heap)
	slices.SortFunc(out, func(a, b Result) int {
		if before(a, b) {
			return -1
		}
		if before(b, a) {
			return 1
		}
		return 0
	})
	if out == nil {
		out = []Result{}
	}
	return out
}

// score adds term t's BM25 contribution, times weight, to each skill
// holding it.
func (ix *Index) score(scores *scoring, t uint32, weight, n float64) {
	if int(t) >= len(ix.df) || ix.df[t] == 0 {
		return // a term of versions no longer listed, or added since Build
	}
	df := float64(ix.df[t])
	idf := math.Log(1 + (n-df+0.5)/(df+0.5))
	b, doc := ix.post[ix.postAt[t]:ix.postAt[t+1]], int32(-1)
	for len(b) > 0 {
		gap, packed, rest, ok := nextPair(b)
		if !ok {
			break
		}
		b = rest
		doc += int32(gap)
		tfs := unpackTF(packed)
		d := ix.docs[doc].terms
		sc := 0.0
		for f := range fields {
			if tfs[f] == 0 {
				continue
			}
			tf := float64(tfs[f])
			norm := bm25K1 * (1 - bm25B + bm25B*float64(d.length[f])/ix.avg[f])
			sc += fieldWeight[f] * tf * (bm25K1 + 1) / (tf + norm)
		}
		scores.add(doc, weight*idf*sc)
	}
}
