package gitdb

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// Buffer collects the objects a transaction creates. Nothing reaches the
// disk until Flush, which writes every object before the caller touches
// any ref.
type Buffer struct {
	objs  map[ID]Object
	order []ID
	// Spill, when set, bounds the memory of a large transaction: see
	// Spill and Buffer.spill.
	Spill *Spill
	size  int   // bytes of data queued
	err   error // a failed spill, returned by Flush
	// spilling holds the objects of the pack a spill is writing in the
	// background until it is written; spilled then says how it went.
	spilling map[ID]Object
	spilled  chan error
}

// Add queues data as an object of type t and returns its id.
func (b *Buffer) Add(t ObjectType, data []byte) ID {
	h := HashObject(t, data)
	if b.objs == nil {
		b.objs = make(map[ID]Object)
	}
	if _, ok := b.Get(h); !ok {
		b.objs[h] = Object{Type: t, Data: data}
		b.order = append(b.order, h)
		b.size += len(data)
		if b.Spill != nil && b.size >= b.Spill.Bytes && b.err == nil {
			b.err = b.spill()
		}
	}
	return h
}

// IDs lists the queued objects in the order they were queued.
func (b *Buffer) IDs() []ID { return b.order }

// Get returns a queued object.
func (b *Buffer) Get(h ID) (Object, bool) {
	o, ok := b.objs[h]
	if !ok && b.spilling != nil {
		o, ok = b.spilling[h]
	}
	return o, ok
}

// PackThreshold is the number of new objects from which Flush writes one
// packfile instead of loose objects: a bulk import then costs two files
// and two fsyncs instead of thousands.
const PackThreshold = 64

// Flush writes the queued objects that the repository at gitDir does not
// have yet (has says which it has), durably (fsynced), and empties the
// buffer.
func (b *Buffer) Flush(gitDir string, has func(ID) bool) error {
	if b.err != nil {
		return b.err
	}
	if err := b.waitSpill(); err != nil {
		return err
	}
	return b.flush(gitDir, has, PackThreshold)
}

// flush writes a pack when at least packFrom objects are new, else loose
// objects.
func (b *Buffer) flush(gitDir string, has func(ID) bool, packFrom int) error {
	var todo []ID
	for _, h := range b.order {
		if !has(h) {
			todo = append(todo, h)
		}
	}
	var err error
	if len(todo) >= packFrom {
		objs := make([]PackObject, len(todo))
		for i, h := range todo {
			o := b.objs[h]
			objs[i] = PackObject{ID: h, Type: o.Type, Data: o.Data}
		}
		_, err = WritePack(gitDir, objs, zlib.BestSpeed)
	} else {
		err = b.writeLoose(gitDir, todo)
	}
	if err != nil {
		return err
	}
	b.objs, b.order, b.size = nil, nil, 0
	return nil
}

func (b *Buffer) writeLoose(gitDir string, hashes []ID) error {
	dirs := map[string]bool{}
	for _, h := range hashes {
		o := b.objs[h]
		dir, err := WriteLoose(gitDir, h, o.Type, o.Data)
		if err != nil {
			return err
		}
		dirs[dir] = true
	}
	for dir := range dirs {
		if err := atomicfile.SyncDir(dir); err != nil {
			return err
		}
	}
	return nil
}

// LoosePath is the file of loose object h.
func LoosePath(gitDir string, h ID) string {
	hex := h.String()
	return filepath.Join(gitDir, "objects", hex[:2], hex[2:])
}

// WriteLoose writes one zlib-compressed loose object the way git does: a
// tmp_obj_ file in the fan-out directory (git fsck ignores those),
// fsynced, then renamed into place. An object already there is left
// alone. It returns the fan-out directory, for the caller to sync once
// after writing several objects.
func WriteLoose(gitDir string, h ID, t ObjectType, data []byte) (string, error) {
	hex := h.String()
	dir := filepath.Join(gitDir, "objects", hex[:2])
	path := filepath.Join(dir, hex[2:])
	if _, err := os.Stat(path); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("write object %s: %w", hex, err)
	}
	err := writeFileSynced(dir, "tmp_obj_", path, func(w io.Writer) error {
		zw, _ := zlib.NewWriterLevel(w, zlib.DefaultCompression)
		zw.Write(skillfs.ObjectHeader(t.String(), len(data)))
		zw.Write(data)
		return zw.Close()
	})
	if err != nil {
		return "", fmt.Errorf("write object %s: %w", hex, err)
	}
	return dir, nil
}

// ReadLoose reads loose object h. A missing object gives an error
// matching fs.ErrNotExist; content that does not hash to h, one matching
// ErrHashMismatch.
func ReadLoose(gitDir string, h ID) (Object, error) {
	hex := h.String()
	f, err := os.Open(LoosePath(gitDir, h))
	if err != nil {
		return Object{}, err
	}
	defer f.Close()
	zr, err := zlib.NewReader(f)
	if err != nil {
		return Object{}, fmt.Errorf("object %s: %w", hex, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return Object{}, fmt.Errorf("object %s: %w", hex, err)
	}
	nul := bytes.IndexByte(data, 0)
	if nul < 0 {
		return Object{}, fmt.Errorf("object %s: no header", hex)
	}
	t, size, err := parseHeader(data[:nul])
	if err != nil {
		return Object{}, fmt.Errorf("object %s: %w", hex, err)
	}
	if size != len(data)-nul-1 {
		return Object{}, fmt.Errorf("object %s: bad size", hex)
	}
	// The id is the hash of what was inflated, header included.
	if ID(sha1.Sum(data)) != h {
		return Object{}, fmt.Errorf("object %s: %w", hex, ErrHashMismatch)
	}
	return Object{Type: t, Data: data[nul+1:]}, nil
}

// looseSize reads the size from loose object h's header without
// inflating the rest.
func looseSize(gitDir string, h ID) (int64, error) {
	hex := h.String()
	f, err := os.Open(LoosePath(gitDir, h))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	zr, err := zlib.NewReader(f)
	if err != nil {
		return 0, fmt.Errorf("object %s: %w", hex, err)
	}
	var buf [32]byte
	n, err := io.ReadFull(zr, buf[:])
	if err != nil && err != io.ErrUnexpectedEOF {
		return 0, fmt.Errorf("object %s: %w", hex, err)
	}
	nul := bytes.IndexByte(buf[:n], 0)
	if nul < 0 {
		return 0, fmt.Errorf("object %s: no header", hex)
	}
	_, size, err := parseHeader(buf[:nul])
	if err != nil {
		return 0, fmt.Errorf("object %s: %w", hex, err)
	}
	return int64(size), nil
}

// parseHeader parses "<type> <size>", a loose object's header without its NUL.
func parseHeader(hdr []byte) (ObjectType, int, error) {
	typText, sizeText, _ := bytes.Cut(hdr, []byte(" "))
	t, err := ParseObjectType(string(typText))
	if err != nil {
		return 0, 0, err
	}
	size, err := strconv.Atoi(string(sizeText))
	if err != nil {
		return 0, 0, fmt.Errorf("bad size")
	}
	return t, size, nil
}
