package safety

import "unicode/utf8"

// Emoji sequences use characters that are invisible alone: 👩‍💻 is two
// emoji joined by U+200D (zero-width joiner), a skin tone or U+FE0F may
// come between, and a subdivision flag (🏴 then tag letters, then U+E007F)
// spells its region in tag characters. These are not hidden text.

// isEmoji reports a character that takes part in an emoji sequence:
// pictographs, symbols that have an emoji form, skin tones, the emoji
// variation selector and the keycap mark.
func isEmoji(r rune) bool {
	switch {
	case r >= 0x1F000 && r <= 0x1FAFF, // pictographs, emoticons, transport, skin tones (1F3FB–1F3FF)
		r >= 0x2600 && r <= 0x27BF, // miscellaneous symbols and dingbats (♀ ♂ ⚕ ❤)
		r >= 0x2300 && r <= 0x23FF, r >= 0x2B00 && r <= 0x2BFF,
		r == 0xFE0F, r == 0x20E3, r == 0x00A9, r == 0x00AE, r == 0x2122, r == 0x2194, r == 0x2195:
		return true
	}
	return false
}

// flagTags returns the length of the tag letters and cancel tag that
// follow a black flag (🏴󠁧󠁢󠁳󠁣󠁴󠁿 is U+1F3F4, "gbsct" in tags, U+E007F), 0 when
// b does not start with such a sequence.
func flagTags(b []byte) int {
	n, letters := 0, 0
	for n < len(b) {
		r, size := utf8.DecodeRune(b[n:])
		switch {
		case r == 0xE007F:
			if letters >= 2 && letters <= 6 {
				return n + size
			}
			return 0
		case r >= 0xE0030 && r <= 0xE0039, r >= 0xE0061 && r <= 0xE007A: // tag digits, lowercase tag letters
			letters++
			n += size
		default:
			return 0
		}
	}
	return 0
}

// tagRun returns the byte length of the run of tag characters that starts
// b, and the ASCII text they spell (each tag is its ASCII letter plus
// U+E0000).
func tagRun(b []byte) (int, string) {
	var text []byte
	n := 0
	for n < len(b) {
		r, size := utf8.DecodeRune(b[n:])
		if r < 0xE0000 || r > 0xE007F {
			break
		}
		if c := r - 0xE0000; c >= 0x20 && c < 0x7f {
			text = append(text, byte(c))
		}
		n += size
	}
	return n, string(text)
}
