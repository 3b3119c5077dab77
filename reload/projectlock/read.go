package projectlock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/safefile"
)

// MaxSize bounds a lock file: a project of ten thousand skills writes
// about two megabytes.
const MaxSize = 4 << 20

// maxEntries bounds each list of a lock file (plugins, skills, targets,
// a target's skills): more is no lock skillstore writes.
const maxEntries = 20000

// ErrNoLock is wrapped when a project has no lock file.
var ErrNoLock = errors.New("no lock file")

// Problem is a part of a lock file that is refused, and why: the rest of
// the file is used without it.
type Problem struct {
	File string `json:"file"`
	// Line is the line of the part (of its field at fault, when known);
	// 0 when unknown.
	Line int    `json:"line,omitempty"`
	Part string `json:"part"` // "plugin acme", "skill acme:deploy", "target app-claude", ...
	Err  error  `json:"-"`
}

func (p Problem) Error() string {
	where := p.File
	if p.Line > 0 {
		where = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s: %s: %v", where, p.Part, p.Err)
}

// MarshalJSON adds the reason to the problem's fields.
func (p Problem) MarshalJSON() ([]byte, error) {
	type plain Problem
	return json.Marshal(struct {
		plain
		Error string `json:"error"`
	}{plain(p), p.Err.Error()})
}

// Read reads the lock file at path (see [Parse]). A missing file is an
// error wrapping ErrNoLock; a file that is no regular file, or is larger
// than MaxSize, is not read.
func Read(path string) (*Lock, []Problem, error) {
	data, err := safefile.ReadFile(path, MaxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%s: %w", path, ErrNoLock)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("lock file: %w", err)
	}
	return Parse(path, data)
}

// Parse reads a lock file's bytes (file names it in messages). What makes
// the whole file unusable (not JSON, another format version, more entries
// than any lock holds) is the error; a bad entry is refused alone, listed
// in the problems, and the lock returned holds the rest. An entry that
// refers to a refused one (a skill of a refused plugin, a target's skill
// that is refused) is refused too, saying so.
func Parse(file string, data []byte) (*Lock, []Problem, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		je := discover.NewJSONError(data, err)
		if je.Line > 0 {
			return nil, nil, fmt.Errorf("%s:%d: not valid JSON: %w", file, je.Line, je.Err)
		}
		return nil, nil, fmt.Errorf("%s: not valid JSON: %w", file, err)
	}
	raw, err := splitTop(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	if raw.version != FormatVersion {
		return nil, nil, fmt.Errorf("%s: lock file version %d is not one this skillstore reads (%d): install a skillstore that reads it, or write the lock again with 'skillstore lock'", file, raw.version, FormatVersion)
	}
	c := &checker{file: file, data: data, plugins: map[string]bool{}, refused: map[string]bool{}, skills: map[string]bool{}}
	for _, u := range raw.unknown {
		c.problem(u, "field "+quoteName(string(u.raw)), errors.New("not part of the format: ignored"))
	}
	l := &Lock{Version: raw.version, Plugins: []Plugin{}, Skills: []Skill{}, Targets: []Target{}}
	if raw.remote != nil {
		l.Remote = c.remote(*raw.remote)
	}
	for _, e := range raw.plugins {
		if p, ok := c.plugin(e); ok {
			l.Plugins = append(l.Plugins, p)
		}
	}
	for _, e := range raw.skills {
		if s, ok := c.skill(e); ok {
			l.Skills = append(l.Skills, s)
		}
	}
	for _, e := range raw.targets {
		if t, ok := c.target(e); ok {
			l.Targets = append(l.Targets, t)
		}
	}
	return l, c.problems, nil
}

// element is one value of the file, with where it starts.
type element struct {
	offset int
	raw    json.RawMessage
}

// topLevel is the file cut into its fields.
type topLevel struct {
	version                  int
	remote                   *element
	plugins, skills, targets []element
	unknown                  []element // the names of unknown fields
}

// splitTop cuts the top-level object into its fields and the lists into
// their elements, keeping where each starts (for line numbers).
func splitTop(data []byte) (*topLevel, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("a lock file is a JSON object")
	}
	top := &topLevel{version: -1}
	for dec.More() {
		at := skipSpace(data, int(dec.InputOffset()))
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := key.(string)
		switch name {
		case "version":
			if err := dec.Decode(&top.version); err != nil {
				return nil, fmt.Errorf("line %d: \"version\" must be a number", lineAt(data, at))
			}
		case "remote":
			e, err := nextElement(dec, data)
			if err != nil {
				return nil, err
			}
			top.remote = &e
		case "plugins", "skills", "targets":
			list, err := listElements(dec, data, name)
			if err != nil {
				return nil, err
			}
			switch name {
			case "plugins":
				top.plugins = list
			case "skills":
				top.skills = list
			default:
				top.targets = list
			}
		default:
			if _, err := nextElement(dec, data); err != nil {
				return nil, err
			}
			top.unknown = append(top.unknown, element{offset: at, raw: json.RawMessage(name)})
		}
	}
	if top.version < 0 {
		return nil, errors.New(`no "version": not a skillstore lock file`)
	}
	return top, nil
}

// nextElement decodes the next value, noting where it starts.
func nextElement(dec *json.Decoder, data []byte) (element, error) {
	var raw json.RawMessage
	at := skipSpace(data, int(dec.InputOffset()))
	if err := dec.Decode(&raw); err != nil {
		return element{}, err
	}
	return element{offset: at, raw: raw}, nil
}

// listElements reads a list field's elements.
func listElements(dec *json.Decoder, data []byte, name string) ([]element, error) {
	at := skipSpace(data, int(dec.InputOffset()))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, fmt.Errorf("line %d: %q must be a list", lineAt(data, at), name)
	}
	var out []element
	for dec.More() {
		if len(out) == maxEntries {
			return nil, fmt.Errorf("%q holds more than %d entries: not a lock skillstore writes", name, maxEntries)
		}
		e, err := nextElement(dec, data)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	_, err := dec.Token() // ']'
	return out, err
}

// skipSpace moves i past the separators before a value.
func skipSpace(data []byte, i int) int {
	for i < len(data) && bytes.IndexByte([]byte(" \t\r\n,:"), data[i]) >= 0 {
		i++
	}
	return i
}

// lineAt is the line of byte offset i.
func lineAt(data []byte, i int) int {
	return 1 + bytes.Count(data[:min(i, len(data))], []byte("\n"))
}

// decodeStrict decodes an element into v, refusing fields the format does
// not have (a misspelt "selct" must not be ignored silently).
func decodeStrict(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not an entry of the format: %w", err)
	}
	return nil
}

// quoteName quotes a name from the file for a message.
func quoteName(s string) string { return fmt.Sprintf("%q", s) }
