package gitdb

import (
	"encoding/hex"
	"errors"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// ID is a git object id; the same type as the blob and tree ids of
// package skillfs.
type ID = skillfs.ID

// ObjectType is the type of a git object, numbered as in a pack entry's
// header: 1 to 4 are the object types, 6 and 7 the two delta encodings
// that exist only inside packs.
type ObjectType int8

// The object types of git's pack format.
const (
	CommitObject   ObjectType = 1
	TreeObject     ObjectType = 2
	BlobObject     ObjectType = 3
	TagObject      ObjectType = 4
	OFSDeltaObject ObjectType = 6
	REFDeltaObject ObjectType = 7
)

// String is the name git gives the type in object headers ("commit",
// "tree", "blob", "tag"), and "ofs-delta", "ref-delta" or "unknown".
func (t ObjectType) String() string {
	switch t {
	case CommitObject:
		return "commit"
	case TreeObject:
		return "tree"
	case BlobObject:
		return "blob"
	case TagObject:
		return "tag"
	case OFSDeltaObject:
		return "ofs-delta"
	case REFDeltaObject:
		return "ref-delta"
	}
	return "unknown"
}

// ErrInvalidType is returned for an object header naming no object type.
var ErrInvalidType = errors.New("invalid object type")

// ParseObjectType parses a type's name as [ObjectType.String] writes it.
func ParseObjectType(s string) (ObjectType, error) {
	for _, t := range []ObjectType{CommitObject, TreeObject, BlobObject, TagObject, OFSDeltaObject, REFDeltaObject} {
		if t.String() == s {
			return t, nil
		}
	}
	return 0, ErrInvalidType
}

// ErrObjectNotFound is returned when an object is in none of the places
// read.
var ErrObjectNotFound = errors.New("object not found")

// ErrHashMismatch is returned when an object's content does not hash to
// the id it was read under: a damaged or tampered object file. Reads never
// deliver such content.
var ErrHashMismatch = errors.New("content does not match the object id (damaged or altered object)")

// Object is an object held in memory: its type and content (without the
// header git hashes in front of it).
type Object struct {
	Type ObjectType
	Data []byte
}

// HashObject returns the id git gives to data stored as an object of type t.
func HashObject(t ObjectType, data []byte) ID { return skillfs.HashObject(t.String(), data) }

// parseID parses a full 40-digit hex object id.
func parseID(s string) (ID, bool) {
	var h ID
	if len(s) != 40 {
		return h, false
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, false
	}
	return h, true
}
