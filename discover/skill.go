package discover

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/internal/skillmd"
)

// Skill is a loaded skill folder.
type Skill struct {
	// Name is the effective name: the frontmatter name, or in lenient mode
	// the folder name when the frontmatter has none.
	Name        string `json:"name"`
	Description string `json:"description"`
	// Dir is the absolute path of the skill folder.
	Dir  string     `json:"dir"`
	File *SkillFile `json:"-"`
	// BodyHash is the SHA-256 of the body with line endings normalized;
	// skills with equal hashes are duplicates.
	BodyHash string `json:"body_hash"`

	// The fields below are set by discovery (Discover, WalkRoot).

	// ID is stable across runs and machines: a hash of the layer, root
	// kind and the folder's path relative to its root.
	ID string `json:"id,omitempty"`
	// Namespace is the slash-separated folders between the root and the
	// skill folder ("acme/ops" for ROOT/acme/ops/deploy), with container
	// folders such as "skills" and ".curated" left out.
	Namespace string `json:"namespace,omitempty"`
	Layer     Layer  `json:"layer,omitempty"`
	// Root is the absolute root the skill was found under; RelDir is the
	// folder relative to it, with forward slashes.
	Root   string `json:"root,omitempty"`
	RelDir string `json:"rel_dir,omitempty"`
	// Symlinked is set when the folder or its SKILL.md was reached through
	// a symlink (inside the root).
	Symlinked bool `json:"symlinked,omitempty"`
	// Copy is the kind of place the folder is in, which ranks copies of
	// one skill (see CopyKind).
	Copy CopyKind `json:"copy,omitempty"`
	// Agent is the agent whose view the skill's root belongs to ("" for
	// roots every agent shares); Plugin is the Claude Code plugin that
	// ships it. Both come from the root (see Root).
	Agent  string `json:"agent,omitempty"`
	Plugin string `json:"plugin,omitempty"`
	// Diagnostics are the findings about this skill.
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
	// ShadowedBy is the skill of the same qualified name in a higher-priority
	// root that agents load instead of this one, or nil.
	ShadowedBy *Skill `json:"-"`

	rootIndex int // position of Root in the searched roots, for ordering
}

// Loads reports whether agents would load the skill: its SKILL.md parsed
// and validation found no error. (A shadowed skill still "loads" on its
// own; Result.Active leaves it out.)
func (s *Skill) Loads() bool { return s.File != nil && !HasErrors(s.Diagnostics) }

// QualifiedName is Namespace/Name, or Name when there is no namespace,
// prefixed with "plugin:" for a plugin's skill (Claude Code's naming).
func (s *Skill) QualifiedName() string {
	q := s.Name
	if s.Namespace != "" {
		q = s.Namespace + "/" + s.Name
	}
	if s.Plugin != "" {
		q = s.Plugin + ":" + q
	}
	return q
}

// Path is the absolute path of the skill's SKILL.md.
func (s *Skill) Path() string { return filepath.Join(s.Dir, skillmd.FileName) }

// LoadSkillDir reads and validates dir/SKILL.md. It returns an error only
// when dir itself cannot be read. Problems with the skill are diagnostics:
// a missing or unparseable SKILL.md gives a nil skill; otherwise the skill
// is returned even when the diagnostics hold errors (HasErrors says whether
// agents would load it).
func LoadSkillDir(dir string, mode Mode) (*Skill, []Diagnostic, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("load skill %s: %w", dir, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return nil, nil, fmt.Errorf("load skill: %w", err)
	}
	if !info.IsDir() {
		return nil, nil, fmt.Errorf("load skill %s: not a directory", dir)
	}
	path := filepath.Join(dir, skillmd.FileName)
	data, diag := readSkillFile(filepath.Join(abs, skillmd.FileName), path)
	if diag != nil {
		return nil, []Diagnostic{*diag}, nil
	}
	s, diags := newSkill(abs, path, data, mode)
	return s, diags, nil
}

// newSkill validates data, the SKILL.md of the folder abs, reporting as path.
func newSkill(abs, path string, data []byte, mode Mode) (*Skill, []Diagnostic) {
	folder := filepath.Base(abs)
	v := Check(path, folder, data, mode)
	sf, diags := v.File, v.Diagnostics
	if sf == nil {
		return nil, diags
	}
	s := &Skill{
		Name:        v.Name,
		Description: sf.Frontmatter.Description,
		Dir:         abs,
		File:        sf,
		BodyHash:    BodyHash(sf.Body),
		Diagnostics: diags,
	}
	return s, diags
}

// readSkillFile reads a SKILL.md up to MaxFileSize; display names it in
// diagnostics. A missing, oversized or unreadable file is returned as a
// diagnostic.
func readSkillFile(file, display string) ([]byte, *Diagnostic) {
	fail := func(format string, args ...any) ([]byte, *Diagnostic) {
		d := errorAt(display, 0, format, args...)
		return nil, &d
	}
	// Only a regular file, opened without blocking: a FIFO named SKILL.md
	// in a cloned project must not hang discovery, nor a link to a device
	// feed it without end.
	f, err := safefile.Open(file, safefile.Options{})
	if errors.Is(err, safefile.ErrNotRegular) {
		if info, serr := os.Stat(file); serr == nil && info.IsDir() {
			return fail("%s is a directory; it must be a file", skillmd.FileName)
		}
		return fail("cannot read: %v; %s must be a regular file", unwrapPathError(err), skillmd.FileName)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if other := misnamedSkillFile(filepath.Dir(file)); other != "" {
				return fail("missing %s; found %s, rename it to %s (agents look for that exact name)", skillmd.FileName, other, skillmd.FileName)
			}
			return fail("missing %s: a skill folder needs a SKILL.md with name and description frontmatter", skillmd.FileName)
		}
		return fail("cannot read: %v", unwrapPathError(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fail("cannot read: %v", unwrapPathError(err))
	}
	if info.Size() > MaxFileSize {
		return fail("file is %d bytes, over the %d-byte limit for SKILL.md; move long material into references/ files", info.Size(), MaxFileSize)
	}
	// One byte past the size seen at Stat tells whether the file grew since.
	data := make([]byte, info.Size()+1)
	n, err := io.ReadFull(f, data)
	data = data[:n]
	switch {
	case err == nil:
		rest, err := io.ReadAll(io.LimitReader(f, MaxFileSize))
		if err != nil {
			return fail("cannot read: %v", unwrapPathError(err))
		}
		if data = append(data, rest...); len(data) > MaxFileSize {
			return fail("file is over the %d-byte limit for SKILL.md; move long material into references/ files", MaxFileSize)
		}
	case err != io.ErrUnexpectedEOF && err != io.EOF:
		return fail("cannot read: %v", unwrapPathError(err))
	}
	return data, nil
}

// misnamedSkillFile returns the name of a file in dir that is SKILL.md in
// another case (skill.md, Skill.md), or "".
func misnamedSkillFile(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if e.Name() != skillmd.FileName && strings.EqualFold(e.Name(), skillmd.FileName) {
			return e.Name()
		}
	}
	return ""
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// BodyHash returns the hex SHA-256 of a body with CRLF turned into LF and
// surrounding blank space trimmed, so the same text saved on Windows and
// Unix hashes equal.
func BodyHash(body []byte) string {
	b := bytes.TrimSpace(body)
	h := sha256.New()
	for {
		i := bytes.Index(b, crlf)
		if i < 0 {
			h.Write(b)
			break
		}
		h.Write(b[:i])
		b = b[i+1:] // drop the '\r', keep the '\n'
	}
	return hex.EncodeToString(h.Sum(nil))
}

var crlf = []byte("\r\n")
