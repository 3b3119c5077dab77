package gitdb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// gcEntry is one reachable object as gc plans to write it: where its
// stored bytes are now, and how it goes into the new pack. Only this
// record is kept per object, never the object's data, so gc's memory
// grows with the number of objects by about a hundred bytes each.
type gcEntry struct {
	id       ID
	typ      ObjectType // the object's type
	kind     ObjectType // stored as: the object type, or OFSDeltaObject on base
	state    int8       // 0 unwritten, 1 being written (its base first), 2 written
	search   bool       // takes part in the delta search
	hdrLen   uint8      // of its entry in an old pack
	nameHash uint32     // of the path it was reached by, to sort versions of one file together
	// Where the stored bytes are: pack >= 0 is an old pack's entry at off
	// (its compressed payload from off+hdrLen to end, its CRC crc);
	// gcLoose a loose object; gcSpill a payload gc compressed into its
	// spill file (from off to end).
	pack    int32
	crc     uint32
	base    int32 // the entry it is a delta of, or -1
	depth   int32
	newCRC  uint32
	off     int64
	end     int64
	size    int64 // the object's size, known for the entries of the delta search
	payload int64 // the size in the entry's header (a delta's own size for a delta)
	// newOff is the entry's offset in the new pack once written; before,
	// an OFS_DELTA's base offset in its old pack.
	newOff int64
}

const (
	gcLoose = -1
	gcSpill = -2
)

// gcWalk lists the objects reachable from refs, each once, and finds
// where each is stored. It reads commits, trees and tags (to follow
// them), never blobs.
type gcWalk struct {
	db      *DB
	pr      *packReader
	entries []gcEntry
	index   map[ID]int32
	// refBases are the bases of REF_DELTA entries (rare: thin packs
	// received by a fetch), by entry.
	refBases map[int32]ID
	reads    readWindow // for entry headers, read in pack order
}

// newGCWalk sizes its tables for up to stored objects (what the packs
// and loose objects hold), so they never grow by copying.
func newGCWalk(db *DB, stored int) *gcWalk {
	return &gcWalk{db: db, pr: db.openPacks(), index: make(map[ID]int32, stored),
		entries: make([]gcEntry, 0, stored), refBases: map[int32]ID{}, reads: readWindow{ahead: 256 << 10}}
}

// FNV-1a, 32 bits: the name hash of an object, fed a byte at a time.
const (
	fnvOffset32 = 2166136261
	fnvPrime32  = 16777619
)

// nameHash is the FNV-1a hash of p.
func nameHash(p string) uint32 { return feedName(fnvOffset32, p) }

// feedName is h, the FNV-1a state after some text, fed p.
func feedName(h uint32, p string) uint32 {
	for i := 0; i < len(p); i++ {
		h = (h ^ uint32(p[i])) * fnvPrime32
	}
	return h
}

// treeName is the name hash of "tree:" and a tree's path, carried down the
// walk so that no path is ever built: a chain of thousands of folders
// costs its names, not the square of its depth.
type treeName struct {
	hash uint32
	top  bool // the root tree of a commit: its path is empty
}

var rootTreeName = treeName{hash: nameHash("tree:"), top: true}

// child is the name of the subtree name of a tree named n.
func (n treeName) child(name string) treeName {
	h := n.hash
	if !n.top {
		h = feedName(h, "/")
	}
	return treeName{hash: feedName(h, name)}
}

// add records h unless seen, and reports whether it is new. nameHash is
// that of the path it is reached by (0: none).
func (w *gcWalk) add(h ID, typ ObjectType, nameHash uint32) (bool, error) {
	if _, ok := w.index[h]; ok {
		return false, nil
	}
	e := gcEntry{id: h, typ: typ, pack: gcLoose, base: -1, newOff: -1, nameHash: nameHash}
	if err := w.locate(&e); err != nil {
		return false, err
	}
	w.index[h] = int32(len(w.entries))
	w.entries = append(w.entries, e)
	return true, nil
}

// locate finds e in the packs or as a loose object; an object found
// nowhere is an error, as reading it would be. A packed entry's header
// is read later, in the pack's order (readHeaders).
func (w *gcWalk) locate(e *gcEntry) error {
	for i, p := range w.pr.packs {
		if pos, off, ok := p.lookup(e.id); ok {
			e.pack, e.off, e.crc = int32(i), off, p.crcAt(pos)
			return nil
		}
	}
	if w.db.mayBeLoose(e.id) {
		if _, err := os.Stat(LoosePath(w.db.dir, e.id)); err == nil {
			return nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return fmt.Errorf("object %s: %w", e.id, ErrObjectNotFound)
}

// readHeader parses the header of packed entry i: how it is stored, and
// a delta's base.
func (w *gcWalk) readHeader(i int32) error {
	e := &w.entries[i]
	p := w.pr.packs[e.pack]
	hdr, err := w.reads.read(p, e.off, 32, true)
	if err != nil {
		return fmt.Errorf("object %s: %w", e.id, err)
	}
	r := bytes.NewReader(hdr)
	h, size, err := decodeEntryHeader(r, e.off)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.New("bad pack entry header")
	}
	if err != nil {
		return fmt.Errorf("object %s in %s: %w", e.id, p.f.Name(), err)
	}
	e.kind, e.payload, e.hdrLen, e.newOff = h.typ, size, uint8(len(hdr)-r.Len()), -1
	switch h.typ {
	case OFSDeltaObject:
		e.newOff = h.baseOff
	case REFDeltaObject:
		w.refBases[i] = h.baseID
	default:
		e.typ, e.size = h.typ, size
	}
	return nil
}

// readWindow reads a pack through a buffer of readAhead bytes: gc reads
// entries mostly in the order they are stored, so one read serves many.
type readWindow struct {
	p     *packFile
	start int64
	buf   []byte
	ahead int64 // bytes read at once
}

// read returns n bytes of p at off (fewer at the end of the file when
// short is true); the bytes are valid until the next read.
func (r *readWindow) read(p *packFile, off, n int64, short bool) ([]byte, error) {
	if r.p == p && off >= r.start && off+n <= r.start+int64(len(r.buf)) {
		return r.buf[off-r.start : off-r.start+n], nil
	}
	size := max(n, r.ahead)
	if cap(r.buf) < int(size) {
		r.buf = make([]byte, size)
	}
	r.buf = r.buf[:size]
	got, err := p.f.ReadAt(r.buf, off)
	r.p, r.start, r.buf = p, off, r.buf[:got]
	if int64(got) < n {
		if short && got > 0 {
			return r.buf, nil
		}
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return r.buf[:n], nil
}

// walk adds every object reachable from refs: for each ref its commits,
// then each commit's trees and blobs, named by their paths.
func (w *gcWalk) walk(ctx context.Context, refs Refs) error {
	type pending struct {
		id   ID
		name treeName
	}
	var trees []pending
	for _, name := range refs.Names("") {
		stack := []ID{refs[name]}
		for len(stack) > 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			h := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if _, ok := w.index[h]; ok {
				continue
			}
			o, err := w.db.Read(h)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if _, err := w.add(h, o.Type, 0); err != nil {
				return err
			}
			switch o.Type {
			case CommitObject:
				c, err := ParseCommit(h, o.Data)
				if err != nil {
					return err
				}
				trees = append(trees, pending{c.Tree, rootTreeName})
				for i := len(c.Parents) - 1; i >= 0; i-- {
					stack = append(stack, c.Parents[i])
				}
			case TagObject: // an annotated tag fetched with a plugin: keep what it names
				first, _, _ := strings.Cut(string(o.Data), "\n")
				if target, err := skillfs.ParseID(strings.TrimPrefix(first, "object ")); err == nil {
					stack = append(stack, target)
				}
			case TreeObject:
				if err := w.walkTree(ctx, h, rootTreeName, o.Data); err != nil {
					return err
				}
			}
		}
		// This ref's trees, before the next ref's commits.
		for len(trees) > 0 {
			t := trees[len(trees)-1]
			trees = trees[:len(trees)-1]
			if _, ok := w.index[t.id]; ok {
				continue
			}
			if err := w.readTree(ctx, t.id, t.name); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *gcWalk) readTree(ctx context.Context, h ID, n treeName) error {
	o, err := w.db.Read(h)
	if err != nil {
		return err
	}
	if o.Type != TreeObject {
		return fmt.Errorf("object %s is a %s where a tree names a tree", h, o.Type)
	}
	if _, err := w.add(h, TreeObject, n.hash); err != nil {
		return err
	}
	return w.walkTree(ctx, h, n, o.Data)
}

// walkTree adds the blobs of tree data, named n, and reads its subtrees.
func (w *gcWalk) walkTree(ctx context.Context, h ID, n treeName, data []byte) error {
	entries, err := skillfs.ParseTree(data)
	if err != nil {
		return fmt.Errorf("tree %s: %w", h, err)
	}
	for _, e := range entries {
		switch e.Mode {
		case skillfs.Gitlink:
		case skillfs.Dir:
			if _, ok := w.index[e.ID]; ok {
				continue
			}
			if err := w.readTree(ctx, e.ID, n.child(e.Name)); err != nil {
				return err
			}
		default:
			// Blobs are named by their file name: the SKILL.md of every
			// skill sorts together, its versions first of all.
			if _, err := w.add(e.ID, BlobObject, nameHash("blob:"+e.Name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// packEnds returns, for pack i, the sorted offsets of all its entries
// followed by where the last one ends (before the trailer).
func (w *gcWalk) packEnds(i int) []int64 {
	p := w.pr.packs[i]
	offs := make([]int64, 0, p.n+1)
	for j := 0; j < p.n; j++ {
		if off, ok := p.offsetAt(j); ok {
			offs = append(offs, off)
		}
	}
	slices.Sort(offs)
	return append(offs, p.size-20)
}
