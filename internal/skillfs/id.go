package skillfs

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strconv"
)

// ID is a git object id (SHA-1). The zero ID means "no object".
type ID [sha1.Size]byte

// ZeroID is the id of no object.
var ZeroID ID

// String returns the id as 40 hex digits, as git prints it.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// IsZero reports whether id is the zero ID.
func (id ID) IsZero() bool { return id == ID{} }

// MarshalText encodes the id as hex, and the zero ID as "" so that JSON
// fields holding no object read as empty.
func (id ID) MarshalText() ([]byte, error) {
	if id.IsZero() {
		return []byte{}, nil
	}
	return []byte(id.String()), nil
}

// UnmarshalText decodes a hex id; "" gives the zero ID.
func (id *ID) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*id = ID{}
		return nil
	}
	p, err := ParseID(string(b))
	if err != nil {
		return err
	}
	*id = p
	return nil
}

// ParseID parses a 40-digit hex object id.
func ParseID(s string) (ID, error) {
	var id ID
	if len(s) != 2*len(id) {
		return id, fmt.Errorf("object id %q: want %d hex digits", s, 2*len(id))
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, fmt.Errorf("object id %q: %w", s, err)
	}
	return id, nil
}

// HashObject returns the id git gives to data stored as an object of the
// given type ("blob", "tree", "commit" or "tag"): the SHA-1 of
// "<type> <size>\x00" followed by data.
func HashObject(typ string, data []byte) ID {
	h := sha1.New()
	h.Write(ObjectHeader(typ, len(data)))
	h.Write(data)
	var id ID
	h.Sum(id[:0])
	return id
}

// ObjectHeader is the header git hashes (and stores, compressed) in front
// of an object's content.
func ObjectHeader(typ string, size int) []byte {
	b := make([]byte, 0, 16)
	b = append(b, typ...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(size), 10)
	return append(b, 0)
}

// BlobID returns the id git gives to data as a file's content.
func BlobID(data []byte) ID { return HashObject("blob", data) }
