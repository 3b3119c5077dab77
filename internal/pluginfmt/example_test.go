package pluginfmt_test

import (
	"fmt"
	"testing/fstest"

	"github.com/skillstore/skillstore/internal/pluginfmt"
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
	layout, err := pluginfmt.ReadLayout(fsys, "")
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

// ExampleRead reads an openai/skills-style catalog: no manifest, skills in
// hidden category folders under skills/. Every category is included, and
// Kind says which layout was recognised.
func ExampleRead() {
	fsys := fstest.MapFS{
		"skills/.curated/gh-fix-ci/SKILL.md":         {Data: []byte("---\nname: gh-fix-ci\n---\n")},
		"skills/.system/skill-installer/SKILL.md":    {Data: []byte("---\nname: skill-installer\n---\n")},
		"skills/.experimental/notion-draft/SKILL.md": {Data: []byte("---\nname: notion-draft\n---\n")},
		"README.md": {Data: []byte("a catalog\n")},
	}
	layout, err := pluginfmt.Read(fsys, pluginfmt.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := layout.Plugins[0]
	fmt.Println("layout:", p.Kind)
	for _, s := range p.Skills {
		fmt.Printf("%s at %s\n", s.Name, s.Path)
	}
	// Output:
	// layout: catalog
	// gh-fix-ci at skills/.curated/gh-fix-ci
	// notion-draft at skills/.experimental/notion-draft
	// skill-installer at skills/.system/skill-installer
}
