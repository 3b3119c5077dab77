package skillfs

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Printing names from outside. A file may be named "evil\nadded x@v9": printed
// as it is, it adds a line that looks like the tool's own. Every name and
// path that reaches a person's terminal or a line-based format goes through
// QuotePath or QuoteText, which quote it the way git quotes a path
// (quote_c_style, core.quotePath): in double quotes, with \a \b \t \n \v \f
// \r \" \\ by name and every other control byte, the bytes of an invisible
// or bidirectional character ([UnsafeRune]) and bytes that are not UTF-8 as
// three octal digits. Other UTF-8 is kept as it is.

// QuotePath quotes p as git does in its output: when p holds a control
// character, DEL, an [UnsafeRune] or a byte that is not UTF-8, and also
// when it holds a double quote or a backslash (so that a quoted name and
// a name that looks quoted never print the same).
func QuotePath(p string) string {
	if !NeedsQuote(p) && !strings.ContainsAny(p, `"\`) {
		return p
	}
	return quoteC(p, false)
}

// QuoteText is QuotePath for free text that holds names (a message, a
// description): quoted only when it holds a character to escape, since a
// lone quote or backslash cannot forge a line and messages hold quotes.
func QuoteText(s string) string {
	if !NeedsQuote(s) {
		return s
	}
	return quoteC(s, false)
}

// NeedsQuote reports whether s holds a control character (a newline or a
// tab included), DEL, an [UnsafeRune] or a byte that is not UTF-8.
func NeedsQuote(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			if c < 0x20 || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || UnsafeRune(r) {
			return true
		}
		i += size
	}
	return false
}

// UnsafeRune reports a character a terminal acts on or that hides or
// reorders text: C0 controls, DEL, C1 controls, bidirectional controls,
// zero-width characters, Unicode tag characters, and the line and
// paragraph separators U+2028 and U+2029 (which editors, JavaScript and
// some terminals break a line at, so a name holding one can start a line
// that reads as the tool's own).
func UnsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x2028 && r <= 0x202e, r >= 0x2060 && r <= 0x2069,
		r == 0x061c, r == 0x180e, r == 0xfeff, r >= 0xe0000 && r <= 0xe007f:
		return true
	}
	return false
}

// quoteEscapes are the characters git quotes by name.
var quoteEscapes = map[byte]string{'\a': `\a`, '\b': `\b`, '\t': `\t`, '\n': `\n`, '\v': `\v`, '\f': `\f`, '\r': `\r`, '"': `\"`, '\\': `\\`}

// QuoteBytes is s quoted with every byte that is not printable ASCII
// escaped, as git prints a path by default (core.quotePath=true): two
// spellings of one name that look alike ("é" as one code point, and as
// "e" and a combining accent) then print apart.
func QuoteBytes(s string) string { return quoteC(s, true) }

// quoteC is s in double quotes, escaped as git's quote_c_style does; with
// allBytes, every byte above 0x7f too.
func quoteC(s string, allBytes bool) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch e, named := quoteEscapes[s[i]]; {
		case named:
			b.WriteString(e)
		case r == utf8.RuneError && size == 1, UnsafeRune(r), allBytes && r >= 0x80:
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, `\%03o`, c)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// unquoteEscapes are the escapes quoteC writes by name, reversed.
var unquoteEscapes = map[byte]byte{'a': '\a', 'b': '\b', 't': '\t', 'n': '\n', 'v': '\v', 'f': '\f', 'r': '\r', '"': '"', '\\': '\\'}

// UnquotePrefix reads a path quoted by QuotePath at the start of s: the
// path, and what follows its closing quote. ok is false when s does not
// start with a well-formed quoted path (then it is to be read as it is).
func UnquotePrefix(s string) (path, rest string, ok bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return b.String(), s[i+1:], true
		case c != '\\':
			b.WriteByte(c)
		case i+1 < len(s) && unquoteEscapes[s[i+1]] != 0:
			b.WriteByte(unquoteEscapes[s[i+1]])
			i++
		case i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]):
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
		default:
			return "", s, false
		}
	}
	return "", s, false
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }
