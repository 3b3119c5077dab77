package safety_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store/safety"
)

// TestSARIFValidates: the SARIF log of the whole corpus (every kind of
// finding, plugin names with a colon, files without a line) validates
// against testdata/sarif's schema of the SARIF 2.1.0 parts audit writes,
// each result names its rule by ID and index, and every rule is listed
// once.
func TestSARIFValidates(t *testing.T) {
	var audits []safety.Audited
	for _, kind := range []string{"malicious", "benign"} {
		paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "safety-corpus", kind, "*.txtar"))
		for _, p := range paths {
			ar, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var files []skillfs.File
			for _, f := range ar.Files {
				files = append(files, file(f.Name, string(f.Data)))
			}
			name := "corpus:" + strings.TrimSuffix(filepath.Base(p), ".txtar")
			rep, err := safety.Check(name, files, nil, skillfs.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			audits = append(audits, safety.Audited{Skill: name, Version: 1, Root: strings.ReplaceAll(name, ":", "/"), Report: rep})
		}
	}
	audits = append(audits, safety.Audited{Skill: "old", Version: 2, Root: "old", Report: safety.NewReport([]safety.Finding{
		{Level: safety.RiskLow, Path: "scripts/a:b.sh", Message: "script added"}, // read back from a commit: no rule
	})})
	log := safety.SARIF(audits, "v1.2.3")
	raw, err := json.Marshal(log)
	if err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("SARIF_OUT"); out != "" { // to check against the OASIS schema by hand
		if err := os.WriteFile(out, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		t.Fatal(err)
	}
	schemaData, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sarif", "sarif-2.1.0-emitted.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(schemaData, &schema); err != nil {
		t.Fatal(err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := resolved.Validate(instance); err != nil {
		t.Fatalf("the SARIF log does not validate: %v", err)
	}

	rules := log.Runs[0].Tool.Driver.Rules
	seen := map[string]bool{}
	for _, r := range rules {
		if seen[r.ID] {
			t.Errorf("rule %s listed twice", r.ID)
		}
		seen[r.ID] = true
	}
	results := log.Runs[0].Results
	if len(results) < 50 {
		t.Fatalf("%d results for the corpus, want at least one per malicious skill", len(results))
	}
	for _, r := range results {
		if rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %q: ruleIndex %d is rule %s", r.Message.Text, r.RuleIndex, rules[r.RuleIndex].ID)
		}
		if uri := r.Locations[0].PhysicalLocation.ArtifactLocation.URI; strings.Contains(uri, ":") || !strings.HasPrefix(uri, "corpus/") && !strings.HasPrefix(uri, "old/") {
			t.Errorf("result %q: uri %q", r.Message.Text, uri)
		}
	}

	// The schema is not one that accepts anything: a level SARIF does not
	// define, a line 0 and a result without a message are refused.
	for _, bad := range []string{
		`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"message":{"text":"m"},"level":"high"}]}]}`,
		`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a"},"region":{"startLine":0}}}]}]}]}`,
		`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"ruleId":"r"}]}]}`,
		`{"version":"2.0.0","runs":[{"tool":{"driver":{"name":"x"}}}]}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(bad), &v); err != nil {
			t.Fatal(err)
		}
		if resolved.Validate(v) == nil {
			t.Errorf("the schema accepts %s", bad)
		}
	}
}
