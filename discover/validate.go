package discover

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/skillstore/skillstore/internal/skillmd"
)

// Mode selects how strictly a skill is judged.
type Mode int

const (
	// Lenient accepts what the agents load: every key an agent documents
	// (agents.go lists them, with the docs), a missing name (the folder
	// name is used), a missing or long description, any metadata. It warns
	// only where an agent would skip or cut the skill, or ignore part of
	// it, and names the agent. It is the default of every command (see
	// Check).
	Lenient Mode = iota
	// Strict applies the Agent Skills specification and Anthropic's
	// validators: every rule is an error, unknown keys included (the keys
	// agents add are warnings naming those agents), no XML tags in name or
	// description, and no reserved words in names.
	Strict
)

func (m Mode) String() string {
	if m == Strict {
		return "strict"
	}
	return "lenient"
}

// Limits from the Agent Skills specification.
const (
	MaxNameLen          = 64
	MaxDescriptionLen   = 1024
	MaxCompatibilityLen = 500
	// MaxBodyLines is the spec's recommended ceiling for a SKILL.md body;
	// longer material belongs in references/ files.
	MaxBodyLines = 500
)

// ReservedNameWords may not appear in a skill name for Anthropic's API
// (and strict mode).
var ReservedNameWords = []string{"anthropic", "claude"}

// Compiled on first use rather than at start-up, which every command pays.
var (
	nameRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`) })
	xmlTagRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`</?[A-Za-z][A-Za-z0-9_.:-]*(\s[^<>]*)?/?>`) })
)

// ValidateFile parses and validates the bytes of a SKILL.md in a folder
// named folderName. path is used only in diagnostics. It never reads the
// disk and never panics. The returned file is nil when data cannot be
// parsed; otherwise it is returned even when diagnostics hold errors.
func ValidateFile(path, folderName string, data []byte, mode Mode) (*SkillFile, []Diagnostic) {
	sf, err := Parse(data)
	if err != nil {
		var pe *skillmd.ParseError
		if errors.As(err, &pe) {
			return nil, []Diagnostic{errorAt(path, pe.Line, "%s", pe.Msg)}
		}
		return nil, []Diagnostic{errorAt(path, 0, "%v", err)}
	}
	return sf, Validate(path, folderName, sf, mode)
}

// Validate checks a parsed SKILL.md against the rules of mode.
func Validate(path, folderName string, sf *SkillFile, mode Mode) []Diagnostic {
	v := validator{path: path, mode: mode, sf: sf}
	for _, is := range sf.issues {
		v.report(is.line, is.rule, "%s", is.msg)
	}
	v.name(folderName)
	v.description()
	v.compatibility()
	v.unknownKeys()
	v.claudeCodeFields()
	v.body()
	return collapse(v.diags)
}

// EffectiveName is the name a skill goes by: its frontmatter name, or in
// lenient mode the folder name when the frontmatter has none, or has one
// out of the spec's form (Claude Code's "Agent Development") while the
// folder's is in it (see lenientName).
func EffectiveName(sf *SkillFile, folderName string, mode Mode) string {
	if mode == Strict || (sf.Frontmatter.Name != "" && !lenientName(sf.Frontmatter.Name, folderName)) {
		return sf.Frontmatter.Name
	}
	return folderName
}

// lenientName reports whether the lenient policy takes name, out of the
// spec's form, under the folder's name: Claude Code loads such a skill,
// and the folder's name is a valid one. A name over the length limit or
// holding an XML tag is still refused.
func lenientName(name, folder string) bool {
	return folder != "" && !nameRE().MatchString(name) && nameRE().MatchString(folder) &&
		utf8.RuneCountInString(name) <= MaxNameLen && !xmlTagRE().MatchString(name) && plainWords(name)
}

// plainWords reports whether name is words a person wrote ("Agent
// Development", "C# Expert"): no path separator, no "..", no control or
// invisible character, which no agent's loader is meant to see.
func plainWords(name string) bool {
	if strings.ContainsAny(name, `/\:`) || strings.Contains(name, "..") {
		return false
	}
	for _, r := range name {
		if !unicode.IsGraphic(r) || (unicode.IsSpace(r) && r != ' ') {
			return false
		}
	}
	return true
}

type validator struct {
	path  string
	mode  Mode
	sf    *SkillFile
	diags []Diagnostic
}

func (v *validator) add(d Diagnostic) { v.diags = append(v.diags, d) }

// report adds a finding with the severity r has in the validator's mode
// (none: not reported).
func (v *validator) report(line int, r ruling, format string, args ...any) {
	switch r.in(v.mode) {
	case SeverityError:
		v.add(errorAt(v.path, line, format, args...))
	case SeverityWarning:
		v.add(warningAt(v.path, line, format, args...))
	}
}

func (v *validator) name(folder string) {
	fm := &v.sf.Frontmatter
	line := v.sf.KeyLine("name")
	if strings.TrimSpace(fm.Name) == "" {
		if v.mode == Strict {
			v.add(errorAt(v.path, line, "name is missing; add 'name: %s' to the frontmatter", suggestName(folder)))
		} else {
			v.add(warningAt(v.path, line, "name is missing; Claude Code uses the folder name %q, %s a skill without one; add 'name: %s' to the frontmatter",
				folder, agentsDo(skipsWithoutNameOrDescription, "skips", "skip"), suggestName(folder)))
		}
		v.checkName(folder, line, "folder name")
		return
	}
	if v.mode == Lenient && lenientName(fm.Name, folder) {
		// Claude Code loads it (by the name as written); a store names
		// the skill by its folder, which is valid.
		v.report(line, ruleSkipped, "name %q is not in the spec's form (a-z, 0-9 and single '-'): Claude Code loads it, %s skip it, and the store names it %q after its folder; set 'name: %s'",
			fm.Name, joinAgents([]string{AgentNameCopilot + " (VS Code)", AgentNameOpenCode}), folder, folder)
		return
	}
	if !v.checkName(fm.Name, line, "name") {
		return
	}
	if folder != "" && fm.Name != folder {
		v.report(line, ruleSkipped, "name %q does not match its folder %q, which %s require; rename the folder or set 'name: %s'",
			fm.Name, folder, joinAgents([]string{AgentNameCopilot + " (VS Code)", AgentNameOpenCode}), folder)
	}
	for _, w := range ReservedNameWords {
		if strings.Contains(fm.Name, w) {
			v.report(line, ruleSpec, "name %q contains the reserved word %q, which Anthropic's API rejects; choose another name", fm.Name, w)
		}
	}
}

// checkName applies the spec's name rules and reports whether they hold.
func (v *validator) checkName(name string, line int, what string) bool {
	if name == "" {
		return false
	}
	switch {
	case utf8.RuneCountInString(name) > MaxNameLen:
		v.add(errorAt(v.path, line, "%s is %d characters, over the limit of %d; shorten it", what, utf8.RuneCountInString(name), MaxNameLen))
		return false
	case xmlTagRE().MatchString(name):
		v.add(errorAt(v.path, line, "%s %q contains an XML tag; use only a-z, 0-9 and '-'", what, name))
		return false
	case !nameRE().MatchString(name):
		msg := fmt.Sprintf("%s %q must be lowercase letters, digits and single hyphens (a-z, 0-9, '-'), not starting or ending with '-'", what, name)
		if s := suggestName(name); s != "" && s != name {
			msg += fmt.Sprintf("; try %q", s)
		}
		v.add(errorAt(v.path, line, "%s", msg))
		return false
	}
	return true
}

// suggestName turns s into a valid name: lowercase, runs of other characters
// turned into one '-', no leading or trailing '-'.
func suggestName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	out := b.String()
	if len(out) > MaxNameLen {
		out = strings.TrimRight(out[:MaxNameLen], "-")
	}
	return out
}

func (v *validator) description() {
	d := v.sf.Frontmatter.Description
	line := v.sf.KeyLine("description")
	if strings.TrimSpace(d) == "" {
		if v.hardIssueAt(line) {
			return // "must be a string" already says what is wrong
		}
		if v.mode == Strict {
			v.add(errorAt(v.path, line, "description is missing; add 'description:' saying what the skill does and when to use it"))
		} else {
			v.add(warningAt(v.path, line, "description is missing; Claude Code uses the body's first paragraph, %s a skill without one; add 'description:' saying what it does and when to use it",
				agentsDo(skipsWithoutNameOrDescription, "skips", "skip")))
		}
		return
	}
	if n := utf8.RuneCountInString(d); n > MaxDescriptionLen {
		if v.mode == Strict {
			v.add(errorAt(v.path, line, "description is %d characters, over the limit of %d; shorten it and move detail into the body", n, MaxDescriptionLen))
		} else {
			v.add(warningAt(v.path, line, "description is %d characters, over the Agent Skills spec's limit of %d: Claude Code loads it, Codex skips a skill whose description is that long; shorten it and move detail into the body", n, MaxDescriptionLen))
		}
	}
	if n := utf8.RuneCountInString(d) + utf8.RuneCountInString(v.sf.Frontmatter.WhenToUse); n > ClaudeCodeListingLimit {
		v.report(line, ruleIgnored, "description and when_to_use are %d characters: Claude Code cuts them to %d in the skill listing it shows the model; put the key use cases first", n, ClaudeCodeListingLimit)
	}
	if tag := xmlTagRE().FindString(d); tag != "" {
		v.report(line, ruleSpec, "description contains the XML tag %s, which Anthropic's validators reject; reword it", tag)
	}
}

// hardIssueAt reports whether a field issue that is an error in both
// modes was found on line.
func (v *validator) hardIssueAt(line int) bool {
	for _, is := range v.sf.issues {
		if is.line == line && is.rule == ruleBroken {
			return true
		}
	}
	return false
}

func (v *validator) compatibility() {
	c := v.sf.Frontmatter.Compatibility
	line := v.sf.KeyLine("compatibility")
	if _, present := v.sf.keyLines["compatibility"]; present && strings.TrimSpace(c) == "" {
		v.report(line, ruleSpecNote, "compatibility is empty; remove it or say what environment the skill needs")
	}
	if n := utf8.RuneCountInString(c); n > MaxCompatibilityLen {
		v.report(line, ruleSpec, "compatibility is %d characters, over the limit of %d; shorten it", n, MaxCompatibilityLen)
	}
}

// unknownKeys reports the keys no agent documents: the strict policy
// refuses them; agents ignore them, so the lenient one says nothing,
// except of a near miss of a documented key, which its agents ignore.
// The strict policy also names the agents of each documented key the
// spec lacks.
func (v *validator) unknownKeys() {
	for _, u := range v.sf.Frontmatter.Unknown {
		if near := nearKey(u.Key); near != "" {
			v.report(u.Line, ruling{SeverityWarning, SeverityError}, "unknown frontmatter key %q: %s it; did you mean %q?", u.Key, agentsDo(KeyAgents(near), "ignores", "ignore"), near)
			continue
		}
		v.report(u.Line, ruleSpec, "unknown frontmatter key %q; the Agent Skills spec allows %s; move it under metadata: or remove it", u.Key, strings.Join(SpecKeys, ", "))
	}
	if v.mode != Strict {
		return
	}
	var keys []string
	for _, k := range ClaudeCodeKeys {
		if _, ok := v.sf.keyLines[k]; ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return v.sf.keyLines[keys[i]] < v.sf.keyLines[keys[j]] })
	for _, k := range keys {
		v.add(warningAt(v.path, v.sf.keyLines[k], "key %q is not part of the Agent Skills spec: %s it, other agents ignore it", k, agentsDo(KeyAgents(k), "reads", "read")))
	}
}

// Allowed values of Claude Code's enumerated fields.
var (
	claudeContexts = []string{"fork"}
	claudeEfforts  = []string{"low", "medium", "high", "xhigh", "max"}
	claudeShells   = []string{"bash", "powershell"}
)

func (v *validator) claudeCodeFields() {
	fm := &v.sf.Frontmatter
	check := func(key, val string, allowed []string) {
		if val == "" {
			return
		}
		for _, a := range allowed {
			if val == a {
				return
			}
		}
		v.add(warningAt(v.path, v.sf.KeyLine(key), "%s %q is not one Claude Code knows (%s): Claude Code ignores it", key, val, strings.Join(allowed, ", ")))
	}
	check("context", fm.Context, claudeContexts)
	check("effort", fm.Effort, claudeEfforts)
	check("shell", fm.Shell, claudeShells)
	if fm.Agent != "" && fm.Context != "fork" {
		v.add(warningAt(v.path, v.sf.KeyLine("agent"), "agent is only used with 'context: fork': Claude Code ignores it; add 'context: fork' or remove agent"))
	}
	if fm.Background != nil && fm.Context != "fork" {
		v.add(warningAt(v.path, v.sf.KeyLine("background"), "background is only used with 'context: fork': Claude Code ignores it; add 'context: fork' or remove background"))
	}
	if fm.DisableModelInvocation != nil && *fm.DisableModelInvocation && fm.UserInvocable != nil && !*fm.UserInvocable {
		v.add(warningAt(v.path, v.sf.KeyLine("user-invocable"), "disable-model-invocation: true with user-invocable: false means nothing can ever invoke this skill in %s",
			joinAgents([]string{AgentNameClaudeCode, AgentNameCopilot + " (VS Code)"})))
	}
}

func (v *validator) body() {
	body := v.sf.Body
	if len(bytes.TrimSpace(body)) == 0 {
		v.report(v.sf.BodyLine, ruleSpecNote, "body is empty; write the skill's instructions after the frontmatter")
		return
	}
	n := bytes.Count(body, []byte("\n"))
	if body[len(body)-1] != '\n' {
		n++
	}
	if n > MaxBodyLines {
		v.report(v.sf.BodyLine, ruleSpecNote, "body is %d lines, over the recommended %d; move detail into references/ files", n, MaxBodyLines)
	}
}
