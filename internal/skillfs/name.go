package skillfs

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// InvalidNameError reports a malformed name: a skill's, and in the store a
// version's or a remote's.
type InvalidNameError struct {
	Name   string
	Reason string
}

func (e *InvalidNameError) Error() string {
	return fmt.Sprintf("invalid name %q: %s", e.Name, e.Reason)
}

// Compiled on first use rather than at start-up, which every command pays.
var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`) })

// CheckName accepts skill names that are safe as a git ref component and a
// folder name: lowercase letters, digits, '.', '_' and '-', starting with a
// letter or digit, at most 64 characters, no "..", not ending in "." or
// ".lock", and not a name Windows reads as a device ([WindowsDevice]: con,
// nul, aux, com1, lpt1, ... alone or with an extension), since the name is
// also a ref file of the store's repository and a folder in agents'
// skills folders on every platform a store is shared to. (The skill
// specification is stricter; discover enforces it.)
// A skill's folder and its name in the store are the same string, so a
// plugin's layout and the store apply this one rule.
func CheckName(name string) error {
	switch {
	case len(name) > 64:
		return &InvalidNameError{Name: name, Reason: "longer than 64 characters"}
	case !namePattern().MatchString(name):
		return &InvalidNameError{Name: name, Reason: "use lowercase letters, digits and hyphens"}
	case strings.Contains(name, ".."), strings.HasSuffix(name, "."), strings.HasSuffix(name, ".lock"):
		return &InvalidNameError{Name: name, Reason: `no "..", and no "." or ".lock" at the end`}
	case WindowsDevice(name):
		return &InvalidNameError{Name: name, Reason: "a device name on Windows (con, prn, aux, nul, com0-com9, lpt0-lpt9, alone or with an extension), where it cannot be a file or folder; choose another name"}
	}
	return nil
}

// FoldName is the form under which two names are equal when some file
// system git checks out to takes them for one file: macOS (APFS and HFS+,
// by default insensitive to case and to Unicode normalization) and Windows
// (NTFS, insensitive to case). SKILL.md, skill.md and Skill.MD fold to one
// name; so do "é" written as one code point (NFC) and as "e" and a
// combining accent (NFD). It drops the code points HFS+ ignores, writes
// each common Latin letter with one accent as its letter and the accent
// (latinComposed, as NFD does), and folds case rune by rune (Unicode simple
// case folding: each rune becomes the smallest of its fold orbit, so K and
// the Kelvin sign fold alike). Not covered, and documented so: letters
// that decompose in several steps (Ǟ, Vietnamese ế), compositions outside
// Latin, and full case folding ("ß" and "ss", which NTFS keeps apart too).
func FoldName(name string) string {
	if isASCIIString(name) {
		return foldASCII(name)
	}
	dec := latinDecompositions()
	var b strings.Builder
	for _, r := range stripHFSIgnorable(name) {
		if d, ok := dec[r]; ok {
			b.WriteRune(foldRune(d[0]))
			b.WriteRune(d[1])
			continue
		}
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

func foldASCII(s string) string {
	// The smallest rune of an ASCII letter's fold orbit is its capital
	// (K's orbit also holds the Kelvin sign, above both).
	return strings.ToUpper(s)
}

// foldRune is the smallest rune of r's simple case folding orbit.
func foldRune(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}

// latinComposed lists, for each combining accent, the ASCII letters it
// composes with and the letters they compose to, in the same order: every
// letter of Latin-1 Supplement, Latin Extended-A and Latin Extended-B
// whose canonical decomposition is an ASCII letter and one accent.
var latinComposed = []struct {
	accent          rune
	bases, composed string
}{
	{0x0300, "AEIOUaeiouNn", "ÀÈÌÒÙàèìòùǸǹ"},                                           // grave
	{0x0301, "AEIOUYaeiouyCcLlNnRrSsZzGg", "ÁÉÍÓÚÝáéíóúýĆćĹĺŃńŔŕŚśŹźǴǵ"},               // acute
	{0x0302, "AEIOUaeiouCcGgHhJjSsWwYy", "ÂÊÎÔÛâêîôûĈĉĜĝĤĥĴĵŜŝŴŵŶŷ"},                   // circumflex
	{0x0303, "ANOanoIiUu", "ÃÑÕãñõĨĩŨũ"},                                               // tilde
	{0x0304, "AaEeIiOoUuYy", "ĀāĒēĪīŌōŪūȲȳ"},                                           // macron
	{0x0306, "AaEeGgIiOoUu", "ĂăĔĕĞğĬĭŎŏŬŭ"},                                           // breve
	{0x0307, "CcEeGgIZzAaOo", "ĊċĖėĠġİŻżȦȧȮȯ"},                                         // dot above
	{0x0308, "AEIOUaeiouyY", "ÄËÏÖÜäëïöüÿŸ"},                                           // diaeresis
	{0x030a, "AaUu", "ÅåŮů"},                                                           // ring above
	{0x030b, "OoUu", "ŐőŰű"},                                                           // double acute
	{0x030c, "CcDdEeLlNnRrSsTtZzAaIiOoUuGgKkjHh", "ČčĎďĚěĽľŇňŘřŠšŤťŽžǍǎǏǐǑǒǓǔǦǧǨǩǰȞȟ"}, // caron
	{0x030f, "AaEeIiOoRrUu", "ȀȁȄȅȈȉȌȍȐȑȔȕ"},                                           // double grave
	{0x0311, "AaEeIiOoRrUu", "ȂȃȆȇȊȋȎȏȒȓȖȗ"},                                           // inverted breve
	{0x031b, "OoUu", "ƠơƯư"},                                                           // horn
	{0x0326, "SsTt", "ȘșȚț"},                                                           // comma below
	{0x0327, "CcGgKkLlNnRrSsTtEe", "ÇçĢģĶķĻļŅņŖŗŞşŢţȨȩ"},                               // cedilla
	{0x0328, "AaEeIiUuOo", "ĄąĘęĮįŲųǪǫ"},                                               // ogonek
}

// latinDecompositions maps each letter of latinComposed to its letter and
// accent; built on first use.
var latinDecompositions = sync.OnceValue(func() map[rune][2]rune {
	m := map[rune][2]rune{}
	for _, c := range latinComposed {
		composed := []rune(c.composed)
		for i, base := range c.bases {
			m[composed[i]] = [2]rune{base, c.accent}
		}
	}
	return m
})
