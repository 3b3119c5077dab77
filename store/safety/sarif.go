package safety

import (
	"net/url"
	"strings"
)

// SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format) is what
// code-scanning UIs and CI read. The types below are the parts of the
// format an audit writes: one run, the tool with one rule per check
// (Rules), one result per finding with its file and line.

// SARIFLog is a SARIF 2.1.0 log file.
type SARIFLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []SARIFRun `json:"runs"`
}

// SARIFRun is one run of the tool.
type SARIFRun struct {
	Tool    SARIFTool     `json:"tool"`
	Results []SARIFResult `json:"results"`
}

// SARIFTool names the tool and lists its rules.
type SARIFTool struct {
	Driver SARIFDriver `json:"driver"`
}

// SARIFDriver is the tool's component that ran.
type SARIFDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []SARIFRule `json:"rules"`
}

// SARIFRule is one check (reportingDescriptor).
type SARIFRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     SARIFMessage   `json:"shortDescription"`
	DefaultConfiguration SARIFConfig    `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties,omitempty"`
}

// SARIFConfig is a rule's default level.
type SARIFConfig struct {
	Level string `json:"level"`
}

// SARIFMessage is a plain-text message.
type SARIFMessage struct {
	Text string `json:"text"`
}

// SARIFResult is one finding.
type SARIFResult struct {
	RuleID     string          `json:"ruleId"`
	RuleIndex  int             `json:"ruleIndex"`
	Level      string          `json:"level"`
	Message    SARIFMessage    `json:"message"`
	Locations  []SARIFLocation `json:"locations"`
	Properties map[string]any  `json:"properties,omitempty"`
}

// SARIFLocation is where a finding is.
type SARIFLocation struct {
	PhysicalLocation SARIFPhysical `json:"physicalLocation"`
}

// SARIFPhysical is a file and, when known, a line.
type SARIFPhysical struct {
	ArtifactLocation SARIFArtifact `json:"artifactLocation"`
	Region           *SARIFRegion  `json:"region,omitempty"`
}

// SARIFArtifact is a file, as a relative URI reference.
type SARIFArtifact struct {
	URI string `json:"uri"`
}

// SARIFRegion is a line of a file (1-based).
type SARIFRegion struct {
	StartLine int `json:"startLine"`
}

// SARIFSchemaURI is the schema a log names.
const SARIFSchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

// Audited is one skill's audit: its name, where its files are (the URI
// prefix of its findings' locations) and its report.
type Audited struct {
	Skill   string
	Version int
	Root    string // a relative path, "/"-separated, prefix of each finding's path
	Report  Report
}

// sarifLevel maps risk levels onto SARIF's: critical and high are errors
// (they refuse or hold a version), medium a warning, low a note.
func sarifLevel(l RiskLevel) string {
	switch {
	case l >= RiskHigh:
		return "error"
	case l == RiskMedium:
		return "warning"
	case l == RiskLow:
		return "note"
	}
	return "none"
}

// securitySeverity is GitHub code scanning's 0–10 score of a level.
var securitySeverity = map[RiskLevel]string{RiskLow: "2.0", RiskMedium: "5.0", RiskHigh: "8.0", RiskCritical: "9.5"}

// SARIF writes audits as a SARIF 2.1.0 log with one rule per check.
func SARIF(audits []Audited, toolVersion string) SARIFLog {
	rules := Rules()
	index := map[string]int{}
	drv := SARIFDriver{Name: "skillstore", Version: toolVersion, InformationURI: "https://github.com/skillstore/skillstore/blob/main/docs/design/security.md"}
	for i, r := range rules {
		index[r.ID] = i
		drv.Rules = append(drv.Rules, SARIFRule{ID: r.ID, Name: sarifName(r.ID), ShortDescription: SARIFMessage{Text: r.Reason},
			DefaultConfiguration: SARIFConfig{Level: sarifLevel(r.Level)},
			Properties:           map[string]any{"risk": r.Level.String(), "security-severity": securitySeverity[max(r.Level, RiskLow)], "tags": []string{"security"}}})
	}
	results := []SARIFResult{}
	for _, a := range audits {
		for _, f := range a.Report.Findings {
			id := f.Rule
			if _, ok := index[id]; !ok {
				id = ruleOther.ID
			}
			loc := SARIFPhysical{ArtifactLocation: SARIFArtifact{URI: sarifURI(a.Root, f.Path)}}
			if f.Line > 0 {
				loc.Region = &SARIFRegion{StartLine: f.Line}
			}
			results = append(results, SARIFResult{RuleID: id, RuleIndex: index[id], Level: sarifLevel(f.Level),
				Message:    SARIFMessage{Text: f.String()},
				Locations:  []SARIFLocation{{PhysicalLocation: loc}},
				Properties: map[string]any{"risk": f.Level.String(), "skill": a.Skill, "version": a.Version, "known": f.Known}})
		}
	}
	return SARIFLog{Schema: SARIFSchemaURI, Version: "2.1.0", Runs: []SARIFRun{{Tool: SARIFTool{Driver: drv}, Results: results}}}
}

// sarifName is a rule's name in SARIF's PascalCase convention.
func sarifName(id string) string {
	var b strings.Builder
	for _, part := range strings.Split(id, "-") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// sarifURI is a relative URI reference to root/p, each segment escaped
// (a ':' in a plugin's skill name would otherwise read as a scheme).
func sarifURI(root, p string) string {
	var segs []string
	for _, s := range strings.Split(strings.Trim(root+"/"+p, "/"), "/") {
		segs = append(segs, strings.ReplaceAll(url.PathEscape(s), ":", "%3A"))
	}
	return strings.Join(segs, "/")
}
