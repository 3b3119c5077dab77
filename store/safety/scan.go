package safety

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"sync"
	"unicode/utf8"

	"github.com/skillstore/skillstore/internal/skillfs"
)

var scriptExts = map[string]bool{".sh": true, ".bash": true, ".zsh": true, ".py": true, ".js": true, ".mjs": true, ".ts": true, ".rb": true, ".pl": true, ".ps1": true, ".php": true}

func isScript(f skillfs.File) bool {
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
