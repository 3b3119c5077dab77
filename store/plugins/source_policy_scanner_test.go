package plugins

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A policy file's scanner lines name the external scanner (the system
// file's first), restrict no source alone, and a broken file that meant
// to name one gives a scanner that holds every version.
func TestSourcePolicyScanner(t *testing.T) {
	dir := t.TempDir()
	system := writePolicy(t, dir, "system", "scanner /opt/scan --strict   # the org's\nscanner-timeout 2m\nscanner-max-output 4096\n")
	user := writePolicy(t, dir, "user", "scanner /home/me/scan\n")
	p := LoadSourcePolicy(system, user)
	s := p.Scanner()
	if s == nil || strings.Join(s.Command, " ") != "/opt/scan --strict" || s.Timeout != 2*time.Minute || s.MaxOutput != 4096 || s.From != system || s.Broken != nil {
		t.Fatalf("scanner %+v", s)
	}
	if err := p.CheckSource("https://github.com/acme/kit", false, ""); err != nil {
		t.Errorf("a file of scanner lines only restricts sources: %v", err)
	}
	if s := LoadSourcePolicy(filepath.Join(dir, "missing"), user).Scanner(); s == nil || s.Command[0] != "/home/me/scan" {
		t.Errorf("user's scanner: %+v", s)
	}
	if LoadSourcePolicy(writePolicy(t, dir, "none", "max-risk high\n")).Scanner() != nil {
		t.Error("a file without a scanner line names one")
	}

	for name, text := range map[string]string{
		"bare":    "scanner\n",
		"timeout": "scanner /opt/scan\nscanner-timeout soon\n",
		"alone":   "scanner-timeout 5s\n",
		"later":   "host git.example.com extra\nscanner /opt/scan\n",
	} {
		path := writePolicy(t, dir, name, text)
		s := LoadSourcePolicy(path).Scanner()
		if s == nil || s.Broken == nil || s.From != path {
			t.Errorf("%s: scanner %+v, want a broken one", name, s)
			continue
		}
		if !strings.Contains(s.Broken.Error(), path) {
			t.Errorf("%s: %v does not name the file", name, s.Broken)
		}
	}
}
