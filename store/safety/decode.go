package safety

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"sync"
)

// A payload is hidden by encoding it: a base64 string, hex digits, \x
// escapes or a list of character codes that the skill decodes before it
// runs the result. The scan decodes what looks encoded and runs the same
// rules on the decoded text; anything high or above found there is
// critical (hiding it is the point), reported at the encoded string's line.

const (
	minEncodedBase64 = 20 // characters of a base64 string worth decoding
	minDecoded       = 8  // bytes a decoding must give to be scanned
	maxDecodeDepth   = 2  // a payload encoded twice is still found
	maxDecodings     = 200
)

var (
	hexEscRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:\\x[0-9a-fA-F]{2}){6,}|(?:\\u00[0-9a-fA-F]{2}){6,}`)
	})
	// charCodeWords name the calls that turn numbers into text.
	charCodeWords = []string{"fromcharcode", "chr(", "[char]", "bytes([", "bytearray([", "chr "}
	numberRe      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b\d{2,3}\b`) })
)

// decoding is what one encoded string decodes to.
type decoding struct {
	line int
	how  string
	text []byte
}

// decodings finds encoded strings in data and decodes them.
func decodings(data []byte) []decoding {
	var out []decoding
	lineOf := func(off int) int { return 1 + bytes.Count(data[:off], []byte("\n")) }
	keep := func(off int, how string, b []byte) {
		if len(out) < maxDecodings && len(b) >= minDecoded && printable(b) {
			out = append(out, decoding{line: lineOf(off), how: how, text: b})
		}
	}
	// base64 runs, standard or URL alphabet.
	for i := 0; i < len(data); {
		if !isB64(data[i]) {
			i++
			continue
		}
		j := i
		for j < len(data) && isB64(data[j]) {
			j++
		}
		k := j
		for k < len(data) && k-j < 2 && data[k] == '=' {
			k++
		}
		if j-i >= minEncodedBase64 {
			run := bytes.TrimRight(data[i:k], "=")
			for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
				if b, err := enc.DecodeString(string(run)); err == nil {
					keep(i, "base64", b)
					break
				}
			}
		}
		i = k
	}
	lower := asciiLower(data)
	if !bytes.Contains(data, []byte(`\x`)) && !bytes.Contains(lower, []byte(`\u00`)) {
		goto hexRuns
	}
	for _, m := range hexEscRe().FindAllIndex(data, -1) {
		s := data[m[0]:m[1]]
		var b []byte
		step := 4
		if s[1] == 'u' {
			step = 6
		}
		for p := 0; p+step <= len(s); p += step {
			v, _ := strconv.ParseUint(string(s[p+step-2:p+step]), 16, 8)
			b = append(b, byte(v))
		}
		keep(m[0], "escaped hex", b)
	}
hexRuns:
	for i := 0; i < len(data); {
		if !isHex(data[i]) {
			i++
			continue
		}
		j := i
		for j < len(data) && isHex(data[j]) {
			j++
		}
		if n := j - i; n >= 16 && n%2 == 0 && (i == 0 || !isWord(data[i-1])) && (j == len(data) || !isWord(data[j])) {
			if b, err := hex.DecodeString(string(data[i:j])); err == nil {
				keep(i, "hex", b)
			}
		}
		i = j
	}
	if containsAnyString(lower, charCodeWords) {
		for n, off := 1, 0; off < len(data); n++ {
			end := bytes.IndexByte(data[off:], '\n')
			if end < 0 {
				end = len(data)
			} else {
				end += off
			}
			line := data[off:end]
			if containsAnyString(lower[off:end], charCodeWords) {
				var b []byte
				for _, num := range numberRe().FindAll(line, -1) {
					if v, err := strconv.Atoi(string(num)); err == nil && (v == 9 || v == 10 || v >= 32 && v < 127) {
						b = append(b, byte(v))
					}
				}
				keep(off, "character codes", b)
			}
			off = end + 1
		}
	}
	return out
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func isWord(c byte) bool { return isHex(c) || 'g' <= c && c <= 'z' || 'G' <= c && c <= 'Z' || c == '_' }

func isB64(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
}

// printable reports text that reads as code or prose: at least 90%
// printable ASCII, tabs and line breaks (a hash or an image decodes to
// noise).
func printable(b []byte) bool {
	good := 0
	for _, c := range b {
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' || c == '\r' {
			good++
		}
	}
	return good*10 >= len(b)*9
}

// decoded scans what the file's encoded strings decode to.
func (s *scan) decoded() { s.decodedAt(s.data, 0, 1) }

func (s *scan) decodedAt(data []byte, baseLine, depth int) {
	for _, d := range decodings(data) {
		line := d.line
		if baseLine > 0 {
			line = baseLine
		}
		inner := newScan(s.path, d.text, true)
		inner.script = false // decoded code is code to run, comments and all
		inner.lines()
		inner.injections()
		inner.combine()
		worst := Finding{}
		for _, f := range inner.out {
			if f.Level > worst.Level && f.Rule != ruleBase64.ID {
				worst = f
			}
		}
		if worst.Level >= RiskHigh {
			s.signal(ruleHidden.ID, line)
			s.add(line, ruleHidden, RiskCritical, fmt.Sprintf("a %s string decodes to something dangerous: %s (decoded: %q)", d.how, ruleReason(worst), clipString(string(d.text), 80)))
			continue
		}
		if depth < maxDecodeDepth {
			s.decodedAt(d.text, line, depth+1)
		}
	}
}

// ruleReason is the reason of a finding's rule (its message without the
// excerpt).
func ruleReason(f Finding) string {
	for _, r := range Rules() {
		if r.ID == f.Rule {
			return r.Reason
		}
	}
	return f.Message
}
