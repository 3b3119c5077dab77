package safety_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store/safety"
)

// The corpus (testdata/safety-corpus) holds skills in the shapes of the
// published attacks (malicious/) and real skills that look like them
// (benign/), written for this project. Each archive's comment says what
// it is. Every malicious one must be held (high) or refused (critical);
// every benign one must stay below high. `make audit-corpus` prints the
// figures.
func TestCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "safety-corpus")
	type result struct {
		name, what string
		risk       safety.RiskLevel
		worst      string
	}
	run := func(kind string) []result {
		paths, err := filepath.Glob(filepath.Join(dir, kind, "*.txtar"))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no %s corpus in %s: %v", kind, dir, err)
		}
		sort.Strings(paths)
		var out []result
		for _, p := range paths {
			ar, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var files []skillfs.File
			for _, f := range ar.Files {
				files = append(files, file(f.Name, string(f.Data)))
			}
			rep, err := safety.Check(strings.TrimSuffix(filepath.Base(p), ".txtar"), files, nil, skillfs.DefaultLimits)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			r := result{name: filepath.Base(p), what: strings.TrimSpace(string(ar.Comment)), risk: rep.Risk}
			for _, f := range rep.Findings {
				if f.Level == rep.Risk {
					r.worst = f.String()
					break
				}
			}
			out = append(out, r)
		}
		return out
	}
	bad, good := run("malicious"), run("benign")
	if len(bad) < 20 || len(good) < 20 {
		t.Fatalf("corpus has %d malicious and %d benign skills, want at least 20 of each", len(bad), len(good))
	}
	var held, refused, quiet int
	var lines []string
	for _, r := range bad {
		switch {
		case r.risk >= safety.RiskCritical:
			refused++
		case r.risk >= safety.RiskHigh:
			held++
		default:
			t.Errorf("malicious %s (%s) rated %s, want high or critical; worst: %s", r.name, r.what, r.risk, r.worst)
		}
		lines = append(lines, fmt.Sprintf("  malicious %-34s %-8s %s", r.name, r.risk, r.worst))
	}
	for _, r := range good {
		if r.risk >= safety.RiskHigh {
			t.Errorf("benign %s (%s) rated %s, want below high; worst: %s", r.name, r.what, r.risk, r.worst)
		} else {
			quiet++
		}
		lines = append(lines, fmt.Sprintf("  benign    %-34s %-8s %s", r.name, r.risk, r.worst))
	}
	if testing.Verbose() || os.Getenv("AUDIT_CORPUS") != "" {
		fmt.Printf("audit corpus: %d malicious: %d refused (critical), %d held (high), %d let in; %d benign: %d below high, %d held\n",
			len(bad), refused, held, len(bad)-refused-held, len(good), quiet, len(good)-quiet)
		fmt.Println(strings.Join(lines, "\n"))
	}
}
