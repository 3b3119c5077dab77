package manifest_test

import (
	"fmt"
	"testing/fstest"

	"github.com/skillstore/skillstore/store/manifest"
)

// ExampleReadLayout reads a marketplace shaped like anthropics/skills:
// two plugins sharing one skills/ folder, each listing its skills.
func ExampleReadLayout() {
	fsys := fstest.MapFS{
		".claude-plugin/marketplace.json": {Data: []byte(`{"name": "anthropic-agent-skills", "plugins": [
			{"name": "document-skills", "source": "./", "skills": ["./skills/pdf", "./skills/xlsx"]},
			{"name": "example-skills", "source": "./", "skills": ["./skills/algorithmic-art"]}]}`)},
		"skills/pdf/SKILL.md":             {Data: []byte("---\nname: pdf\n---\n")},
		"skills/xlsx/SKILL.md":            {Data: []byte("---\nname: xlsx\n---\n")},
		"skills/algorithmic-art/SKILL.md": {Data: []byte("---\nname: algorithmic-art\n---\n")},
	}
	layout, err := manifest.ReadLayout(fsys, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range layout.Plugins {
		for _, s := range p.Skills {
			fmt.Printf("%s: %s at %s\n", p.Name, s.Name, s.Path)
		}
	}
	// Output:
	// document-skills: pdf at skills/pdf
	// document-skills: xlsx at skills/xlsx
	// example-skills: algorithmic-art at skills/algorithmic-art
}
