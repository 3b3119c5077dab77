package store

import (
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// Hash is a git object id (SHA-1), the same type every package uses for
// blob and tree ids (skillfs.ID).
type Hash = skillfs.ID

// ZeroHash is the hash of no object.
var ZeroHash = skillfs.ZeroID

// ErrObjectNotFound is returned when an object is in neither the pending
// objects of a transaction nor the repository.
var ErrObjectNotFound = errors.New("object not found")

// hashObject returns the git object id of data stored as an object of type t.
func hashObject(t plumbing.ObjectType, data []byte) Hash { return skillfs.HashObject(t.String(), data) }

func objectHeader(t plumbing.ObjectType, size int) []byte {
	return skillfs.ObjectHeader(t.String(), size)
}

// HashBlob returns the blob id git gives to data.
func HashBlob(data []byte) Hash { return skillfs.BlobID(data) }

// rawObject is an object held in memory.
type rawObject struct {
	typ  plumbing.ObjectType
	data []byte
}

// objectBuffer collects the objects a transaction creates. Nothing reaches
// the disk until flush, which writes every object before the transaction
// touches any ref.
type objectBuffer struct {
	objs  map[Hash]rawObject
	order []Hash
	size  int
}

func (b *objectBuffer) add(t plumbing.ObjectType, data []byte) Hash {
	h := hashObject(t, data)
	if b.objs == nil {
		b.objs = make(map[Hash]rawObject)
	}
	if _, ok := b.objs[h]; !ok {
		b.objs[h] = rawObject{typ: t, data: data}
		b.order = append(b.order, h)
		b.size += len(data)
	}
	return h
}

func (b *objectBuffer) get(h Hash) (rawObject, bool) {
	o, ok := b.objs[h]
	return o, ok
}

// packThreshold is the number of new objects above which a transaction
// writes one packfile instead of loose objects: a bulk import then costs two
// files and two fsyncs instead of thousands.
const packThreshold = 64

// flush writes the buffered objects that the repository does not have yet,
// durably (fsynced), and empties the buffer.
func (b *objectBuffer) flush(gitDir string, has func(Hash) bool) error {
	var todo []Hash
	for _, h := range b.order {
		if !has(h) {
			todo = append(todo, h)
		}
	}
	var err error
	if len(todo) >= packThreshold {
		objs := make([]packObject, len(todo))
		for i, h := range todo {
			o := b.objs[h]
			objs[i] = packObject{hash: h, typ: o.typ, data: o.data}
		}
		_, err = writePack(gitDir, objs, zlib.BestSpeed)
	} else {
		err = b.writeLoose(gitDir, todo)
	}
	if err != nil {
		return err
	}
	b.objs, b.order, b.size = nil, nil, 0
	return nil
}

func (b *objectBuffer) writeLoose(gitDir string, hashes []Hash) error {
	dirs := map[string]bool{}
	for _, h := range hashes {
		o := b.objs[h]
		dir, err := writeLooseObject(gitDir, h, o.typ, o.data)
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

// writeLooseObject writes one zlib-compressed loose object the way git does:
// a tmp_obj_ file in the fan-out directory (git fsck ignores those), fsynced,
// then renamed into place. It returns the fan-out directory.
func writeLooseObject(gitDir string, h Hash, t plumbing.ObjectType, data []byte) (string, error) {
	hex := h.String()
	dir := filepath.Join(gitDir, "objects", hex[:2])
	path := filepath.Join(dir, hex[2:])
	if _, err := os.Stat(path); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("write object %s: %w", hex, err)
	}
	tmp, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return "", fmt.Errorf("write object %s: %w", hex, err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	zw, _ := zlib.NewWriterLevel(tmp, zlib.DefaultCompression)
	zw.Write(objectHeader(t, len(data)))
	zw.Write(data)
	err = zw.Close()
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
	if err != nil {
		return "", fmt.Errorf("write object %s: %w", hex, err)
	}
	return dir, nil
}

// readLooseObject reads a loose object directly, without go-git, for the
// hot paths that read a handful of small objects.
func readLooseObject(gitDir string, h Hash) (rawObject, error) {
	hex := h.String()
	f, err := os.Open(filepath.Join(gitDir, "objects", hex[:2], hex[2:]))
	if err != nil {
		return rawObject{}, err
	}
	defer f.Close()
	zr, err := zlib.NewReader(f)
	if err != nil {
		return rawObject{}, fmt.Errorf("object %s: %w", hex, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return rawObject{}, fmt.Errorf("object %s: %w", hex, err)
	}
	nul := bytes.IndexByte(data, 0)
	if nul < 0 {
		return rawObject{}, fmt.Errorf("object %s: no header", hex)
	}
	typText, sizeText, _ := bytes.Cut(data[:nul], []byte(" "))
	t, err := plumbing.ParseObjectType(string(typText))
	if err != nil {
		return rawObject{}, fmt.Errorf("object %s: %w", hex, err)
	}
	size, err := strconv.Atoi(string(sizeText))
	if err != nil || size != len(data)-nul-1 {
		return rawObject{}, fmt.Errorf("object %s: bad size", hex)
	}
	return rawObject{typ: t, data: data[nul+1:]}, nil
}

// ParseHash parses a full 40-digit hex object id.
func ParseHash(s string) (Hash, bool) {
	var h Hash
	if len(s) != 40 {
		return h, false
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, false
	}
	return h, true
}

// objectSource is where typed reads take raw objects from: a [Reader], or
// the packedReader that a push or pull reads its many objects through.
type objectSource interface {
	object(h Hash) (rawObject, error)
}

// typedFrom reads h from src and checks that it is of type want.
func typedFrom(src objectSource, h Hash, want plumbing.ObjectType) ([]byte, error) {
	o, err := src.object(h)
	if err != nil {
		return nil, err
	}
	if o.typ != want {
		return nil, fmt.Errorf("object %s is a %s, not a %s", h, o.typ, want)
	}
	return o.data, nil
}

// commitFrom reads and decodes the commit h.
func commitFrom(src objectSource, h Hash) (*Commit, error) {
	data, err := typedFrom(src, h, plumbing.CommitObject)
	if err != nil {
		return nil, err
	}
	return parseCommit(h, data)
}

// treeFrom reads and decodes the tree h.
func treeFrom(src objectSource, h Hash) ([]skillfs.TreeEntry, error) {
	data, err := typedFrom(src, h, plumbing.TreeObject)
	if err != nil {
		return nil, err
	}
	entries, err := parseTree(data)
	if err != nil {
		return nil, fmt.Errorf("tree %s: %w", h, err)
	}
	return entries, nil
}

// toGit and fromGit convert object ids at the boundary with go-git, which
// the store uses only to speak git's network protocols and read fetched
// packs; everything else uses Hash.
func toGit(h Hash) plumbing.Hash { return plumbing.Hash(h) }

func fromGit(h plumbing.Hash) Hash { return Hash(h) }

func toGitAll(hs []Hash) []plumbing.Hash {
	out := make([]plumbing.Hash, len(hs))
	for i, h := range hs {
		out[i] = toGit(h)
	}
	return out
}
