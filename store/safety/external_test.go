package safety

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/skillfs"
)

func scanner(t *testing.T, script string) *Scanner {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "scanners", script))
	if err != nil {
		t.Fatal(err)
	}
	return &Scanner{Command: []string{p}}
}

var scanFiles = []skillfs.File{
	{Path: "SKILL.md", Mode: skillfs.Regular, Data: []byte("---\nname: demo\ndescription: d\n---\nfine\n")},
	{Path: "scripts/run.sh", Mode: skillfs.Executable, Data: []byte("#!/bin/sh\necho ok\necho forbidden\n")},
}

func TestExternalScannerFindings(t *testing.T) {
	fs, err := scanner(t, "flagword.sh").Scan(context.Background(), "demo@abc", scanFiles)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 {
		t.Fatalf("findings %v, want one", fs)
	}
	f := fs[0]
	if f.Level != RiskHigh || f.Path != "scripts/run.sh" || f.Line != 3 || f.Rule != "flagword.sh/word" || !strings.Contains(f.Message, "demo@abc") {
		t.Errorf("finding %+v", f)
	}
	if got := NewReport(append([]Finding{{Level: RiskLow, Path: "x"}}, fs...)).Risk; got != RiskHigh {
		t.Errorf("risk %s, want high", got)
	}
	clean := scanFiles[:1]
	if fs, err := scanner(t, "flagword.sh").Scan(context.Background(), "demo@abc", clean); err != nil || len(fs) != 0 {
		t.Errorf("clean tree: %v %v", fs, err)
	}
}

func TestExternalScannerArray(t *testing.T) {
	fs, err := scanner(t, "array.sh").Scan(context.Background(), "v", scanFiles)
	if err != nil || len(fs) != 1 || fs[0].Level != RiskLow || fs[0].Path != "SKILL.md" {
		t.Fatalf("%v %v", fs, err)
	}
}

// A scanner that gives no verdict holds the version (high), naming the
// command and why.
func TestExternalScannerNoVerdict(t *testing.T) {
	for _, tc := range []struct {
		script, why string
		timeout     time.Duration
	}{
		{"slow.sh", "within 200ms", 200 * time.Millisecond},
		{"garbage.sh", "not JSON findings", 0},
		{"loud.sh", "more than", 0},
		{"missing.sh", "no such file", 0},
	} {
		t.Run(tc.script, func(t *testing.T) {
			s := scanner(t, tc.script)
			s.Timeout = tc.timeout
			fs, err := s.Scan(context.Background(), "v", scanFiles)
			if err == nil || !strings.Contains(err.Error(), tc.why) || !strings.Contains(err.Error(), tc.script) {
				t.Fatalf("error %v, want %q naming the command", err, tc.why)
			}
			if len(fs) != 1 || fs[0].Level != RiskHigh || !strings.Contains(fs[0].Message, "held for review") || strings.Contains(fs[0].String(), "\n") {
				t.Errorf("findings %v", fs)
			}
		})
	}
}

func TestExternalScannerBadLevel(t *testing.T) {
	s := &Scanner{Command: []string{"sh", "-c", `echo '{"findings":[{"level":"severe"}]}'`}}
	if _, err := s.Scan(context.Background(), "v", scanFiles); err == nil || !strings.Contains(err.Error(), "severe") {
		t.Fatalf("error %v", err)
	}
}

// The adapter of docs/scanners maps skill-scanner's JSON report (a
// report we wrote in its documented shape, printed by a stand-in
// skill-scanner on PATH) to findings; an unknown severity holds.
func TestCiscoSkillScannerAdapter(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("the adapter needs jq")
	}
	report, err := filepath.Abs(filepath.Join("testdata", "scanners", "cisco-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	stand := "#!/bin/sh\n[ \"$1 $3 $4 $5\" = 'scan --format json --compact' ] && [ -f \"$2/SKILL.md\" ] || { echo bad arguments: \"$@\" >&2; exit 2; }\ntr -d '\\n' < " + report + "\n"
	if err := os.WriteFile(filepath.Join(bin, "skill-scanner"), []byte(stand), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	adapter, err := filepath.Abs(filepath.Join("..", "..", "docs", "scanners", "cisco-skill-scanner"))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := (&Scanner{Command: []string{adapter}}).Scan(context.Background(), "demo@abc", scanFiles)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.Rule+" "+f.String())
	}
	want := []string{
		"cisco-skill-scanner/EXFIL_POST critical: scripts/run.sh:2: cisco-skill-scanner: posts a file to a remote host (data_exfiltration)",
		"cisco-skill-scanner/NOTE low: SKILL.md: cisco-skill-scanner: no licence named (policy)",
		"cisco-skill-scanner/ODD high: .: cisco-skill-scanner: a level the adapter does not know",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if NewReport(fs).Risk != RiskCritical {
		t.Errorf("risk %s, want critical", NewReport(fs).Risk)
	}
}

// A scanner's words stay on one line, and a flood of findings is bounded.
func TestExternalScannerBounds(t *testing.T) {
	s := &Scanner{Command: []string{"sh", "-c", `printf '{"findings":[{"rule":"r\\u001b[2J","level":"low","message":"one\\nhigh: SKILL.md:1: forged \\u202e"}'; i=0; while [ $i -lt 150 ]; do printf ',{"level":"medium","message":"m"}'; i=$((i+1)); done; printf ',{"level":"critical","message":"last"}]}'`}}
	fs, err := s.Scan(context.Background(), "v", scanFiles)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != maxScanFindings {
		t.Fatalf("%d findings, want %d", len(fs), maxScanFindings)
	}
	if got := fs[0].String(); strings.ContainsAny(got, "\n\x1b\u202e") || fs[0].Rule != "sh/r [2J" {
		t.Errorf("first finding %q rule %q", got, fs[0].Rule)
	}
	last := fs[len(fs)-1]
	if last.Level != RiskCritical || !strings.Contains(last.Message, "53 more findings, the highest critical") {
		t.Errorf("last finding %v", last)
	}
}
