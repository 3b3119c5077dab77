package discover_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillstore/skillstore/discover"
)

func ExampleParse() {
	sf, err := discover.Parse([]byte("---\nname: deploy\ndescription: Ship the service.\nallowed-tools: Read Bash(make *)\n---\n# Deploy\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sf.Frontmatter.Name, "|", sf.Frontmatter.Description, "|", sf.Frontmatter.AllowedTools)
	fmt.Printf("body starts on line %d: %q\n", sf.BodyLine, sf.Body)
	// Output:
	// deploy | Ship the service. | [Read Bash(make *)]
	// body starts on line 6: "# Deploy\n"
}

func ExampleValidateFile() {
	data := []byte("---\nname: Deploy\ndescription: Ship the service.\nowner: ops\n---\nRun make deploy.\n")
	for _, mode := range []discover.Mode{discover.Lenient, discover.Strict} {
		_, diags := discover.ValidateFile("deploy/SKILL.md", "deploy", data, mode)
		fmt.Println(mode)
		for _, d := range diags {
			fmt.Println(" ", d)
		}
	}
	// Output:
	// lenient
	//   deploy/SKILL.md:2: warning: name "Deploy" is not in the spec's form (a-z, 0-9 and single '-'): Claude Code loads it, GitHub Copilot (VS Code) and OpenCode skip it, and the store names it "deploy" after its folder; set 'name: deploy'
	// strict
	//   deploy/SKILL.md:2: error: name "Deploy" must be lowercase letters, digits and single hyphens (a-z, 0-9, '-'), not starting or ending with '-'; try "deploy"
	//   deploy/SKILL.md:4: error: unknown frontmatter key "owner"; the Agent Skills spec allows name, description, license, compatibility, metadata, allowed-tools; move it under metadata: or remove it
}

func ExampleDiscover() {
	// Search one root given on the command line; FromEnvironment would add
	// $SKILLSTORE_PATH, the project, the user's and the system's roots.
	opts := discover.Options{CLIDirs: []string{filepath.Join("..", "testdata", "skills", "superpowers")}}
	res, err := discover.Discover(context.Background(), opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range res.Active() {
		fmt.Println(s.QualifiedName(), s.Layer, s.RelDir)
	}
	// Output:
	// brainstorming cli skills/brainstorming
	// test-driven-development cli skills/test-driven-development
}

func ExampleWritePrompt() {
	s, _, err := discover.LoadSkillDir(filepath.Join("..", "testdata", "skills", "anthropic", "skills", "docx"), discover.Lenient)
	if err != nil {
		fmt.Println(err)
		return
	}
	s.Dir = "/skills/docx" // a fixed location for the example's output
	discover.WritePrompt(os.Stdout, []*discover.Skill{s})
	// Output:
	// <available_skills>
	// <skill>
	// <name>
	// docx
	// </name>
	// <description>
	// Create and edit Word documents (.docx): tracked changes, comments, formatting. Use when the user asks for a .docx file.
	// </description>
	// <location>
	// /skills/docx/SKILL.md
	// </location>
	// </skill>
	// </available_skills>
}

func ExampleLocate() {
	// The fixture trees hold three public layouts; Locate lists their skill
	// folders without parsing them, canonical copies first: superpowers is
	// a plugin (it has .claude-plugin), the others are plain folders here.
	found, diags, err := discover.Locate(context.Background(), filepath.Join("..", "testdata", "skills"), discover.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range found {
		fmt.Println(f.Copy, f.RelDir)
	}
	fmt.Println(len(diags), "warnings")
	// Output:
	// repository superpowers/skills/brainstorming
	// repository superpowers/skills/test-driven-development
	// other anthropic/skills/docx
	// other anthropic/skills/pdf
	// other anthropic/skills/skill-creator
	// other openai/skills/.curated/gh-fix-ci
	// other openai/skills/.system/skill-installer
	// 0 warnings
}
