package discover

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// Severity says whether a diagnostic stops a skill from being used.
type Severity int

const (
	// SeverityWarning marks something an agent tolerates but a person should fix.
	SeverityWarning Severity = iota + 1
	// SeverityError marks a skill that does not load (or is rejected in strict mode).
	SeverityError
)

func (s Severity) String() string {
	switch s {
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	}
	return "severity(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText makes severities readable in JSON output.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads what MarshalText wrote.
func (s *Severity) UnmarshalText(b []byte) error {
	switch string(b) {
	case "warning":
		*s = SeverityWarning
	case "error":
		*s = SeverityError
	default:
		return fmt.Errorf("unknown severity %q", b)
	}
	return nil
}

// Diagnostic is one finding about a skill, located in a file and, where
// known, a 1-based line. Its message says what is wrong and what to do.
type Diagnostic struct {
	Severity Severity `json:"severity"`
	File     string   `json:"file"`
	Line     int      `json:"line,omitempty"`
	Message  string   `json:"message"`
}

// String formats d as "file:line: severity: message", the format compilers
// use, so editors can jump to the location. ":line" is omitted when unknown.
// The file is quoted as git quotes a path (skillfs.QuotePath): a folder
// name holding a newline stays on the diagnostic's line.
func (d Diagnostic) String() string {
	file := skillfs.QuotePath(d.File)
	if d.Line > 0 {
		return fmt.Sprintf("%s:%d: %s: %s", file, d.Line, d.Severity, d.Message)
	}
	return fmt.Sprintf("%s: %s: %s", file, d.Severity, d.Message)
}

// HasErrors reports whether any diagnostic is an error.
func HasErrors(diags []Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// maxSameKind is how many diagnostics of one kind a file's validation
// reports one by one; more are collapsed into one line with a count.
const maxSameKind = 3

// kindOf is what diagnostics of one kind share: the severity and the
// message with each quoted name and each number masked ("unknown
// frontmatter key "k1"" and "... "k2"" are one kind).
func kindOf(d Diagnostic) string {
	var b strings.Builder
	b.WriteString(d.Severity.String())
	b.WriteByte(0)
	m := d.Message
	for i := 0; i < len(m); i++ {
		switch c := m[i]; {
		case c == '"':
			for i++; i < len(m) && m[i] != '"'; i++ {
				if m[i] == '\\' {
					i++
				}
			}
			b.WriteByte('#')
		case c >= '0' && c <= '9':
			for i+1 < len(m) && m[i+1] >= '0' && m[i+1] <= '9' {
				i++
			}
			b.WriteByte('#')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// collapse keeps diags as they are, except that a kind found more than
// maxSameKind times becomes one diagnostic: the first, with the count of
// the others and the last line they are on. A SKILL.md with 100,000
// unknown keys gives one warning, not 100,000 (nor an audit event, a JSON
// report or a terminal that size).
func collapse(diags []Diagnostic) []Diagnostic {
	if len(diags) <= maxSameKind {
		return diags
	}
	kinds := make([]string, len(diags))
	count, last := map[string]int{}, map[string]int{}
	for i, d := range diags {
		kinds[i] = kindOf(d)
		count[kinds[i]]++
		last[kinds[i]] = max(last[kinds[i]], d.Line)
	}
	out := make([]Diagnostic, 0, len(diags))
	done := map[string]bool{}
	for i, d := range diags {
		k := kinds[i]
		switch n := count[k]; {
		case n <= maxSameKind:
			out = append(out, d)
		case !done[k]:
			done[k] = true
			d.Message += fmt.Sprintf(" (and %d more like it", n-1)
			if last[k] > d.Line {
				d.Message += fmt.Sprintf(", to line %d", last[k])
			}
			d.Message += ")"
			out = append(out, d)
		}
	}
	return out
}

// diag builds a diagnostic; the helpers keep validation code short.
func errorAt(file string, line int, format string, args ...any) Diagnostic {
	return Diagnostic{Severity: SeverityError, File: file, Line: line, Message: fmt.Sprintf(format, args...)}
}

func warningAt(file string, line int, format string, args ...any) Diagnostic {
	return Diagnostic{Severity: SeverityWarning, File: file, Line: line, Message: fmt.Sprintf(format, args...)}
}
