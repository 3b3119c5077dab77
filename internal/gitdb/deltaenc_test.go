package gitdb

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestDeltaEncodeRoundTrip encodes deltas between edited versions of
// random and repetitive data and applies them back.
func TestDeltaEncodeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return b
	}
	text := bytes.Repeat([]byte("Step 1 of the skill: read the input, check it.\n"), 400)
	cases := map[string][2][]byte{
		"empty source":    {nil, []byte("hello")},
		"empty target":    {[]byte("hello world, a source"), nil},
		"identical":       {text, text},
		"line appended":   {text, append(append([]byte{}, text...), "one more line\n"...)},
		"prefix inserted": {text, append([]byte("a new first line\n"), text...)},
		"middle changed":  {text, bytes.Replace(text, []byte("check"), []byte("CHECK"), 3)},
		"random edited":   {random(200000), nil},
		"unrelated":       {random(5000), random(5000)},
		"short":           {[]byte("abc"), []byte("abcd")},
		"repeated block":  {bytes.Repeat([]byte{'a'}, 100000), bytes.Repeat([]byte{'a'}, 150000)},
	}
	re := cases["random edited"]
	re[1] = append(append(append([]byte{}, re[0][:70000]...), random(300)...), re[0][90000:]...)
	cases["random edited"] = re
	for name, c := range cases {
		src, tgt := c[0], c[1]
		d := newDeltaIndex(src).delta(tgt, len(tgt)+1000, nil)
		if d == nil {
			t.Fatalf("%s: no delta within target size + 1000", name)
		}
		got, err := applyDelta(src, d)
		if err != nil || !bytes.Equal(got, tgt) {
			t.Fatalf("%s: delta does not rebuild the target: %v", name, err)
		}
		if name == "line appended" || name == "random edited" || name == "identical" {
			if len(d) > len(tgt)/20+400 {
				t.Errorf("%s: delta of %d bytes for a %d-byte target that shares most of the source", name, len(d), len(tgt))
			}
		}
	}
	// Over the limit: no delta.
	if d := newDeltaIndex(random(4000)).delta(random(4000), 100, nil); d != nil {
		t.Errorf("unrelated data gave a %d-byte delta under a 100-byte limit", len(d))
	}
}
