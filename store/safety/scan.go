package safety

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
)

var scriptExts = map[string]bool{".sh": true, ".bash": true, ".zsh": true, ".py": true, ".js": true, ".mjs": true, ".ts": true, ".rb": true, ".pl": true, ".ps1": true, ".php": true}

func isScript(f skillfs.File) bool {
	return f.Executable() || scriptExts[path.Ext(f.Path)] || bytes.HasPrefix(f.Data, []byte("#!"))
}

// Compiled on first use rather than at start-up, which every command pays.
var (
	pipeToShell = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(curl|wget|fetch|iwr|invoke-webrequest)\b[^\n|]*\|\s*(sudo\s+)?(ba|z|k|da|fi)?sh\b|\b(ba)?sh\s+<\(\s*(curl|wget)\b|\b(python3?|node|perl|ruby)\s+<\(\s*(curl|wget)\b|\b(curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n|]*\|\s*(sudo\s+)?(python3?|node|perl|ruby|iex|invoke-expression|pwsh|powershell)\b|\b(iex|invoke-expression)\b\s*[(&]?\s*\(?\s*(iwr|irm|invoke-webrequest|invoke-restmethod|new-object\s+net\.webclient)\b`)
	})
	ignorePrior = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(ignore|disregard|forget|override)\s+(all\s+|any\s+|the\s+)?(previous|prior|above|earlier|preceding|system)\s+(instructions|prompts?|rules|messages|directions)`)
	})
	// Cheap keyword tests in front of the regular expressions, which are
	// run only on lines that could match: a bulk import scans megabytes.
	pipeWords   = [][]byte{[]byte("curl"), []byte("wget"), []byte("iwr"), []byte("irm"), []byte("invoke-"), []byte("fetch"), []byte("webclient")}
	ignoreWords = [][]byte{[]byte("ignore"), []byte("disregard"), []byte("forget"), []byte("override")}
)

const (
	minBase64Run = 200
	maxFindLines = 20 // findings of one kind per file, so a hostile file cannot flood a commit message
)

// scanText flags risky text. Invisible and bidirectional-control
// characters are checked in SKILL.md, which the agent reads as
// instructions (elsewhere they are legitimate in right-to-left text);
// Unicode tag characters, which smuggle whole ASCII instructions, and
// terminal control characters, which rewrite what a person sees, in every
// text file.
func scanText(p string, data []byte, isSkillMD bool) []Finding {
	var out []Finding
	counts := map[string]int{}
	add := func(line int, level RiskLevel, kind, msg string) {
		if counts[kind]++; counts[kind] <= maxFindLines {
			out = append(out, Finding{Level: level, Path: p, Line: line, Message: msg})
		}
	}
	lower := asciiLower(data)
	var wrapped base64Lines
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
		if hasBase64Run(line) {
			add(n, RiskMedium, "base64", "long base64 blob (hidden payload?)")
		} else if first := wrapped.next(n, line); first > 0 {
			add(first, RiskMedium, "base64", "long base64 blob wrapped over several lines (hidden payload?)")
		}
		if c, ok := controlByte(line); ok {
			add(n, RiskHigh, "control", fmt.Sprintf("terminal control character %s (can rewrite what a terminal shows)", c))
		}
		if !isASCII(line) {
			for i := 0; i < len(line); {
				r, size := utf8.DecodeRune(line[i:])
				level, name := invisibleRune(r, n == 1 && i == 0)
				if name != "" && (isSkillMD || level == RiskCritical) {
					add(n, level, "rune", fmt.Sprintf("invisible or bidirectional-control character U+%04X (%s)", r, name))
				}
				if name == "" && r >= 0x80 && r <= 0x9f {
					add(n, RiskHigh, "control", fmt.Sprintf("terminal control character U+%04X (can rewrite what a terminal shows)", r))
				}
				i += size
			}
		}
	}
	// Prompt injections are matched over the whole text, so that a line
	// break between the words does not hide one.
	if containsAny(lower, ignoreWords) {
		for _, m := range ignorePrior().FindAllIndex(data, maxFindLines) {
			line := 1 + bytes.Count(data[:m[0]], []byte("\n"))
			if quotedWarning(data, lower, m[0], m[1]) {
				add(line, RiskMedium, "ignore", "quotes a prompt-injection phrase in a warning (not an instruction; check the quote)")
				continue
			}
			add(line, RiskCritical, "ignore", "tells the agent to ignore previous instructions (prompt injection)")
		}
		sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	}
	return out
}

// base64Lines follows consecutive lines made only of base64 characters, as
// base64 -w 76 and MIME wrap a payload, so that a blob split over lines is
// flagged like one long run.
type base64Lines struct {
	first, chars int
	reported     bool
}

// minWrappedLine is the shortest line counted as part of a wrapped blob
// (encoders wrap at 60, 64 or 76 columns; the last line may be shorter but
// a blob long enough to flag has full lines before it).
const minWrappedLine = 40

// next takes line n and returns the first line of a wrapped blob when it
// has just grown to minBase64Run characters, else 0.
func (b *base64Lines) next(n int, line []byte) int {
	line = bytes.TrimRight(line, "\r")
	if len(line) < minWrappedLine || !isBase64Line(line) {
		*b = base64Lines{}
		return 0
	}
	if b.chars == 0 {
		b.first = n
	}
	b.chars += len(line)
	if b.chars >= minBase64Run && !b.reported {
		b.reported = true
		return b.first
	}
	return 0
}

func isBase64Line(line []byte) bool {
	letters := 0
	for _, c := range bytes.TrimRight(line, "=") {
		switch {
		case 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z':
			letters++
		case '0' <= c && c <= '9' || c == '+' || c == '/':
		default:
			return false
		}
	}
	return letters > 0
}

// controlByte finds an ASCII control character other than tab, line feed,
// carriage return and form feed: ESC starts the escape sequences that
// clear a screen, move the cursor or (OSC 52) write the clipboard.
func controlByte(line []byte) (string, bool) {
	for _, c := range line {
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7f {
			return fmt.Sprintf("0x%02X", c), true
		}
	}
	return "", false
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

// hasControlName reports a file name holding a character that a terminal
// acts on or that hides text: C0 and C1 controls, DEL, and the invisible
// and bidirectional characters invisibleRune names.
func hasControlName(name string) bool {
	for _, r := range name {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return true
		}
		if _, what := invisibleRune(r, false); what != "" {
			return true
		}
	}
	return false
}

// frontmatterControls flags control characters that YAML escapes (\e,
// \x1b, \u009b) put into SKILL.md's frontmatter values, which list, show
// and prompt print: the file's text holds none, the decoded values do.
func frontmatterControls(data []byte) []Finding {
	sf, err := discover.Parse(data)
	if err != nil {
		return nil
	}
	values := fmt.Sprintf("%v", sf.Frontmatter)
	if c, ok := controlByte([]byte(values)); ok {
		return []Finding{{Level: RiskHigh, Path: skillmd.FileName, Line: sf.FrontmatterLine,
			Message: fmt.Sprintf("frontmatter value holds terminal control character %s (can rewrite what a terminal shows)", c)}}
	}
	for _, r := range values {
		if r >= 0x80 && r <= 0x9f {
			return []Finding{{Level: RiskHigh, Path: skillmd.FileName, Line: sf.FrontmatterLine,
				Message: fmt.Sprintf("frontmatter value holds terminal control character U+%04X (can rewrite what a terminal shows)", r)}}
		}
	}
	return nil
}

func hasKind(findings []Finding, words string) bool {
	for _, f := range findings {
		if strings.Contains(f.Message, words) {
			return true
		}
	}
	return false
}
