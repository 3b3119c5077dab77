package discover

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/skillmd"
)

// diagStrings renders diagnostics one per line for comparison.
func diagStrings(diags []Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	return b.String()
}

func TestValidateFileModes(t *testing.T) {
	tests := []struct {
		name     string
		folder   string
		in       string
		lenient  string
		strict   string
		wantName string // effective name in lenient mode
	}{
		{
			name: "valid", folder: "pdf",
			in:       "---\nname: pdf\ndescription: Read PDFs.\n---\nbody\n",
			wantName: "pdf",
		},
		{
			name: "missing name", folder: "pdf",
			in:       "---\ndescription: Read PDFs.\n---\nbody\n",
			lenient:  "s/SKILL.md:1: warning: name is missing; Claude Code uses the folder name \"pdf\", Codex, Gemini CLI, OpenCode and GitHub Copilot skip a skill without one; add 'name: pdf' to the frontmatter\n",
			strict:   "s/SKILL.md:1: error: name is missing; add 'name: pdf' to the frontmatter\n",
			wantName: "pdf",
		},
		{
			name: "name mismatch", folder: "pdf-tools",
			in:       "---\nname: pdf\ndescription: Read PDFs.\n---\nbody\n",
			lenient:  "s/SKILL.md:2: warning: name \"pdf\" does not match its folder \"pdf-tools\", which GitHub Copilot (VS Code) and OpenCode require; rename the folder or set 'name: pdf-tools'\n",
			strict:   "s/SKILL.md:2: error: name \"pdf\" does not match its folder \"pdf-tools\", which GitHub Copilot (VS Code) and OpenCode require; rename the folder or set 'name: pdf-tools'\n",
			wantName: "pdf",
		},
		{
			name: "uppercase name", folder: "Deploy",
			in:       "---\nname: Deploy_Prod\ndescription: d\n---\nbody\n",
			lenient:  "s/SKILL.md:2: error: name \"Deploy_Prod\" must be lowercase letters, digits and single hyphens (a-z, 0-9, '-'), not starting or ending with '-'; try \"deploy-prod\"\n",
			strict:   "s/SKILL.md:2: error: name \"Deploy_Prod\" must be lowercase letters, digits and single hyphens (a-z, 0-9, '-'), not starting or ending with '-'; try \"deploy-prod\"\n",
			wantName: "Deploy_Prod",
		},
		{
			name: "double hyphen", folder: "a--b",
			in:       "---\nname: a--b\ndescription: d\n---\nbody\n",
			lenient:  "s/SKILL.md:2: error: name \"a--b\" must be lowercase letters, digits and single hyphens (a-z, 0-9, '-'), not starting or ending with '-'; try \"a-b\"\n",
			strict:   "s/SKILL.md:2: error: name \"a--b\" must be lowercase letters, digits and single hyphens (a-z, 0-9, '-'), not starting or ending with '-'; try \"a-b\"\n",
			wantName: "a--b",
		},
		{
			name: "too long name", folder: strings.Repeat("a", 65),
			in:       "---\nname: " + strings.Repeat("a", 65) + "\ndescription: d\n---\nbody\n",
			lenient:  "s/SKILL.md:2: error: name is 65 characters, over the limit of 64; shorten it\n",
			strict:   "s/SKILL.md:2: error: name is 65 characters, over the limit of 64; shorten it\n",
			wantName: strings.Repeat("a", 65),
		},
		{
			name: "reserved word", folder: "claude-helper",
			in:       "---\nname: claude-helper\ndescription: d\n---\nbody\n",
			lenient:  "", // Claude Code loads it (Anthropic's own claude-api skill)
			strict:   "s/SKILL.md:2: error: name \"claude-helper\" contains the reserved word \"claude\", which Anthropic's API rejects; choose another name\n",
			wantName: "claude-helper",
		},
		{
			name: "missing description", folder: "pdf",
			in:       "---\nname: pdf\n---\nbody\n",
			lenient:  "s/SKILL.md:1: warning: description is missing; Claude Code uses the body's first paragraph, Codex, Gemini CLI, OpenCode and GitHub Copilot skip a skill without one; add 'description:' saying what it does and when to use it\n",
			strict:   "s/SKILL.md:1: error: description is missing; add 'description:' saying what the skill does and when to use it\n",
			wantName: "pdf",
		},
		{
			name: "xml in description", folder: "pdf",
			in:       "---\nname: pdf\ndescription: Use <b>always</b>.\n---\nbody\n",
			lenient:  "", // every agent loads it
			strict:   "s/SKILL.md:3: error: description contains the XML tag <b>, which Anthropic's validators reject; reword it\n",
			wantName: "pdf",
		},
		{
			name: "long description and compatibility", folder: "pdf",
			in:       "---\nname: pdf\ndescription: " + strings.Repeat("d", 1025) + "\ncompatibility: " + strings.Repeat("c", 501) + "\n---\nbody\n",
			lenient:  "s/SKILL.md:3: warning: description is 1025 characters, over the Agent Skills spec's limit of 1024: Claude Code loads it, Codex skips a skill whose description is that long; shorten it and move detail into the body\n",
			strict:   "s/SKILL.md:3: error: description is 1025 characters, over the limit of 1024; shorten it and move detail into the body\ns/SKILL.md:4: error: compatibility is 501 characters, over the limit of 500; shorten it\n",
			wantName: "pdf",
		},
		{
			name: "unknown and claude keys", folder: "pdf",
			in:       "---\nname: pdf\ndescription: d\nversion: 2\nmodel: haiku\n---\nbody\n",
			lenient:  "", // agents ignore a key they do not know
			strict:   "s/SKILL.md:4: error: unknown frontmatter key \"version\"; the Agent Skills spec allows name, description, license, compatibility, metadata, allowed-tools; move it under metadata: or remove it\ns/SKILL.md:5: warning: key \"model\" is not part of the Agent Skills spec: Claude Code reads it, other agents ignore it\n",
			wantName: "pdf",
		},
		{
			name: "metadata types", folder: "pdf",
			in:       "---\nname: pdf\ndescription: d\nmetadata:\n  version: 1.0\n  tags: [a, b]\n---\nbody\n",
			lenient:  "", // agents load any metadata; the spec wants strings
			strict:   "s/SKILL.md:5: error: metadata.version must be a string, found the number 1.0; quote it\ns/SKILL.md:6: error: metadata.tags must be a string, found a list\n",
			wantName: "pdf",
		},
		{
			name: "wrong field types", folder: "pdf",
			in:       "---\nname: pdf\ndescription: [a, b]\nuser-invocable: maybe\n---\nbody\n",
			lenient:  "s/SKILL.md:3: error: description must be a string, found a list\ns/SKILL.md:4: warning: user-invocable must be true or false, found the string \"maybe\": Claude Code and GitHub Copilot ignore it\n",
			strict:   "s/SKILL.md:3: error: description must be a string, found a list\ns/SKILL.md:4: error: user-invocable must be true or false, found the string \"maybe\": Claude Code and GitHub Copilot ignore it\ns/SKILL.md:4: warning: key \"user-invocable\" is not part of the Agent Skills spec: Claude Code and GitHub Copilot read it, other agents ignore it\n",
			wantName: "pdf",
		},
		{
			name: "body checks", folder: "pdf",
			in:       "---\nname: pdf\ndescription: d\n---\n" + strings.Repeat("line\n", 501),
			lenient:  "", // agents load it whole
			strict:   "s/SKILL.md:5: warning: body is 501 lines, over the recommended 500; move detail into references/ files\n",
			wantName: "pdf",
		},
		{
			name: "what Claude Code documents: background with context fork, booleans as it reads them", folder: "pdf",
			in:       "---\nname: pdf\ndescription: d\ncontext: fork\nbackground: no\ndisable-model-invocation: Yes\n---\nbody\n",
			lenient:  "",
			strict:   "s/SKILL.md:4: warning: key \"context\" is not part of the Agent Skills spec: Claude Code and GitHub Copilot read it, other agents ignore it\ns/SKILL.md:5: warning: key \"background\" is not part of the Agent Skills spec: Claude Code reads it, other agents ignore it\ns/SKILL.md:6: warning: key \"disable-model-invocation\" is not part of the Agent Skills spec: Claude Code, GitHub Copilot and Cursor read it, other agents ignore it\n",
			wantName: "pdf",
		},
		{
			name: "a near miss of a documented key is ignored by its agents", folder: "pdf",
			in:       "---\nname: pdf\ndescription: d\nuser-invokable: false\nlicence: MIT\n---\nbody\n",
			lenient:  "s/SKILL.md:4: warning: unknown frontmatter key \"user-invokable\": Claude Code and GitHub Copilot ignore it; did you mean \"user-invocable\"?\ns/SKILL.md:5: warning: unknown frontmatter key \"licence\": Claude Code, GitHub Copilot, Cursor and OpenCode ignore it; did you mean \"license\"?\n",
			strict:   "s/SKILL.md:4: error: unknown frontmatter key \"user-invokable\": Claude Code and GitHub Copilot ignore it; did you mean \"user-invocable\"?\ns/SKILL.md:5: error: unknown frontmatter key \"licence\": Claude Code, GitHub Copilot, Cursor and OpenCode ignore it; did you mean \"license\"?\n",
			wantName: "pdf",
		},
		{
			name: "what Codex skips: metadata that is no mapping, a short-description that is no string", folder: "pdf",
			in:       "---\nname: pdf\ndescription: d\nmetadata:\n  short-description: [a]\n---\nbody\n",
			lenient:  "s/SKILL.md:5: warning: metadata.short-description must be a string, found a list (Codex skips a skill whose short-description is not a string)\n",
			strict:   "s/SKILL.md:5: error: metadata.short-description must be a string, found a list (Codex skips a skill whose short-description is not a string)\n",
			wantName: "pdf",
		},
		{
			name: "Claude Code cuts description and when_to_use in its listing", folder: "pdf",
			in:       "---\nname: pdf\ndescription: " + strings.Repeat("d", 1000) + "\nwhen_to_use: " + strings.Repeat("w", 600) + "\n---\nbody\n",
			lenient:  "s/SKILL.md:3: warning: description and when_to_use are 1600 characters: Claude Code cuts them to 1536 in the skill listing it shows the model; put the key use cases first\n",
			strict:   "s/SKILL.md:3: warning: description and when_to_use are 1600 characters: Claude Code cuts them to 1536 in the skill listing it shows the model; put the key use cases first\ns/SKILL.md:4: warning: key \"when_to_use\" is not part of the Agent Skills spec: Claude Code reads it, other agents ignore it\n",
			wantName: "pdf",
		},
		{
			name: "parse error", folder: "pdf",
			in:      "no frontmatter\n",
			lenient: "s/SKILL.md:1: error: missing YAML frontmatter: the file must start with a '---' line, then name: and description:, then '---'\n",
			strict:  "s/SKILL.md:1: error: missing YAML frontmatter: the file must start with a '---' line, then name: and description:, then '---'\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sf, diags := ValidateFile("s/SKILL.md", tt.folder, []byte(tt.in), Lenient)
			if got := diagStrings(diags); got != tt.lenient {
				t.Errorf("lenient diagnostics:\n%s\nwant:\n%s", got, tt.lenient)
			}
			if sf != nil && EffectiveName(sf, tt.folder, Lenient) != tt.wantName {
				t.Errorf("effective name %q, want %q", EffectiveName(sf, tt.folder, Lenient), tt.wantName)
			}
			_, diags = ValidateFile("s/SKILL.md", tt.folder, []byte(tt.in), Strict)
			if got := diagStrings(diags); got != tt.strict {
				t.Errorf("strict diagnostics:\n%s\nwant:\n%s", got, tt.strict)
			}
		})
	}
}

func TestDiagnosticString(t *testing.T) {
	d := Diagnostic{Severity: SeverityError, File: "a/SKILL.md", Line: 3, Message: "bad"}
	if got := d.String(); got != "a/SKILL.md:3: error: bad" {
		t.Errorf("got %q", got)
	}
	d.Line, d.Severity = 0, SeverityWarning
	if got := d.String(); got != "a/SKILL.md: warning: bad" {
		t.Errorf("got %q", got)
	}
	if HasErrors([]Diagnostic{d}) || !HasErrors([]Diagnostic{d, {Severity: SeverityError}}) {
		t.Error("HasErrors is wrong")
	}
	if got := (&skillmd.ParseError{File: "x/SKILL.md", Line: 2, Msg: "m"}).Error(); got != "x/SKILL.md:2: m" {
		t.Errorf("got %q", got)
	}
}

func TestLoadSkillDir(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return filepath.Dir(p)
	}
	good := write("pdf/SKILL.md", "---\nname: pdf\ndescription: Read PDFs.\n---\nbody\n")
	s, diags, err := LoadSkillDir(good, Strict)
	if err != nil || len(diags) != 0 || s == nil {
		t.Fatalf("LoadSkillDir(good) = %v, %v, %v", s, diags, err)
	}
	if s.Name != "pdf" || s.Description != "Read PDFs." || s.Dir != good || s.Path() != filepath.Join(good, "SKILL.md") || s.BodyHash != BodyHash([]byte("body\n")) {
		t.Errorf("unexpected skill %+v", s)
	}

	lower := write("lower/skill.md", "---\nname: lower\ndescription: d\n---\n")
	s, diags, err = LoadSkillDir(lower, Lenient)
	if err != nil || s != nil || len(diags) != 1 || !strings.Contains(diags[0].Message, "found skill.md, rename it to SKILL.md") {
		t.Errorf("misnamed SKILL.md: %v %v %v", s, diags, err)
	}

	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	_, diags, _ = LoadSkillDir(empty, Lenient)
	if len(diags) != 1 || diags[0].String() != filepath.Join(empty, "SKILL.md")+": error: missing SKILL.md: a skill folder needs a SKILL.md with name and description frontmatter" {
		t.Errorf("missing SKILL.md: %v", diags)
	}

	big := write("big/SKILL.md", "---\nname: big\n---\n"+strings.Repeat("x", MaxFileSize))
	_, diags, _ = LoadSkillDir(big, Lenient)
	if len(diags) != 1 || !strings.Contains(diags[0].Message, "over the 1048576-byte limit") {
		t.Errorf("oversized SKILL.md: %v", diags)
	}

	if _, _, err := LoadSkillDir(filepath.Join(root, "absent"), Lenient); err == nil {
		t.Error("LoadSkillDir of a missing folder succeeded")
	}
	if _, _, err := LoadSkillDir(filepath.Join(good, "SKILL.md"), Lenient); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("LoadSkillDir of a file: %v", err)
	}
}
