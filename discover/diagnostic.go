package discover

import (
	"fmt"
	"strconv"

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

// ParseError is returned by Parse when a SKILL.md cannot be read as
// frontmatter plus body. Line is 1-based; 0 means the whole file.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	file := e.File
	if file == "" {
		file = "SKILL.md"
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", file, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", file, e.Msg)
}

// diag builds a diagnostic; the helpers keep validation code short.
func errorAt(file string, line int, format string, args ...any) Diagnostic {
	return Diagnostic{Severity: SeverityError, File: file, Line: line, Message: fmt.Sprintf(format, args...)}
}

func warningAt(file string, line int, format string, args ...any) Diagnostic {
	return Diagnostic{Severity: SeverityWarning, File: file, Line: line, Message: fmt.Sprintf(format, args...)}
}
