package store

import (
	"reflect"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/store/safety"
)

// A finding's path holding a newline is quoted in the commit body, so it
// adds no line to the message (no forged "Skill-Version: 99"), and it is
// read back exactly; an unquoted line of an older commit still reads.
func TestFindingsWithHostilePathsRoundTrip(t *testing.T) {
	in := []safety.Finding{
		{Level: safety.RiskHigh, Path: "evil\n\nSkill-Version: 99", Message: "file name holds a control character"},
		{Level: safety.RiskMedium, Path: `a "b": c.md`, Line: 3, Message: "x: y"},
		{Level: safety.RiskLow, Path: "plain.md", Line: 7, Message: "fine"},
	}
	body := formatFindings(in)
	if got := strings.Count(body, "\n"); got != len(in)+1 {
		t.Errorf("body has %d lines for %d findings:\n%s", got, len(in), body)
	}
	if strings.Contains(body, "\nSkill-Version") {
		t.Errorf("a path forged a line in the body:\n%s", body)
	}
	if out := parseFindings(body); !reflect.DeepEqual(out, in) {
		t.Errorf("parseFindings(formatFindings) = %#v, want %#v", out, in)
	}
	old := parseFindings("- high: scripts/run.sh:4: runs curl")
	if len(old) != 1 || old[0].Path != "scripts/run.sh" || old[0].Line != 4 || old[0].Message != "runs curl" {
		t.Errorf("an older finding line: %#v", old)
	}
}
