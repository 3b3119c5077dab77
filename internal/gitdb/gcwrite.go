package gitdb

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/skillstore/skillstore/internal/atomicfile"
)

// gcPack is a pack gc wrote and has not put in place yet: both files are
// temporary files of objects/pack, fsynced.
type gcPack struct {
	id      ID
	packTmp string
	idxTmp  string
	size    int64
	objects int
	deltas  int
}

// install renames the written pack into packDir, its index first (go-git
// lists packs by their .pack file and fails on one without an index; git
// skips an index alone), and syncs the folder. step, when set, runs
// between the two renames (the kill tests' seam).
func (gp *gcPack) install(packDir string, step func(string)) error {
	base := filepath.Join(packDir, "pack-"+gp.id.String())
	if err := os.Rename(gp.idxTmp, base+".idx"); err != nil {
		return err
	}
	if step != nil {
		step("index")
	}
	if err := os.Rename(gp.packTmp, base+".pack"); err != nil {
		return err
	}
	return atomicfile.SyncDir(packDir)
}

// removePack deletes the files of the pack whose path is base (without
// its extension), saying whether its .pack file was there.
func removePack(base string) bool {
	removed := false
	for _, ext := range []string{".pack", ".idx", ".rev", ".bitmap", ".keep"} {
		if err := os.Remove(base + ext); err == nil && ext == ".pack" {
			removed = true
		}
	}
	return removed
}

// writePack writes every entry into a new pack, each entry's base before
// it: entries reused verbatim out of the old packs, in their old order
// (which keeps an old pack's layout), then those gc wrote anew. Reused
// entries are checked against the CRC their old index records (git's
// documented pack-reuse check).
func (pl *gcPlanner) writePack() (*gcPack, error) {
	w := pl.w
	if pl.spill != nil {
		if err := pl.spillW.Flush(); err != nil {
			return nil, fmt.Errorf("gc: %w", err)
		}
	}
	dir := filepath.Join(w.db.dir, "objects", "pack")
	f, err := os.CreateTemp(dir, "tmp_pack_")
	if err != nil {
		return nil, fmt.Errorf("gc: write pack: %w", err)
	}
	gp := &gcPack{packTmp: f.Name(), objects: len(w.entries)}
	ok := false
	defer func() {
		f.Close()
		if !ok {
			os.Remove(gp.packTmp)
		}
	}()
	pw := &packStream{sum: sha1.New(), crc: crc32.NewIEEE(), reads: readWindow{ahead: 256 << 10}}
	pw.w = bufio.NewWriterSize(io.MultiWriter(f, pw.sum), 1<<16)
	var hdr [12]byte
	copy(hdr[:], "PACK")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	binary.BigEndian.PutUint32(hdr[8:], uint32(len(w.entries)))
	pw.w.Write(hdr[:])
	pw.off = 12

	var stack []int32
	for _, i := range pl.order {
		stack = append(stack[:0], i)
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			e := &w.entries[j]
			if e.state == 2 {
				stack = stack[:len(stack)-1]
				continue
			}
			if e.base >= 0 && w.entries[e.base].state != 2 {
				if w.entries[e.base].state == 1 { // a cycle of deltas (a damaged pack)
					return nil, fmt.Errorf("gc: object %s: its deltas form a cycle", e.id)
				}
				e.state = 1
				stack = append(stack, e.base)
				continue
			}
			if err := pl.emit(pw, e); err != nil {
				return nil, err
			}
			if e.base >= 0 {
				gp.deltas++
			}
			e.state = 2
			stack = stack[:len(stack)-1]
		}
	}
	if err := pw.w.Flush(); err != nil {
		return nil, fmt.Errorf("gc: write pack: %w", err)
	}
	pw.sum.Sum(gp.id[:0])
	if _, err := f.Write(gp.id[:]); err != nil {
		return nil, fmt.Errorf("gc: write pack: %w", err)
	}
	gp.size = pw.off + 20
	if err := f.Chmod(0o444); err != nil {
		return nil, fmt.Errorf("gc: write pack: %w", err)
	}
	if err := f.Sync(); err != nil {
		return nil, fmt.Errorf("gc: write pack: %w", err)
	}
	idx, err := os.CreateTemp(dir, "tmp_idx_")
	if err != nil {
		return nil, fmt.Errorf("gc: write pack index: %w", err)
	}
	gp.idxTmp = idx.Name()
	err = writePackIndex(idx, w.entries, gp.id)
	if err == nil {
		err = idx.Chmod(0o444)
	}
	if err == nil {
		err = idx.Sync()
	}
	if cerr := idx.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(gp.idxTmp)
		return nil, fmt.Errorf("gc: write pack index: %w", err)
	}
	ok = true
	return gp, nil
}

// packStream is the pack being written: where the next entry goes, the
// checksum of everything so far, and a buffer for one entry.
type packStream struct {
	w   *bufio.Writer
	sum hash.Hash
	crc hash.Hash32
	off int64
	buf []byte
	out bytes.Buffer
	zw  *zlib.Writer
	// reads copies the old packs' entries, mostly in their order.
	reads readWindow
}

// emit writes entry e, whose base is written already.
func (pl *gcPlanner) emit(pw *packStream, e *gcEntry) error {
	w := pl.w
	var payload []byte
	switch {
	case e.pack >= 0:
		p := w.pr.packs[e.pack]
		raw, err := pw.reads.read(p, e.off, e.end-e.off, false)
		if err != nil {
			return fmt.Errorf("gc: object %s: %w", e.id, err)
		}
		if crc32.ChecksumIEEE(raw) != e.crc {
			return fmt.Errorf("gc: object %s: its entry in %s does not match the CRC of its index", e.id, p.f.Name())
		}
		payload = raw[e.hdrLen:]
	case e.pack == gcSpill:
		n := int(e.end - e.off)
		pw.buf = slices.Grow(pw.buf[:0], n)[:n]
		if _, err := pl.spill.ReadAt(pw.buf, e.off); err != nil {
			return fmt.Errorf("gc: object %s: %w", e.id, err)
		}
		payload = pw.buf
	default:
		return errors.New("gc: an object with nothing to write")
	}
	kind, size := e.kind, e.payload
	if e.base >= 0 {
		e.depth = w.entries[e.base].depth + 1
		if e.depth > gcMaxChain {
			// A reused delta on a base that became a delta itself, too
			// deep: stored whole.
			o, err := w.db.Read(e.id)
			if err != nil {
				return err
			}
			if pw.zw == nil {
				pw.zw, _ = zlib.NewWriterLevel(nil, pl.level)
			}
			pw.out.Reset()
			pw.zw.Reset(&pw.out)
			pw.zw.Write(o.Data)
			if err := pw.zw.Close(); err != nil {
				return err
			}
			payload, kind, size = pw.out.Bytes(), o.Type, int64(len(o.Data))
			e.base, e.depth = -1, 0
		}
	}
	head := packEntryHeader(kind, int(size))
	if e.base >= 0 {
		head = append(head, ofsDeltaOffset(pw.off-w.entries[e.base].newOff)...)
	}
	pw.crc.Reset()
	pw.crc.Write(head)
	pw.crc.Write(payload)
	e.newOff, e.newCRC = pw.off, pw.crc.Sum32()
	pw.w.Write(head)
	if _, err := pw.w.Write(payload); err != nil {
		return fmt.Errorf("gc: write pack: %w", err)
	}
	pw.off += int64(len(head) + len(payload))
	return nil
}

// writePackIndex writes a version 2 pack index of entries: fan-out
// table, sorted ids, CRCs, 31-bit offsets (larger ones in a 64-bit
// table), the pack's checksum and the index's own.
func writePackIndex(out io.Writer, entries []gcEntry, packID ID) error {
	sorted := make([]int32, len(entries))
	for i := range sorted {
		sorted[i] = int32(i)
	}
	slices.SortFunc(sorted, func(a, b int32) int { return bytes.Compare(entries[a].id[:], entries[b].id[:]) })
	sum := sha1.New()
	bw := bufio.NewWriterSize(io.MultiWriter(out, sum), 1<<16)
	bw.Write([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2})
	var fan [256]uint32
	for _, i := range sorted {
		fan[entries[i].id[0]]++
	}
	var b4 [4]byte
	var total uint32
	for _, n := range fan {
		total += n
		binary.BigEndian.PutUint32(b4[:], total)
		bw.Write(b4[:])
	}
	for _, i := range sorted {
		bw.Write(entries[i].id[:])
	}
	for _, i := range sorted {
		binary.BigEndian.PutUint32(b4[:], entries[i].newCRC)
		bw.Write(b4[:])
	}
	var large []int64
	for _, i := range sorted {
		off := entries[i].newOff
		v := uint32(off)
		if off >= 1<<31 {
			v = 1<<31 | uint32(len(large))
			large = append(large, off)
		}
		binary.BigEndian.PutUint32(b4[:], v)
		bw.Write(b4[:])
	}
	var b8 [8]byte
	for _, off := range large {
		binary.BigEndian.PutUint64(b8[:], uint64(off))
		bw.Write(b8[:])
	}
	bw.Write(packID[:])
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := out.Write(sum.Sum(nil))
	return err
}
