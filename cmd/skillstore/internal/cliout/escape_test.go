package cliout

import (
	"bytes"
	"testing"
)

// TestEscapeTerminal shows what a terminal would act on and leaves the
// rest alone.
func TestEscapeTerminal(t *testing.T) {
	cases := map[string]string{
		"plain text, tabs\tand\nnewlines": "plain text, tabs\tand\nnewlines",
		"clip \x1b]52;c;aGk=\x07":         `clip \x1b]52;c;aGk=\x07`,
		"clear \x1b[2J":                   `clear \x1b[2J`,
		"c1 \u009b2J":                     `c1 \u009b2J`,
		"bidi \u202eevil":                 `bidi \u202eevil`,
		"tag \U000E0041":                  `tag \ue0041`,
		"line \u2028added x@v9":           `line \u2028added x@v9`,
		"para \u2029added x@v9":           `para \u2029added x@v9`,
		"bad \xff byte":                   `bad \xff byte`,
		"accents é … 日本":                  "accents é … 日本",
	}
	for in, want := range cases {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
	var b bytes.Buffer
	w := &Writer{raw: &b}
	w.Write([]byte("é"[:1]))
	w.Write([]byte("é"[1:] + "\x1b"))
	w.Flush()
	if b.String() != `é\x1b` {
		t.Errorf("a character split over two writes: %q", b.String())
	}
}
