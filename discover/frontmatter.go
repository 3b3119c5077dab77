package discover

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillstore/skillstore/internal/skillmd"
)

// Frontmatter holds the typed fields of a SKILL.md frontmatter: those of the
// Agent Skills specification (agentskills.io/specification) and Claude
// Code's extensions. Keys it does not know are kept in Unknown.
type Frontmatter struct {
	// Agent Skills specification.
	Name          string            `json:"name,omitempty"`
	Description   string            `json:"description,omitempty"`
	License       string            `json:"license,omitempty"`
	Compatibility string            `json:"compatibility,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
	// AllowedTools is a space-delimited string in the spec; Claude Code also
	// accepts a YAML list and commas. Parentheses group, so "Bash(git diff *)"
	// stays one entry.
	AllowedTools []string `json:"allowed-tools,omitempty"`

	// Claude Code extensions.
	WhenToUse              string   `json:"when_to_use,omitempty"`
	ArgumentHint           string   `json:"argument-hint,omitempty"`
	Arguments              []string `json:"arguments,omitempty"`
	DisableModelInvocation *bool    `json:"disable-model-invocation,omitempty"`
	UserInvocable          *bool    `json:"user-invocable,omitempty"`
	DisallowedTools        []string `json:"disallowed-tools,omitempty"`
	Model                  string   `json:"model,omitempty"`
	Effort                 string   `json:"effort,omitempty"`
	Context                string   `json:"context,omitempty"`
	Agent                  string   `json:"agent,omitempty"`
	Background             *bool    `json:"background,omitempty"`
	Hooks                  any      `json:"hooks,omitempty"`
	Paths                  []string `json:"paths,omitempty"`
	Shell                  string   `json:"shell,omitempty"`
	// DisplayName, DefaultEnabled and Fallback are Claude Code's later
	// additions, read in any case style (displayName, display_name).
	DisplayName    string `json:"display-name,omitempty"`
	DefaultEnabled *bool  `json:"default-enabled,omitempty"`
	Fallback       any    `json:"fallback,omitempty"`

	// Unknown holds every other top-level key in file order, with its value
	// decoded, so nothing is lost when a skill is copied or rewritten.
	Unknown []Field `json:"unknown,omitempty"`
}

// Field is a frontmatter key that skillstore does not interpret.
type Field struct {
	Key   string `json:"key"`
	Line  int    `json:"line"`
	Value any    `json:"value"`
}

// keySpellings maps the other spellings of Claude Code's and the spec's
// keys that skills in the wild use (snake_case for kebab-case, and the
// reverse for when_to_use) to the documented spelling.
var keySpellings = map[string]string{
	"allowed_tools": "allowed-tools", "argument_hint": "argument-hint",
	"disable_model_invocation": "disable-model-invocation", "user_invocable": "user-invocable",
	"disallowed_tools": "disallowed-tools", "when-to-use": "when_to_use",
}

// SpecKeys are the top-level keys the Agent Skills specification defines,
// the only ones its reference validator (skills-ref) accepts.
var SpecKeys = []string{"name", "description", "license", "compatibility", "metadata", "allowed-tools"}

// ClaudeCodeKeys are the frontmatter keys Claude Code adds to the spec
// (agents.go lists every agent's).
var ClaudeCodeKeys = []string{"when_to_use", "argument-hint", "arguments", "disable-model-invocation",
	"user-invocable", "disallowed-tools", "model", "effort", "context", "agent", "background", "hooks", "paths", "shell",
	"display-name", "default-enabled", "fallback"}

// decodeFrontmatter types each top-level key of m into f.Frontmatter. Type
// problems are recorded as issues, not returned: an agent still loads a
// skill whose `model:` is a number. Only structural problems (repeated or
// non-scalar keys) are errors.
func (f *SkillFile) decodeFrontmatter(m *yaml.Node) error {
	fm := &f.Frontmatter
	f.keyLines = make(map[string]int, len(m.Content)/2)
	respelled := map[string]bool{} // documented keys set through another spelling
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		line := f.fileLine(k.Line)
		if k.Kind != yaml.ScalarNode {
			return &skillmd.ParseError{Line: line, Msg: fmt.Sprintf("frontmatter key must be a plain word, found %s", skillmd.Describe(k))}
		}
		key := k.Value
		if first, dup := f.keyLines[key]; dup && !respelled[key] {
			return &skillmd.ParseError{Line: line, Msg: fmt.Sprintf("key %q is repeated (first at line %d); keep one", key, first)}
		} else if dup {
			f.issue(k, ruleIgnored, "%s repeats the key given in another spelling at line %d; this one is ignored, remove one", key, first)
			continue
		}
		if k := kebab(key); k != key && caseStyled[k] {
			// Claude Code reads these in any case style: no issue.
			if first, both := f.keyLines[k]; both {
				return &skillmd.ParseError{Line: line, Msg: fmt.Sprintf("key %q repeats %q (line %d) in another case style; keep one", key, k, first)}
			}
			key = k
		}
		f.keyLines[key] = line
		if canon, ok := keySpellings[key]; ok {
			if first, both := f.keyLines[canon]; both {
				f.issue(k, ruleIgnored, "%s repeats %s (line %d) in another spelling; this one is ignored, remove one", key, canon, first)
				continue
			}
			respelled[canon] = true
			f.issue(k, ruleIgnored, "%s is read here as %s, but %s reads only the spelling its docs use and ignores this one; rename it %s", key, canon, AgentNameClaudeCode, canon)
			f.keyLines[canon] = line
			key = canon
		}
		f.decodeKey(fm, key, line, v)
	}
	return nil
}

// decodeKey types the value of one documented key, or keeps an unknown
// key's value in fm.Unknown.
func (f *SkillFile) decodeKey(fm *Frontmatter, key string, line int, v *yaml.Node) {
	switch key {
	case "name":
		fm.Name = f.str(key, v)
	case "description":
		fm.Description = f.str(key, v)
	case "license":
		fm.License = f.str(key, v)
	case "compatibility":
		fm.Compatibility = f.str(key, v)
	case "metadata":
		fm.Metadata = f.metadata(v)
	case "allowed-tools":
		fm.AllowedTools = f.list(key, v, splitTools)
	case "when_to_use":
		fm.WhenToUse = f.str(key, v)
	case "argument-hint":
		fm.ArgumentHint = f.argumentHint(v)
	case "arguments":
		fm.Arguments = f.list(key, v, strings.Fields)
	case "disable-model-invocation":
		fm.DisableModelInvocation = f.boolean(key, v)
	case "user-invocable":
		fm.UserInvocable = f.boolean(key, v)
	case "disallowed-tools":
		fm.DisallowedTools = f.list(key, v, splitTools)
	case "model":
		fm.Model = f.str(key, v)
	case "effort":
		fm.Effort = f.str(key, v)
	case "context":
		fm.Context = f.str(key, v)
	case "agent":
		fm.Agent = f.str(key, v)
	case "background":
		fm.Background = f.boolean(key, v)
	case "hooks":
		fm.Hooks = decodeAny(v)
		if v.Kind != yaml.MappingNode && !isNull(v) {
			f.typeIssue(v, key, "hooks must be a mapping of hook events to handlers, found %s", skillmd.Describe(v))
		}
	case "paths":
		fm.Paths = f.list(key, v, splitComma)
	case "shell":
		fm.Shell = f.str(key, v)
	case "display-name":
		fm.DisplayName = f.str(key, v)
	case "default-enabled":
		fm.DefaultEnabled = f.boolean(key, v)
	case "fallback":
		fm.Fallback = decodeAny(v)
	default:
		fm.Unknown = append(fm.Unknown, Field{Key: key, Line: line, Value: decodeAny(v)})
	}
}

func (f *SkillFile) issue(n *yaml.Node, rule ruling, format string, args ...any) {
	f.issues = append(f.issues, fieldIssue{line: f.fileLine(n.Line), msg: fmt.Sprintf(format, args...), rule: rule})
}

// inertKeys are documented keys no agent acts on (Claude Code, OpenCode
// and Cursor accept them and read nothing from them).
var inertKeys = map[string]bool{"license": true, "compatibility": true}

// typeIssue records a value of key that is not of its documented type.
// A name or description agents cannot read as a string makes Codex and
// OpenCode skip the skill (a list or mapping: no agent reads it); a key
// an agent acts on is ignored by that agent, which the message says; the
// strict policy refuses all of them.
func (f *SkillFile) typeIssue(n *yaml.Node, key, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	switch {
	case (key == "name" || key == "description") && n.Kind != yaml.ScalarNode:
		f.issue(n, ruleBroken, "%s", msg)
	case key == "name" || key == "description":
		f.issue(n, ruleSkipped, "%s: %s a skill whose %s is not a string", msg, agentsDo([]string{AgentNameCodex, AgentNameOpenCode}, "skips", "skip"), key)
	case inertKeys[key]:
		f.issue(n, ruleSpec, "%s", msg)
	default:
		f.issue(n, ruling{SeverityWarning, SeverityError}, "%s: %s it", msg, agentsDo(KeyAgents(key), "ignores", "ignore"))
	}
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// str reads a string field. A number or boolean is kept as its text (quote
// it); a list or mapping is read as nothing.
func (f *SkillFile) str(key string, v *yaml.Node) string {
	switch {
	case isNull(v):
		return ""
	case v.Kind == yaml.ScalarNode:
		if t := v.ShortTag(); t != "!!str" && t != "!!binary" {
			f.typeIssue(v, key, "%s should be a string, found the %s %s; quote it", key, skillmd.ScalarKind(v), v.Value)
		}
		return v.Value
	}
	f.typeIssue(v, key, "%s must be a string, found %s", key, skillmd.Describe(v))
	return ""
}

// argumentHint reads argument-hint. Claude Code's docs write it
// unquoted, "argument-hint: [pr-number]", which YAML reads as a list; the
// hint is then kept as the text the author wrote, "[pr-number]". Claude
// Code reads it so; only the strict policy (tools that expect the spec's
// strings) remarks on it.
func (f *SkillFile) argumentHint(v *yaml.Node) string {
	if v.Kind != yaml.SequenceNode {
		return f.str("argument-hint", v)
	}
	items := f.list("argument-hint", v, nil)
	hint := "[" + strings.Join(items, ", ") + "]"
	f.issue(v, ruleSpecNote, "argument-hint is a YAML list, the form Claude Code's docs use, read as the text %q; tools that expect a string may refuse it, quote it: 'argument-hint: %q'", hint, hint)
	return hint
}

// list reads a field given either as a string (split by split) or as a YAML
// list of strings.
func (f *SkillFile) list(key string, v *yaml.Node, split func(string) []string) []string {
	switch {
	case isNull(v):
		return nil
	case v.Kind == yaml.ScalarNode:
		return split(v.Value)
	case v.Kind == yaml.SequenceNode:
		out := make([]string, 0, len(v.Content))
		for _, item := range v.Content {
			if item.Kind != yaml.ScalarNode {
				f.typeIssue(item, key, "%s entries must be strings, found %s", key, skillmd.Describe(item))
				continue
			}
			out = append(out, item.Value)
		}
		return out
	}
	f.typeIssue(v, key, "%s must be a string or a list of strings, found %s", key, skillmd.Describe(v))
	return nil
}

// boolean reads a boolean field as Claude Code does: true, false, yes, no,
// on, off, 1 or 0 in any letter case, quoted or not.
func (f *SkillFile) boolean(key string, v *yaml.Node) *bool {
	if isNull(v) {
		return nil
	}
	if v.Kind == yaml.ScalarNode {
		var b bool
		switch strings.ToLower(v.Value) {
		case "true", "yes", "on", "1":
			b = true
		case "false", "no", "off", "0":
		default:
			f.typeIssue(v, key, "%s must be true or false, found %s", key, skillmd.Describe(v))
			return nil
		}
		return &b
	}
	f.typeIssue(v, key, "%s must be true or false, found %s", key, skillmd.Describe(v))
	return nil
}

// metadata reads the spec's string-to-string map. Codex reads one key of
// it, short-description, as a string, and skips a skill whose metadata is
// not a mapping or whose short-description is not a string; Claude Code
// drops a metadata that is not a mapping. The other values are for tools:
// the spec wants strings, agents load the skill whatever they are.
func (f *SkillFile) metadata(v *yaml.Node) map[string]string {
	if isNull(v) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		f.issue(v, ruleSkipped, "metadata must be a mapping of string keys to string values, found %s: %s skips a skill whose metadata is not a mapping, %s drops it",
			skillmd.Describe(v), AgentNameCodex, AgentNameClaudeCode)
		return nil
	}
	out := make(map[string]string, len(v.Content)/2)
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			f.issue(k, ruleSpec, "metadata keys must be strings, found %s", skillmd.Describe(k))
			continue
		}
		rule := ruleSpec
		if isShortDescription(k.Value) {
			rule = ruleSkipped
		}
		switch {
		case val.Kind != yaml.ScalarNode:
			f.issue(val, rule, "metadata.%s must be a string, found %s%s", k.Value, skillmd.Describe(val), codexSkips(rule))
		case isNull(val):
			f.issue(val, ruleSpec, "metadata.%s is empty; give it a string value or remove it", k.Value)
			out[k.Value] = ""
		default:
			if t := val.ShortTag(); t != "!!str" {
				f.issue(val, rule, "metadata.%s must be a string, found the %s %s; quote it%s", k.Value, skillmd.ScalarKind(val), val.Value, codexSkips(rule))
			}
			out[k.Value] = val.Value
		}
	}
	return out
}

// isShortDescription reports whether a metadata key is the one Codex reads.
func isShortDescription(k string) bool {
	return k == "short-description" || k == "shortDescription" || k == "short_description"
}

// codexSkips says so when the ruling is that Codex skips the skill.
func codexSkips(r ruling) string {
	if r == ruleSkipped {
		return " (" + AgentNameCodex + " skips a skill whose short-description is not a string)"
	}
	return ""
}

// decodeAny turns a node into plain Go values (maps, slices, strings,
// numbers) that encoding/json can write. It is safe because Parse refused
// aliases beforehand.
func decodeAny(n *yaml.Node) any {
	var v any
	if err := n.Decode(&v); err != nil {
		return n.Value
	}
	return jsonSafe(v)
}

// jsonSafe rewrites what YAML allows and JSON does not: mappings with
// non-string keys (their keys become text) and infinite or NaN numbers
// (kept as text), so frontmatter always appears in --json output.
func jsonSafe(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonSafe(e)
		}
		return x
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = jsonSafe(e)
		}
		return out
	case []any:
		for i, e := range x {
			x[i] = jsonSafe(e)
		}
		return x
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Sprint(x)
		}
	}
	return v
}

// Fields returns every top-level key with its value, the typed ones under
// their documented spelling and the others as decoded, for --json output:
// {"allowed-tools": ["Read"], "version": "1.2", ...}.
func (fm *Frontmatter) Fields() map[string]any {
	out := map[string]any{}
	typed := *fm
	typed.Unknown = nil
	if data, err := json.Marshal(typed); err == nil {
		_ = json.Unmarshal(data, &out)
	}
	for _, u := range fm.Unknown {
		out[u.Key] = u.Value
	}
	return out
}

// splitTools splits a tool list on blanks and commas outside parentheses:
// "Read, Bash(git diff *) Grep" is [Read, Bash(git diff *), Grep].
func splitTools(s string) []string {
	var out []string
	depth, start := 0, -1
	flush := func(end int) {
		if start >= 0 {
			out = append(out, s[start:end])
			start = -1
		}
	}
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ',' || r == ' ' || r == '\t' || r == '\n'):
			flush(i)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(s))
	return out
}

// splitComma splits a comma-separated list, trimming blanks.
func splitComma(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// UnknownKeys returns the unknown keys in sorted order.
func (fm *Frontmatter) UnknownKeys() []string {
	keys := make([]string, len(fm.Unknown))
	for i, u := range fm.Unknown {
		keys[i] = u.Key
	}
	sort.Strings(keys)
	return keys
}
