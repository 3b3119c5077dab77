package app

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// AuditOptions are the options of `skillstore audit`.
type AuditOptions struct {
	Global
	// Names are the skills to audit (NAME or NAME@VERSION, as show takes
	// them); none audits the latest version of every skill.
	Names []string
	// Format is text, json or sarif.
	Format string
	// FailOn is the level at or above which a finding makes the audit
	// exit 1 (for CI).
	FailOn safety.RiskLevel
}

// auditJSON is one skill of `audit --format json`.
type auditJSON struct {
	Skill    string           `json:"skill"`
	Version  int              `json:"version"`
	Commit   string           `json:"commit"`
	Risk     string           `json:"risk"`
	Findings []safety.Finding `json:"findings"`
}

// Audit runs the safety check afresh, with today's rules, on the whole of
// each version named (not only on what it changed, as when it was
// recorded) and prints the findings as text, JSON or SARIF 2.1.0.
func Audit(ctx context.Context, opts AuditOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	specs := opts.Names
	var audits []safety.Audited
	var commits []string
	err = s.View(ctx, func(r *store.Reader) error {
		if len(specs) == 0 {
			specs = r.Skills()
		}
		for _, name := range specs {
			spec, err := r.ResolveSpec(name)
			if err != nil {
				return err
			}
			v, err := r.Resolve(spec)
			if err != nil {
				return err
			}
			files, err := r.LoadFiles(v.Tree)
			if err != nil {
				return fmt.Errorf("audit %s: %w", v.Skill, err)
			}
			rep, err := safety.Check(v.Skill, files, nil, skillfs.DefaultLimits)
			if err != nil {
				return fmt.Errorf("audit %s: %w", v.Skill, err)
			}
			if store.IsPluginParts(v.Skill) {
				rep = r.WithPluginFindings(rep, files, nil)
			}
			audits = append(audits, safety.Audited{Skill: v.Skill, Version: v.Number, Root: strings.ReplaceAll(v.Skill, ":", "/"), Report: rep})
			commits = append(commits, v.Commit.String())
		}
		return nil
	})
	if err != nil {
		return err
	}
	failed := false
	for _, a := range audits {
		failed = failed || a.Report.Risk >= opts.FailOn
	}
	out := opts.Stdout
	switch opts.Format {
	case "sarif":
		if err := cliout.JSON(out, safety.SARIF(audits, toolVersion())); err != nil {
			return err
		}
	case "json":
		list := []auditJSON{}
		for i, a := range audits {
			fs := a.Report.Findings
			if fs == nil {
				fs = []safety.Finding{}
			}
			list = append(list, auditJSON{Skill: a.Skill, Version: a.Version, Commit: commits[i], Risk: a.Report.Risk.String(), Findings: fs})
		}
		if err := cliout.JSON(out, struct {
			Skills []auditJSON `json:"skills"`
		}{list}); err != nil {
			return err
		}
	default:
		counts := map[safety.RiskLevel]int{}
		for _, a := range audits {
			counts[a.Report.Risk]++
			cliout.Printf(out, "%s v%d: risk %s\n", a.Skill, a.Version, a.Report.Risk)
			for _, f := range a.Report.Findings {
				cliout.Printf(out, "  %s\n", f)
			}
		}
		cliout.Printf(out, "audited %d skills: %d critical, %d high, %d medium, %d low, %d none\n", len(audits),
			counts[safety.RiskCritical], counts[safety.RiskHigh], counts[safety.RiskMedium], counts[safety.RiskLow], counts[safety.RiskNone])
	}
	if failed {
		return ErrReported
	}
	return nil
}

// toolVersion is the module's version as Go recorded it, "" for a
// development build.
func toolVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return ""
}
