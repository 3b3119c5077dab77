package discover

import (
	"strings"
	"testing"
)

func entry(name string, desc int) ListingEntry {
	return ListingEntry{Name: name, Description: strings.Repeat("x", desc), Path: "/p/" + name + "/SKILL.md"}
}

// cuts renders the skills cut as "name:keeps".
func cuts(l Listing) []string {
	var out []string
	for _, c := range l.Shortened {
		out = append(out, c.Skill+":"+itoa(c.Keeps))
	}
	return out
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// Codex lists "- NAME: DESCRIPTION (file: PATH)" lines: over its budget
// every description gets an even share (a short one keeps all of it);
// when the lines without descriptions do not fit either, the skills past
// the budget in name order are left out.
func TestMeasureCodex(t *testing.T) {
	// Lines without a description: 1 + 13 + 13 = 27 characters each; in
	// full 27 + 1 + the description.
	entries := []ListingEntry{entry("a", 10), entry("b", 40), entry("c", 100)}
	b := codexBudget
	l := b.Measure(entries)
	if l.Chars != 38+68+128 || l.OverBy != 0 || len(l.Shortened) != 0 || l.Tokens != (234+3)/4 {
		t.Errorf("in full: %+v", l)
	}
	// 60 characters for descriptions: each keeps up to 23 (a its 10),
	// and the one left over goes to b, the first one cut.
	b.Chars = 81 + 60
	l = b.Measure(entries)
	if got := strings.Join(cuts(l), " "); got != "b:24 c:23" || l.OverBy != 234-141 {
		t.Errorf("shortened %q, over by %d", got, l.OverBy)
	}
	if !strings.Contains(l.Shortened[1].Reason, "shortened to 23 of 100 characters") {
		t.Errorf("reason %q", l.Shortened[1].Reason)
	}
	b.Chars = 50
	l = b.Measure(entries)
	if got := strings.Join(cuts(l), " "); got != "a:0 b:0 c:0" || !strings.Contains(l.Shortened[0].Reason, "description removed") ||
		!strings.Contains(l.Shortened[1].Reason, "left out") || !strings.Contains(l.Shortened[2].Reason, "left out") {
		t.Errorf("over even without descriptions: %+v", l.Shortened)
	}
}

// Claude Code lists name, description and when_to_use, the last two cut at
// 1,536 characters per skill; over its budget it drops descriptions, so
// the fewest longest ones that make the list fit are named.
func TestMeasureClaude(t *testing.T) {
	wordy := entry("n1", 1600)
	both := entry("n3", 20)
	both.WhenToUse = strings.Repeat("y", 30)
	entries := []ListingEntry{wordy, entry("n2", 100), both}
	l := claudeBudget.Measure(entries)
	if l.Chars != 2+1536+2+100+2+50 || l.OverBy != 0 || strings.Join(cuts(l), " ") != "n1:1536" {
		t.Errorf("in budget: %+v", l)
	}
	b := claudeBudget
	b.Chars = 1000
	l = b.Measure(entries)
	if l.OverBy != 692 || strings.Join(cuts(l), " ") != "n1:0" || !strings.Contains(l.Shortened[0].Reason, "dropped if among the least used") {
		t.Errorf("over budget: %+v", l)
	}
	b.Chars = 100
	l = b.Measure(entries)
	if strings.Join(cuts(l), " ") != "n1:0 n2:0" {
		t.Errorf("far over budget: %+v", l.Shortened)
	}
}

// An agent that documents no cap lists every name and description; the
// measure says what that costs and never that it is over.
func TestMeasurePlain(t *testing.T) {
	a, _ := FindAgent("gemini")
	l := a.Budget.Measure([]ListingEntry{entry("a", 5000), entry("bb", 7000)})
	if l.Chars != 12003 || l.OverBy != 0 || len(l.Shortened) != 0 || l.Budget.Agent != "Gemini CLI" || l.Budget.Chars != 0 {
		t.Errorf("plain: %+v", l)
	}
}
