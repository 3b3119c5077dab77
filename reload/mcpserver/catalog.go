package mcpserver

import (
	"context"
	"errors"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// Catalog is the published set a server serves. Implementations read the
// store under its shared lock for the moment of each call only.
type Catalog interface {
	// Generation names the published set: it changes whenever a skill is
	// published, removed or renamed. It is called on every request, so it
	// must be cheap.
	Generation(ctx context.Context) (string, error)
	// Skills lists the published skills (names, descriptions, versions)
	// and the generation they are (see Generation).
	Skills(ctx context.Context) ([]Skill, string, error)
	// Open reads skill name at its published version: its files' list and
	// contents. An unknown name gives an error wrapping ErrUnknownSkill.
	Open(ctx context.Context, name string) (*Version, error)
	// Files lists the files of each of trees (versions' trees), by tree,
	// with their blob ids and not their content, from one read.
	Files(ctx context.Context, trees []skillfs.ID) (map[skillfs.ID][]FileRef, error)
	// ReadBlobs calls fn with the content of each blob of ids, in one read;
	// an error of fn ends the read and is returned.
	ReadBlobs(ctx context.Context, ids []skillfs.ID, fn func(id skillfs.ID, data []byte) error) error
	// Version returns version n (v1, v2, ...) of the published skill name.
	// An unknown name or version gives an error wrapping ErrUnknownSkill.
	Version(ctx context.Context, name string, n int) (Skill, error)
}

// FileRef is one file of a skill version, named by its git blob id: equal
// ids are equal bytes, so what is computed from a blob's content (its
// SHA-256 digest) is computed once per blob.
type FileRef struct {
	Path string
	ID   skillfs.ID // the blob id
	Link bool       // a symlink: the blob holds its target
}

// ErrUnknownSkill is wrapped by Catalog.Open for a name no published skill
// has.
var ErrUnknownSkill = errors.New("no published skill of that name")

// Skill is one published skill as the catalog lists it.
type Skill struct {
	Name        string // qualified: NAME, or PLUGIN:SKILL
	Description string
	Version     int        // v1, v2, ...
	Commit      string     // the version's commit, hex
	Tree        skillfs.ID // the version's tree: its files
}

// Version is one skill at its published version.
type Version struct {
	Skill
	Files []File // every file, SKILL.md first, then by path
}

// File is one file of a skill version.
type File struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	// Data is the file's content (a symlink's target for a link).
	Data []byte `json:"-"`
	Link bool   `json:"link,omitempty"`
}

// file returns the file at path, nil if the version has none.
func (v *Version) file(path string) *File {
	for i := range v.Files {
		if v.Files[i].Path == path {
			return &v.Files[i]
		}
	}
	return nil
}
