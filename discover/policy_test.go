package discover

import (
	"strings"
	"testing"
)

// TestCheckPolicy is the validation policy as a table: for each SKILL.md,
// whether each mode accepts it, the name agents use, and the rule behind
// every warning (matched by a fragment of its message).
func TestCheckPolicy(t *testing.T) {
	longDesc := strings.Repeat("Use the Claude API. ", 53) + "Done now." // 1,069 runes
	longDesc = longDesc[:1068]
	tests := []struct {
		name          string
		folder        string
		in            string
		lenientOK     bool
		strictOK      bool
		wantName      string
		lenientWarns  []string // fragments, one per warning, in order
		strictErrFrag string   // a fragment of one strict error, when refused
	}{
		{
			name: "spec-clean", folder: "pdf",
			in:        "---\nname: pdf\ndescription: Read PDFs.\n---\nbody\n",
			lenientOK: true, strictOK: true, wantName: "pdf",
		},
		{
			name: "claude-api shape: 1,068-character description, no name, argument-hint list", folder: "claude-api",
			in:        "---\ndescription: " + longDesc + "\nargument-hint: [model]\n---\nbody\n",
			lenientOK: true, strictOK: false, wantName: "claude-api",
			lenientWarns: []string{
				"name is missing; Claude Code uses the folder name \"claude-api\", Codex, Gemini CLI, OpenCode and GitHub Copilot skip",
				"description is 1068 characters, over the Agent Skills spec's limit of 1024: Claude Code loads it, Codex skips a skill whose description is that long",
			},
			strictErrFrag: "description is 1068 characters, over the limit of 1024",
		},
		{
			name: "description of exactly 1,024 characters", folder: "edge",
			in:        "---\nname: edge\ndescription: " + strings.Repeat("d", MaxDescriptionLen) + "\n---\nbody\n",
			lenientOK: true, strictOK: true, wantName: "edge",
		},
		{
			name: "missing description", folder: "nodesc",
			in:        "---\nname: nodesc\n---\nbody\n",
			lenientOK: true, strictOK: false, wantName: "nodesc",
			lenientWarns:  []string{"description is missing; Claude Code uses the body's first paragraph, Codex, Gemini CLI, OpenCode and GitHub Copilot skip"},
			strictErrFrag: "description is missing",
		},
		{
			name: "argument-hint quoted is no finding", folder: "pr",
			in:        "---\nname: pr\ndescription: Review a PR.\nargument-hint: \"[pr-number]\"\n---\nbody\n",
			lenientOK: true, strictOK: true, wantName: "pr",
		},
		{
			// Claude Code's docs write it so; only the strict policy remarks on it.
			name: "argument-hint list alone", folder: "pr",
			in:        "---\nname: pr\ndescription: Review a PR.\nargument-hint: [pr-number]\n---\nbody\n",
			lenientOK: true, strictOK: true, wantName: "pr",
		},
		{
			// What an agent documents is no finding: Claude Code's background
			// (for context: fork), VS Code's argument-hint, user-invocable,
			// disable-model-invocation, Codex's metadata.short-description.
			name: "every key an agent documents", folder: "fork",
			in: "---\nname: fork\ndescription: Forks.\ncontext: fork\nbackground: false\nagent: Explore\n" +
				"argument-hint: \"[dir]\"\nuser-invocable: true\ndisable-model-invocation: false\nlicense: MIT\n" +
				"compatibility: git\nmetadata:\n  short-description: Forks.\n  tags: [a, b]\n---\nbody\n",
			lenientOK: true, strictOK: false, wantName: "fork",
			strictErrFrag: "metadata.tags must be a string, found a list",
		},
		{
			// A catalog skill with a YAML list under metadata: agents load
			// it, the spec wants strings.
			name: "a list under metadata", folder: "pdf",
			in:        "---\nname: pdf\ndescription: Read PDFs.\nmetadata:\n  keywords:\n    - pdf\n    - documents\n---\nbody\n",
			lenientOK: true, strictOK: false, wantName: "pdf",
			strictErrFrag: "metadata.keywords must be a string, found a list",
		},
		{
			name: "description of the wrong type is refused by both", folder: "x",
			in:        "---\nname: x\ndescription: {a: b}\n---\nbody\n",
			lenientOK: false, strictOK: false, wantName: "x",
			strictErrFrag: "description must be a string",
		},
		{
			name: "name out of the spec's form: lenient takes the folder's name, strict refuses", folder: "deploy",
			in:        "---\nname: Deploy Prod\ndescription: d\n---\nbody\n",
			lenientOK: true, strictOK: false, wantName: "deploy",
			lenientWarns:  []string{`name "Deploy Prod" is not in the spec's form`},
			strictErrFrag: "must be lowercase letters",
		},
		{
			name: "a name out of form in a folder whose name is no better is refused by both", folder: "Deploy Prod",
			in:        "---\nname: Deploy Prod\ndescription: d\n---\nbody\n",
			lenientOK: false, strictOK: false, wantName: "Deploy Prod",
			strictErrFrag: "must be lowercase letters",
		},
		{
			name: "no frontmatter is refused by both", folder: "x",
			in:        "just text\n",
			lenientOK: false, strictOK: false,
			strictErrFrag: "missing YAML frontmatter",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lv := Check("s/SKILL.md", tt.folder, []byte(tt.in), Lenient)
			if lv.Accepted() != tt.lenientOK {
				t.Fatalf("lenient accepted=%v, want %v:\n%s", lv.Accepted(), tt.lenientOK, diagStrings(lv.Diagnostics))
			}
			if lv.Name != tt.wantName {
				t.Errorf("lenient name %q, want %q", lv.Name, tt.wantName)
			}
			if tt.lenientOK {
				warns := lv.Warnings()
				if len(warns) != len(tt.lenientWarns) {
					t.Fatalf("lenient warnings:\n%swant %d: %q", diagStrings(warns), len(tt.lenientWarns), tt.lenientWarns)
				}
				for i, w := range warns {
					if !strings.Contains(w.Message, tt.lenientWarns[i]) {
						t.Errorf("warning %d = %q, want it to contain %q", i, w.Message, tt.lenientWarns[i])
					}
				}
				if len(lv.Errors()) != 0 {
					t.Errorf("accepted with errors: %s", diagStrings(lv.Errors()))
				}
			}
			sv := Check("s/SKILL.md", tt.folder, []byte(tt.in), Strict)
			if sv.Accepted() != tt.strictOK {
				t.Fatalf("strict accepted=%v, want %v:\n%s", sv.Accepted(), tt.strictOK, diagStrings(sv.Diagnostics))
			}
			if !tt.strictOK && !strings.Contains(diagStrings(sv.Errors()), tt.strictErrFrag) {
				t.Errorf("strict errors:\n%sdo not mention %q", diagStrings(sv.Errors()), tt.strictErrFrag)
			}
			// Strict never accepts what lenient refuses.
			if sv.Accepted() && !lv.Accepted() {
				t.Errorf("strict accepts what lenient refuses")
			}
		})
	}
}
