package gitdb

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"

	"github.com/skillstore/skillstore/internal/atomicfile"
)

// PackObject is one object to write into a packfile. When Delta is set
// the object is stored as an OFS_DELTA against the object at index Base of
// the same pack, which must come earlier.
type PackObject struct {
	ID    ID
	Type  ObjectType
	Data  []byte
	Base  int
	Delta []byte
}

// WritePack writes objs as one packfile with its v2 index into
// objects/pack, compressed at zlib level level, and returns the pack's checksum (its name). Both files are
// fsynced; the index is renamed into place before the pack, because go-git
// lists packs by their .pack file and fails on a pack without an index,
// while git skips an index whose pack is missing.
func WritePack(gitDir string, objs []PackObject, level int) (ID, error) {
	packDir := filepath.Join(gitDir, "objects", "pack")
	if err := os.MkdirAll(packDir, 0o755); err != nil {
		return ID{}, fmt.Errorf("write pack: %w", err)
	}
	tmp, err := os.CreateTemp(packDir, "tmp_pack_")
	if err != nil {
		return ID{}, fmt.Errorf("write pack: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()

	sum := sha1.New()
	bw := bufio.NewWriterSize(io.MultiWriter(tmp, sum), 1<<16)
	var hdr [12]byte
	copy(hdr[:], "PACK")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	binary.BigEndian.PutUint32(hdr[8:], uint32(len(objs)))
	bw.Write(hdr[:])

	iw := new(idxfile.Writer)
	iw.OnHeader(uint32(len(objs)))
	offsets := make([]int64, len(objs))
	offset := int64(len(hdr))
	var entry bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&entry, level)
	for i, o := range objs {
		entry.Reset()
		offsets[i] = offset
		payload := o.Data
		if o.Delta != nil {
			payload = o.Delta
			entry.Write(packEntryHeader(OFSDeltaObject, len(payload)))
			entry.Write(ofsDeltaOffset(offset - offsets[o.Base]))
		} else {
			entry.Write(packEntryHeader(o.Type, len(payload)))
		}
		zw.Reset(&entry)
		zw.Write(payload)
		if err := zw.Close(); err != nil {
			return ID{}, fmt.Errorf("write pack: %w", err)
		}
		iw.Add(plumbing.Hash(o.ID), uint64(offset), crc32.ChecksumIEEE(entry.Bytes()))
		bw.Write(entry.Bytes())
		offset += int64(entry.Len())
	}
	if err := bw.Flush(); err != nil {
		return ID{}, fmt.Errorf("write pack: %w", err)
	}
	var packHash ID
	sum.Sum(packHash[:0])
	if _, err := tmp.Write(packHash[:]); err != nil {
		return ID{}, fmt.Errorf("write pack: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return ID{}, fmt.Errorf("write pack: %w", err)
	}

	if err := iw.OnFooter(plumbing.Hash(packHash)); err != nil {
		return ID{}, fmt.Errorf("write pack index: %w", err)
	}
	idx, err := iw.Index()
	if err != nil {
		return ID{}, fmt.Errorf("write pack index: %w", err)
	}
	var idxBuf bytes.Buffer
	if _, err := idxfile.NewEncoder(&idxBuf).Encode(idx); err != nil {
		return ID{}, fmt.Errorf("write pack index: %w", err)
	}
	base := filepath.Join(packDir, "pack-"+packHash.String())
	if err := writeSynced(packDir, "tmp_idx_", base+".idx", idxBuf.Bytes()); err != nil {
		return ID{}, err
	}
	if err := tmp.Chmod(0o444); err != nil {
		return ID{}, fmt.Errorf("write pack: %w", err)
	}
	if err := os.Rename(tmp.Name(), base+".pack"); err != nil {
		return ID{}, fmt.Errorf("write pack: %w", err)
	}
	return packHash, atomicfile.SyncDir(packDir)
}

// writeSynced writes data to a temporary file named with prefix in dir,
// fsyncs it and renames it to path, read-only.
func writeSynced(dir, prefix, path string, data []byte) error {
	err := writeFileSynced(dir, prefix, path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// writeFileSynced is how gitdb puts every file in place: write fills a
// temporary file named with prefix in dir, which is made read-only,
// fsynced, and renamed to path. The temporary file never outlives a
// failure.
func writeFileSynced(dir, prefix, path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(dir, prefix)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	err = write(tmp)
	if err == nil {
		err = tmp.Chmod(0o444)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	return err
}

// packEntryHeader encodes an entry's type and inflated size: 3 type bits and
// 4 size bits in the first byte, then 7 size bits per byte.
func packEntryHeader(t ObjectType, size int) []byte {
	b := []byte{byte(t)<<4 | byte(size&0x0f)}
	size >>= 4
	for size > 0 {
		b[len(b)-1] |= 0x80
		b = append(b, byte(size&0x7f))
		size >>= 7
	}
	return b
}

// ofsDeltaOffset encodes the distance back to a delta's base in git's
// offset encoding (big-endian 7-bit groups, each continuation adding one).
func ofsDeltaOffset(n int64) []byte {
	var buf [10]byte
	pos := len(buf) - 1
	buf[pos] = byte(n & 0x7f)
	for n >>= 7; n != 0; n >>= 7 {
		n--
		pos--
		buf[pos] = 0x80 | byte(n&0x7f)
	}
	return buf[pos:]
}

// StreamPack writes objs, each read with read, as a pack stream (what
// git's protocols send): whole objects, no deltas, compressed at zlib's
// fastest level. For small objects over a fast link, finding deltas
// (what C git does from its existing packs for free) costs more time
// than the bytes it saves; the receiver indexes the pack either way.
func StreamPack(w io.Writer, objs []ID, read func(ID) (Object, error)) error {
	sum := sha1.New()
	mw := io.MultiWriter(w, sum)
	var hdr [12]byte
	copy(hdr[:], "PACK")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	binary.BigEndian.PutUint32(hdr[8:], uint32(len(objs)))
	if _, err := mw.Write(hdr[:]); err != nil {
		return err
	}
	zw, _ := zlib.NewWriterLevel(mw, zlib.BestSpeed)
	for _, h := range objs {
		o, err := read(h)
		if err != nil {
			return err
		}
		if _, err := mw.Write(packEntryHeader(o.Type, len(o.Data))); err != nil {
			return err
		}
		zw.Reset(mw)
		if _, err := zw.Write(o.Data); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
	}
	_, err := w.Write(sum.Sum(nil))
	return err
}
