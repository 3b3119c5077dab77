package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
)

// The index file keeps, between runs, what the server learnt by reading
// the published set: for each version's tree (by tree id) its files with
// their blob ids, SHA-256 digests, sizes and text-ness, its SKILL.md's
// frontmatter, and its search terms under each name it is served by.
// Every fact is keyed by a git object id, whose content never changes,
// so no fact can go stale: a server that starts on a store it served
// before lists the refs, looks up the trees they lead to, and reads from
// the store only what the file lacks (a new version's tree, and its
// blobs that no version known has: digests are found by blob id). The
// file holds what the last server served, nothing more (versions no
// longer published are dropped when it is written), and is written
// atomically (internal/atomicfile) when the server read what it lacked.
//
// The file is derived data in a folder of the store's: it is read as if
// anyone could have written it. A file that is truncated, fails its
// checksum, has another format or holds anything out of bounds (a count
// beyond what its bytes could hold, a path that is not a clean relative
// one, a size beyond any blob, a term number beyond its words, a
// frontmatter that is not a JSON object) is ignored whole and rebuilt;
// none of its paths ever reaches a disk (they only name files read from
// the store by blob id), and a digest that the bytes read from the store
// do not match makes the server drop the file and read the store again.
//
// Layout: the magic line, the format number, the words (a count, then
// each), the versions (a count, then each: tree id, files, frontmatter,
// terms per name), numbers as unsigned varints, strings and byte runs
// length-first, then the CRC-32C of everything before it. It is read as a
// stream, straight into what the server keeps.

// IndexFileName is the index file's name in the store's own folder.
const IndexFileName = "mcp-index"

const (
	indexMagic  = "skillstore mcp index\n"
	indexFormat = 1
	// maxIndexFile bounds what is read: far beyond a store of 100,000
	// skills.
	maxIndexFile = 1 << 30
	maxBlobSize  = 1 << 40
	maxTreeFiles = 1 << 20
)

// castagnoli is made at first use: building the table (with SSE4.2, its
// folding constants) costs every command, not just mcp, 0.15 ms at start.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// diskIndex is an index file's content. Its versions are one slice in
// the file's order (by tree id), found by binary search: no map and no
// allocation per version, which at 50,000 skills is what the file costs
// in memory after the terms.
type diskIndex struct {
	words    []string
	trees    []skillfs.ID         // ascending
	versions []extVersion         // versions[i] is trees[i]'s
	docs     map[docKey]*docTerms // terms numbered as words
	ndocs    int                  // len(docs) as read
}

// version returns the version of tree the file holds, nil if none (or d
// is nil).
func (d *diskIndex) version(tree skillfs.ID) *extVersion {
	if d == nil {
		return nil
	}
	i, ok := slices.BinarySearchFunc(d.trees, tree, compareID)
	if !ok {
		return nil
	}
	return &d.versions[i]
}

// errIndexFile is wrapped by every reason an index file is not used.
var errIndexFile = errors.New("index file not usable")

// readIndexFile reads the index file at p; (nil, nil) when there is none.
// The file stays open while its versions are served (they are read from
// it when asked for).
func readIndexFile(p string) (*diskIndex, error) {
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = fmt.Errorf("%s: %w: not a regular file", p, errIndexFile)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	d, err := readIndex(f, info.Size(), &indexFile{f: f})
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return d, nil
}

// readIndex reads an index file of size bytes from in, which file (if
// set) reads again.
func readIndex(in io.Reader, size int64, file *indexFile) (*diskIndex, error) {
	if size > maxIndexFile || size < int64(len(indexMagic))+5 {
		return nil, fmt.Errorf("%w: %d bytes, not %d to %d", errIndexFile, size, len(indexMagic)+5, maxIndexFile)
	}
	r := &reader{crc: crc32.New(castagnoli()), left: size - 4, total: size - 4}
	r.in = bufio.NewReaderSize(io.TeeReader(io.LimitReader(in, r.left), r.crc), 1<<16)
	d, err := decodeIndex(r, file)
	if err != nil {
		return nil, err
	}
	var sum [4]byte
	if _, err = io.ReadFull(in, sum[:]); err != nil || binary.LittleEndian.Uint32(sum[:]) != r.crc.Sum32() {
		return nil, fmt.Errorf("%w: checksum mismatch (truncated or damaged)", errIndexFile)
	}
	return d, nil
}

// reader decodes an index file; the first fault sticks, and every read
// after it yields zero values. left is what remains before the checksum.
type reader struct {
	in          *bufio.Reader
	crc         hash.Hash32
	left, total int64
	err         error
	// tmp takes what goes into a value of the caller's (an id, a
	// digest), so the value does not escape to the heap; path and text
	// are scratch buffers of decodeVersion.
	tmp        [32]byte
	path, text []byte
	good       map[string]bool // paths found good, a few thousand at most
}

// goodPath is goodPath of p, remembered: skills hold the same paths
// (SKILL.md, scripts/...), and a check makes the path a string.
func (r *reader) goodPath(p []byte) bool {
	if r.good[string(p)] {
		return true
	}
	s := string(p)
	if !goodPath(s) {
		return false
	}
	if r.good == nil {
		r.good = map[string]bool{}
	}
	if len(r.good) < 4096 {
		r.good[s] = true
	}
	return true
}

// pos is the offset of the next byte in the file.
func (r *reader) pos() int64 { return r.total - r.left }

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", errIndexFile, fmt.Sprintf(format, args...))
	}
	r.left = 0
}

func (r *reader) uvarint(limit uint64, what string) uint64 { return r.number(limit, what, "") }

// number reads a varint, naming it what+suffix if it is out of bounds
// (made only then: a read costs no allocation).
func (r *reader) number(limit uint64, what, suffix string) uint64 {
	if r.err != nil {
		return 0
	}
	v, err := binary.ReadUvarint(r.in)
	if err != nil {
		r.fail("%s%s: truncated", what, suffix)
		return 0
	}
	r.left -= int64(uvarintLen(v))
	if r.left < 0 || v > limit {
		r.fail("%s%s %d is over %d", what, suffix, v, limit)
		return 0
	}
	return v
}

// count reads a number of records, each at least min bytes long, so that
// no count can make the reader allocate beyond the file's size.
func (r *reader) count(min int, what string) int {
	return int(r.uvarint(uint64(r.left/int64(min)), what))
}

func (r *reader) full(b []byte) {
	if r.err != nil {
		return
	}
	if int64(len(b)) > r.left {
		r.fail("truncated")
		return
	}
	if _, err := io.ReadFull(r.in, b); err != nil {
		r.fail("truncated")
		return
	}
	r.left -= int64(len(b))
}

func (r *reader) bytes(what string) []byte {
	n := r.number(uint64(r.left), what, " length")
	if r.err != nil || n == 0 {
		return nil
	}
	b := make([]byte, n)
	r.full(b)
	return b
}

func (r *reader) str(what string) string { return string(r.bytes(what)) }

// bytesInto reads a byte run into buf, reused: what is only checked is
// read without an allocation of its own.
func (r *reader) bytesInto(buf []byte, what string) []byte {
	n := r.number(uint64(r.left), what, " length")
	if r.err != nil {
		return buf[:0]
	}
	buf = slices.Grow(buf[:0], int(n))[:n]
	r.full(buf)
	return buf
}

// small reads len(b) bytes (at most len(r.tmp)) into b.
func (r *reader) small(b []byte) {
	t := r.tmp[:len(b)]
	r.full(t)
	copy(b, t)
}

func (r *reader) id() skillfs.ID {
	var id skillfs.ID
	r.small(id[:])
	return id
}

func (r *reader) byte(limit byte, what string) byte {
	var b [1]byte
	r.small(b[:])
	if b[0] > limit {
		r.fail("%s %d is over %d", what, b[0], limit)
		return 0
	}
	return b[0]
}

// goodPath reports whether p is a path a skill's tree can hold: the
// store's own rule (skillfs.CheckPath), which every tree it reads passes.
func goodPath(p string) bool { return skillfs.CheckPath(p) == nil }

// File flags, and what a version's SKILL.md is.
const (
	flagLink = 1 << iota
	flagText

	mdNone    = 0
	mdRead    = 1
	mdRefused = 2
)

// decodeVersion reads one version's files and frontmatter, checking
// them; keep false keeps only their facts (v is nil), reading paths and
// frontmatter into scratch buffers: at start the server keeps no more of
// a version, and decoding it whole would make as much garbage as the
// file's size.
func decodeVersion(r *reader, keep bool, names *arena) (v *extVersion, facts versionFacts, fmName span) {
	n := r.count(len(skillfs.ID{})+32+4, "files")
	if n > maxTreeFiles {
		r.fail("a tree of %d files", n)
		return nil, facts, fmName
	}
	if keep {
		v = &extVersion{files: make([]extFile, n)}
	}
	facts.files = int32(n)
	prev, p := r.path[:0], r.text[:0] // the paths, when not kept
	defer func() { r.path, r.text = prev, p }()
	hasMD := false
	for i := range n {
		var f extFile
		p = r.bytesInto(p, "path")
		if r.err == nil && (!r.goodPath(p) || i > 0 && string(prev) >= string(p)) {
			r.fail("path %q: not a clean relative path in order", p)
		}
		isMD := string(p) == skillmd.FileName
		f.ID = r.id()
		flags := r.byte(flagLink|flagText, "file flags")
		f.Link, f.text = flags&flagLink != 0, flags&flagText != 0
		r.small(f.digest[:])
		f.size = int64(r.uvarint(maxBlobSize, "file size"))
		if r.err != nil {
			return v, facts, fmName
		}
		facts.bytes += f.size
		hasMD = hasMD || isMD && !f.Link
		if keep {
			f.Path = skillmd.FileName
			if !isMD {
				f.Path = string(p)
			}
			v.files[i] = f
		}
		prev, p = p, prev
	}
	switch kind := r.byte(mdRefused, "frontmatter kind"); kind {
	case mdRead, mdRefused:
		md := mdInfo{}
		facts.hasMD = true
		if kind == mdRead {
			var fm []byte
			if keep {
				fm = r.bytes("frontmatter")
				md.fm.JSON = fm
			} else {
				fm = r.bytesInto(p, "frontmatter")
			}
			if r.err == nil && (len(fm) == 0 || fm[0] != '{' || !json.Valid(fm)) {
				r.fail("a frontmatter that is not a JSON object")
			}
			if keep {
				md.fm.Name, md.fm.Description = r.str("name"), r.str("description")
				facts.fmName, facts.hasDesc = md.fm.Name, strings.TrimSpace(md.fm.Description) != ""
			} else {
				p = r.bytesInto(p, "name")
				fmName = names.add(p)
				facts.hasDesc = len(bytes.TrimSpace(r.bytesInto(p, "description"))) > 0
			}
		} else if md.fmErr = errors.New(r.str("frontmatter error")); md.fmErr.Error() == "" {
			r.fail("a frontmatter refused for no reason")
		}
		facts.fmErr = md.fmErr
		if !hasMD {
			r.fail("a frontmatter and no SKILL.md")
		}
		if keep {
			kept := md
			v.md = &kept
		}
	}
	return v, facts, fmName
}

// arena gathers strings to be made one string.
type arena struct{ buf []byte }

// span is where a string is in an arena's.
type span struct{ off, n int32 }

func (a *arena) add(b []byte) span {
	at := span{off: int32(len(a.buf)), n: int32(len(b))}
	a.buf = append(a.buf, b...)
	return at
}

func (s span) of(all string) string { return all[s.off : s.off+s.n] }

// indexFile is an index file the server read, kept open: the versions
// it holds are read from it again when asked for. The open file is the
// one read, whatever replaces its name meanwhile.
type indexFile struct {
	f *os.File
}

// indexRecord is where one version's files and frontmatter are in an
// index file (n is 0 for a version not in one: a record is never empty).
type indexRecord struct {
	file   *indexFile
	off, n int64
}

// read decodes the record again, checking it as at first.
func (rec *indexRecord) read() (*extVersion, error) {
	buf := make([]byte, rec.n)
	if _, err := rec.file.f.ReadAt(buf, rec.off); err != nil {
		return nil, fmt.Errorf("read the index file: %w", err)
	}
	r := &reader{in: bufio.NewReaderSize(bytes.NewReader(buf), 4096), left: rec.n, total: rec.n}
	v, _, _ := decodeVersion(r, true, nil)
	if r.err == nil && r.left != 0 {
		r.fail("a record longer than its version")
	}
	if r.err != nil {
		return nil, fmt.Errorf("the index file changed under the server: %w", r.err)
	}
	return v, nil
}

func decodeIndex(r *reader, file *indexFile) (*diskIndex, error) {
	magic := make([]byte, len(indexMagic))
	if r.full(magic); r.err != nil || string(magic) != indexMagic {
		return nil, fmt.Errorf("%w: not an index file", errIndexFile)
	}
	if v := r.uvarint(1<<32, "format"); r.err == nil && v != indexFormat {
		return nil, fmt.Errorf("%w: format %d, not %d", errIndexFile, v, indexFormat)
	}
	d := &diskIndex{}
	// The strings kept (words, names, frontmatter names) are read into
	// one run and sliced from one string made at the end, as the terms
	// are slices of a few large runs and the docTerms of one slice: a
	// few allocations, not several per version, and none of them small
	// ones left among the decode's garbage (which would keep its spans).
	// About what the strings of a file of n versions take: one buffer,
	// not its doublings.
	strs := arena{buf: make([]byte, 0, r.left/16)}
	wordAt := make([]span, r.count(2, "words"))
	var buf []byte
	for i := range wordAt {
		buf = r.bytesInto(buf, "word")
		if r.err == nil && len(buf) == 0 {
			r.fail("word %d is empty or repeated", i)
		}
		if r.err != nil {
			break
		}
		wordAt[i] = strs.add(buf)
	}

	n := r.count(len(skillfs.ID{})+3, "versions")
	d.trees = make([]skillfs.ID, 0, n)
	d.versions = make([]extVersion, 0, n)
	fmNameAt := make([]span, 0, n)
	type pendingDoc struct {
		name span
		tree int32 // into d.trees
		dt   *docTerms
	}
	docs := make([]pendingDoc, 0, n)
	var dts []docTerms
	var slab []byte
	for range n {
		tree := r.id()
		if k := len(d.trees); r.err == nil && k > 0 && compareID(d.trees[k-1], tree) >= 0 {
			r.fail("versions out of order")
		}
		at := r.pos()
		_, facts, fmName := decodeVersion(r, false, &strs)
		if r.err != nil {
			break
		}
		// Kept: what refusal needs, and where to read the rest again.
		d.trees = append(d.trees, tree)
		d.versions = append(d.versions, extVersion{facts: facts, rec: indexRecord{file: file, off: at, n: r.pos() - at}})
		fmNameAt = append(fmNameAt, fmName)
		for range r.count(5, "names") {
			buf = r.bytesInto(buf, "name")
			if len(dts) == cap(dts) {
				dts = make([]docTerms, 0, max(n-len(d.trees)+1, 64))
			}
			dts = append(dts, docTerms{})
			dt := &dts[len(dts)-1]
			docs = append(docs, pendingDoc{name: strs.add(buf), tree: int32(len(d.trees) - 1), dt: dt})
			for f := range fields {
				dt.length[f] = int32(r.uvarint(1<<31-1, "field length"))
			}
			m := int(r.uvarint(uint64(r.left), "terms length"))
			if r.err != nil {
				break
			}
			if m > cap(slab)-len(slab) {
				slab = make([]byte, 0, max(m, 1<<20))
			}
			dt.terms = slab[len(slab) : len(slab)+m : len(slab)+m]
			slab = slab[:len(slab)+m]
			r.full(dt.terms)
			if r.err == nil && !validTerms(dt.terms, len(wordAt)) {
				r.fail("terms of %s out of bounds", buf)
			}
		}
		if r.err != nil {
			break
		}
	}
	if r.err == nil && r.left != 0 {
		r.fail("%d bytes after the last version", r.left)
	}
	if r.err != nil {
		return nil, r.err
	}
	all := string(strs.buf)
	strs.buf = nil
	d.words = make([]string, len(wordAt))
	seen := make(map[string]bool, len(d.words))
	for i, at := range wordAt {
		w := at.of(all)
		if seen[w] {
			return nil, fmt.Errorf("%w: word %d is empty or repeated", errIndexFile, i)
		}
		seen[w] = true
		d.words[i] = w
	}
	for i, at := range fmNameAt {
		d.versions[i].facts.fmName = at.of(all)
	}
	d.docs = make(map[docKey]*docTerms, len(docs))
	for _, pd := range docs {
		d.docs[docKey{name: pd.name.of(all), tree: d.trees[pd.tree]}] = pd.dt
	}
	d.ndocs = len(d.docs)
	if r.err == nil && r.left != 0 {
		r.fail("%d bytes after the last version", r.left)
	}
	if r.err != nil {
		return nil, r.err
	}
	return d, nil
}

// validTerms reports whether b is a run of terms (see encodeTerms) whose
// numbers rise and stay below words.
func validTerms(b []byte, words int) bool {
	term := -1
	for len(b) > 0 {
		gap, tf, rest, ok := nextPair(b)
		if !ok || (term >= 0 && gap == 0) || gap > uint64(words) || tf>>32 != 0 {
			return false
		}
		b = rest
		if term < 0 {
			term = 0
		}
		term += int(gap)
		if term >= words {
			return false
		}
	}
	return true
}

// indexSnapshot is what a server serves, taken under its lock, to be
// written as an index file.
type indexSnapshot struct {
	versions map[skillfs.ID]*extVersion
	docs     map[docKey]*docTerms
	words    []string
	seq      uint64
}

// encode renders the snapshot as an index file. Words no version uses are
// left out and the others renumbered in their order, so each version's
// terms keep their order.
func (sn *indexSnapshot) encode() ([]byte, error) {
	used := make([]bool, len(sn.words))
	names := map[skillfs.ID][]docKey{}
	for k, dt := range sn.docs {
		if sn.versions[k.tree] == nil {
			continue
		}
		names[k.tree] = append(names[k.tree], k)
		dt.eachTerm(func(t uint32, _ [fields]uint16) { used[t] = true })
	}
	renum := make([]uint32, len(sn.words))
	// About what a version of three files takes: one buffer, not its
	// doublings.
	b := append(make([]byte, 0, 64<<10+600*len(sn.versions)), indexMagic...)
	b = binary.AppendUvarint(b, indexFormat)
	var words []string
	for t, u := range used {
		if u {
			renum[t] = uint32(len(words))
			words = append(words, sn.words[t])
		}
	}
	b = binary.AppendUvarint(b, uint64(len(words)))
	for _, w := range words {
		b = appendStr(b, w)
	}
	trees := slices.SortedFunc(maps.Keys(sn.versions), compareID)
	b = binary.AppendUvarint(b, uint64(len(trees)))
	var terms []byte
	for _, t := range trees {
		v, err := sn.versions[t].content()
		if err != nil {
			return nil, err
		}
		b = append(b, t[:]...)
		b = binary.AppendUvarint(b, uint64(len(v.files)))
		for _, f := range v.files {
			b = appendStr(b, f.Path)
			b = append(b, f.ID[:]...)
			var flags byte
			if f.Link {
				flags |= flagLink
			}
			if f.text {
				flags |= flagText
			}
			b = append(b, flags)
			b = append(b, f.digest[:]...)
			b = binary.AppendUvarint(b, uint64(f.size))
		}
		switch {
		case v.md == nil || v.skillMD() == nil:
			b = append(b, mdNone)
		case v.md.fmErr != nil:
			msg := v.md.fmErr.Error()
			if msg == "" {
				msg = "frontmatter refused"
			}
			b = append(b, mdRefused)
			b = appendStr(b, msg)
		default:
			b = append(b, mdRead)
			b = appendStr(b, string(v.md.fm.JSON))
			b = appendStr(b, v.md.fm.Name)
			b = appendStr(b, v.md.fm.Description)
		}
		keys := names[t]
		slices.SortFunc(keys, func(a, b docKey) int { return strings.Compare(a.name, b.name) })
		b = binary.AppendUvarint(b, uint64(len(keys)))
		for _, k := range keys {
			dt := sn.docs[k]
			b = appendStr(b, k.name)
			for f := range fields {
				b = binary.AppendUvarint(b, uint64(max(dt.length[f], 0)))
			}
			terms = terms[:0]
			prev := uint32(0)
			dt.eachTerm(func(t uint32, tf [fields]uint16) {
				terms = binary.AppendUvarint(terms, uint64(renum[t]-prev))
				terms = binary.AppendUvarint(terms, packTF(tf))
				prev = renum[t]
			})
			b = binary.AppendUvarint(b, uint64(len(terms)))
			b = append(b, terms...)
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli())), nil
}

// writeIndexFile writes sn as the index file p, atomically.
func writeIndexFile(p string, sn *indexSnapshot) error {
	data, err := sn.encode()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(p, data, 0o644)
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func compareID(a, b skillfs.ID) int { return bytes.Compare(a[:], b[:]) }
