package store

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// RiskLevel grades what the safety check flags in a tree.
type RiskLevel int

// Risk levels, lowest first.
const (
	RiskNone RiskLevel = iota
	RiskLow
	RiskMedium
	RiskHigh
	RiskCritical
)

var riskNames = []string{"none", "low", "medium", "high", "critical"}

func (l RiskLevel) String() string {
	if l < 0 || int(l) >= len(riskNames) {
		return fmt.Sprintf("risk(%d)", int(l))
	}
	return riskNames[l]
}

// MarshalText writes the level's name.
func (l RiskLevel) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// ParseRiskLevel parses "none", "low", "medium", "high" or "critical".
func ParseRiskLevel(s string) (RiskLevel, error) {
	for i, n := range riskNames {
		if strings.EqualFold(s, n) {
			return RiskLevel(i), nil
		}
	}
	return RiskNone, fmt.Errorf("unknown risk level %q (use none, low, medium, high or critical)", s)
}

// DefaultAllowedRisk is the highest level accepted without --allow-risk:
// only critical findings refuse a version by default.
const DefaultAllowedRisk = RiskHigh

// Finding is something the safety check flags, located in a file.
type Finding struct {
	Level   RiskLevel `json:"level"`
	Path    string    `json:"path"`
	Line    int       `json:"line,omitempty"`
	Message string    `json:"message"`
}

func (f Finding) String() string {
	loc := f.Path
	if f.Line > 0 {
		loc = fmt.Sprintf("%s:%d", f.Path, f.Line)
	}
	return fmt.Sprintf("%s: %s: %s", f.Level, loc, f.Message)
}

// Limits bound what a skill tree may hold.
type Limits struct {
	MaxFileSize int64 // bytes per file
	MaxFiles    int
}

// DefaultLimits are the caps add and sync apply.
var DefaultLimits = Limits{MaxFileSize: 2 << 20, MaxFiles: 1000}

// Problem is a reason the safety check rejects a tree outright.
type Problem struct {
	Path   string
	Reason string
}

// RejectedError is returned when a tree holds something a store never
// accepts: a symlink, a path escaping the folder, a special file, or too
// many or too large files. Nothing is written.
type RejectedError struct {
	Skill    string
	Problems []Problem
}

func (e *RejectedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s rejected by the safety check:", e.Skill)
	for _, p := range e.Problems {
		fmt.Fprintf(&b, "\n  %s: %s", p.Path, p.Reason)
	}
	return b.String()
}

// RiskRefusedError is returned when findings exceed the allowed level.
type RiskRefusedError struct {
	Skill    string
	Risk     RiskLevel
	Allowed  RiskLevel
	Findings []Finding
}

func (e *RiskRefusedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s refused: risk %s is above the allowed %s", e.Skill, e.Risk, e.Allowed)
	for _, f := range e.Findings {
		if f.Level > e.Allowed {
			fmt.Fprintf(&b, "\n  %s", f)
		}
	}
	return b.String()
}

// SafetyReport is the outcome of a safety check that did not reject.
type SafetyReport struct {
	Risk     RiskLevel
	Findings []Finding
}

// CheckSafety runs the safety check on a tree about to become a version of
// skill. files need Data (except that oversized files may have only Size);
// previous is the tree of the version it replaces (nil for a new skill), so
// scripts are flagged only when added or changed. It returns a
// *RejectedError for what is never accepted, and otherwise the findings and
// the highest risk level among them.
func CheckSafety(skill string, files []File, previous []File, limits Limits) (SafetyReport, error) {
	var problems []Problem
	if len(files) > limits.MaxFiles {
		problems = append(problems, Problem{Path: ".", Reason: fmt.Sprintf("%d files is more than the cap of %d", len(files), limits.MaxFiles)})
	}
	for _, f := range files {
		if err := checkTreePath(f.Path); err != nil {
			problems = append(problems, Problem{Path: f.Path, Reason: "path escapes the skill folder or is not a plain relative path"})
			continue
		}
		switch f.Mode {
		case skillfs.Regular, skillfs.Executable:
		case skillfs.Symlink:
			problems = append(problems, Problem{Path: f.Path, Reason: fmt.Sprintf("symlink (to %q); copy the file instead", f.Data)})
			continue
		default:
			problems = append(problems, Problem{Path: f.Path, Reason: "device, socket, fifo or submodule; only regular files are stored"})
			continue
		}
		if size := max(f.Size, int64(len(f.Data))); size > limits.MaxFileSize {
			problems = append(problems, Problem{Path: f.Path, Reason: fmt.Sprintf("%d bytes is over the size cap of %d bytes", size, limits.MaxFileSize)})
		}
	}
	if len(problems) > 0 {
		sort.Slice(problems, func(i, j int) bool { return problems[i].Path < problems[j].Path })
		return SafetyReport{}, &RejectedError{Skill: skill, Problems: problems}
	}

	prev := FileMap(previous)
	var findings []Finding
	for _, f := range files {
		old, existed := prev[f.Path]
		changed := !existed || old.ID != f.ID || old.ID.IsZero() || old.Mode != f.Mode
		if changed && isScript(f) {
			verb := "added"
			if existed {
				verb = "changed"
			}
			level, what := RiskLow, "script"
			if f.Executable() {
				level, what = RiskMedium, "executable script"
			}
			findings = append(findings, Finding{Level: level, Path: f.Path, Message: what + " " + verb})
		}
		if bytes.IndexByte(f.Data, 0) >= 0 {
			continue // binary: the text checks below do not apply
		}
		findings = append(findings, scanText(f.Path, f.Data, f.Path == "SKILL.md")...)
	}
	report := SafetyReport{Findings: findings}
	for _, f := range findings {
		report.Risk = max(report.Risk, f.Level)
	}
	return report, nil
}

var scriptExts = map[string]bool{".sh": true, ".bash": true, ".zsh": true, ".py": true, ".js": true, ".mjs": true, ".ts": true, ".rb": true, ".pl": true, ".ps1": true, ".php": true}

func isScript(f File) bool {
	return f.Executable() || scriptExts[path.Ext(f.Path)] || bytes.HasPrefix(f.Data, []byte("#!"))
}

// Compiled on first use rather than at start-up, which every command pays.
var (
	pipeToShell = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(curl|wget|fetch|iwr|invoke-webrequest)\b[^\n|]*\|\s*(sudo\s+)?(ba|z|k|da|fi)?sh\b|\b(ba)?sh\s+<\(\s*(curl|wget)\b|\b(python3?|node|perl|ruby)\s+<\(\s*(curl|wget)\b|(curl|wget)\b[^\n|]*\|\s*(sudo\s+)?(python3?|node|perl|ruby|iex)\b`)
	})
	ignorePrior = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(ignore|disregard|forget|override)\s+(all\s+|any\s+|the\s+)?(previous|prior|above|earlier|preceding|system)\s+(instructions|prompts?|rules|messages|directions)`)
	})
	// Cheap keyword tests in front of the regular expressions, which are
	// run only on lines that could match: a bulk import scans megabytes.
	pipeWords   = [][]byte{[]byte("curl"), []byte("wget"), []byte("iwr"), []byte("invoke-webrequest"), []byte("fetch")}
	ignoreWords = [][]byte{[]byte("ignore"), []byte("disregard"), []byte("forget"), []byte("override")}
)

const (
	minBase64Run = 200
	maxFindLines = 20 // findings of one kind per file, so a hostile file cannot flood a commit message
)

// scanText flags risky text. Invisible and bidirectional-control characters
// are checked in SKILL.md, which the agent reads as instructions.
func scanText(p string, data []byte, isSkillMD bool) []Finding {
	var out []Finding
	counts := map[string]int{}
	add := func(line int, level RiskLevel, kind, msg string) {
		if counts[kind]++; counts[kind] <= maxFindLines {
			out = append(out, Finding{Level: level, Path: p, Line: line, Message: msg})
		}
	}
	lower := asciiLower(data)
	for n, off := 1, 0; off < len(data); n++ {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += off
		}
		line, low := data[off:end], lower[off:end]
		off = end + 1
		if containsAny(low, pipeWords) && pipeToShell().Match(line) {
			add(n, RiskHigh, "pipe", "downloads code and pipes it into an interpreter (curl … | sh)")
		}
		if containsAny(low, ignoreWords) && ignorePrior().Match(line) {
			add(n, RiskCritical, "ignore", "tells the agent to ignore previous instructions (prompt injection)")
		}
		if hasBase64Run(line) {
			add(n, RiskMedium, "base64", "long base64 blob (hidden payload?)")
		}
		if isSkillMD && !isASCII(line) {
			for i := 0; i < len(line); {
				r, size := utf8.DecodeRune(line[i:])
				if level, name := invisibleRune(r, n == 1 && i == 0); name != "" {
					add(n, level, "rune", fmt.Sprintf("invisible or bidirectional-control character U+%04X (%s)", r, name))
				}
				i += size
			}
		}
	}
	return out
}

func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

func containsAny(b []byte, words [][]byte) bool {
	for _, w := range words {
		if bytes.Contains(b, w) {
			return true
		}
	}
	return false
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hasBase64Run reports a run of at least minBase64Run base64 characters.
func hasBase64Run(line []byte) bool {
	if len(line) < minBase64Run {
		return false
	}
	run := 0
	for _, c := range line {
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' {
			if run++; run >= minBase64Run {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// invisibleRune classifies characters that hide text from a human reviewer
// while the model still reads it. Unicode tag characters can smuggle whole
// ASCII instructions and are critical.
func invisibleRune(r rune, atStart bool) (RiskLevel, string) {
	switch {
	case r >= 0xE0000 && r <= 0xE007F:
		return RiskCritical, "tag character"
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return RiskHigh, "bidirectional control"
	case r >= 0x200B && r <= 0x200D, r >= 0x2060 && r <= 0x2064, r == 0x00AD, r == 0x180E:
		return RiskHigh, "zero-width"
	case r == 0xFEFF && !atStart:
		return RiskHigh, "zero-width no-break space"
	}
	return RiskNone, ""
}
