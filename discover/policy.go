package discover

import "sort"

// Verdict is what the validation policy decided about one SKILL.md.
type Verdict struct {
	// File is the parsed SKILL.md, nil when it does not parse.
	File *SkillFile
	// Name is the name agents use for the skill (EffectiveName): the
	// frontmatter name, or in lenient mode the folder name when it has none.
	Name string
	// Diagnostics are every finding, errors and warnings, in line order.
	Diagnostics []Diagnostic
}

// Accepted reports whether the skill may enter a store (or, for a stored
// one, whether it verifies): it parses and no finding is an error.
// Warnings never refuse a skill.
func (v Verdict) Accepted() bool { return v.File != nil && !HasErrors(v.Diagnostics) }

// Errors are the findings that refuse the skill.
func (v Verdict) Errors() []Diagnostic { return v.bySeverity(SeverityError) }

// Warnings are the findings reported without refusing the skill.
func (v Verdict) Warnings() []Diagnostic { return v.bySeverity(SeverityWarning) }

func (v Verdict) bySeverity(s Severity) []Diagnostic {
	var out []Diagnostic
	for _, d := range v.Diagnostics {
		if d.Severity == s {
			out = append(out, d)
		}
	}
	return out
}

// Check is skillstore's one validation policy. Every way a skill enters a
// store (add, import, plugin add, sync, accepting a candidate, pull, clone)
// and every check of a stored skill (verify) decides through it, with the
// same mode, so a store that one command accepted is a store every other
// command accepts: verify passes on it and a clone of it succeeds.
//
// data is the SKILL.md of a folder named folder; path is used only in
// diagnostics. In [Lenient] mode (the default everywhere) a skill is
// accepted when an agent would load it; what an agent skips, cuts,
// defaults or ignores is a warning that names the agent, and nothing else
// is said (agents.go). [Strict] applies the Agent Skills specification:
// those warnings become errors, and so does what only the spec forbids.
func Check(path, folder string, data []byte, mode Mode) Verdict {
	sf, diags := ValidateFile(path, folder, data, mode)
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].Line < diags[j].Line })
	v := Verdict{File: sf, Diagnostics: diags}
	if sf != nil {
		v.Name = EffectiveName(sf, folder, mode)
	}
	return v
}
