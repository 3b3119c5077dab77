package reload_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/reload"
)

func skill(body string) reload.Skill {
	return reload.Skill{Name: "deploy", Files: []skillfs.File{
		{Path: "SKILL.md", Data: []byte("---\nname: deploy\ndescription: Deploys.\n---\n" + body)},
		{Path: "scripts/run.sh", Mode: skillfs.Executable, Data: []byte("#!/bin/sh\necho deploy\n")},
	}}
}

// Export writes skills into an agent's skills folder and says, per skill,
// whether the agent can re-read it (hot) or must restart (cold).
func ExampleExport() {
	tmp, err := os.MkdirTemp("", "reload-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	target := filepath.Join(tmp, "skills")
	ctx := context.Background()

	for _, body := range []string{"Run scripts/run.sh.\n", "Run scripts/run.sh, then check the logs.\n"} {
		rep, err := reload.Export(ctx, target, []reload.Skill{skill(body)}, reload.ExportOptions{})
		if err != nil {
			log.Fatal(err)
		}
		for _, r := range rep.Results {
			fmt.Println(r.Skill, r.Action, r.Paths)
		}
	}
	// Output:
	// deploy cold [SKILL.md scripts/run.sh]
	// deploy hot [SKILL.md]
}

// Classify compares two trees of a skill folder.
func ExampleClassify() {
	v1, _ := reload.NewTree(skill("v1\n").Files)
	v2, _ := reload.NewTree(skill("v2\n").Files)
	fmt.Println(reload.Classify(v1, v2).Class)
	fmt.Println(reload.Classify(nil, v2).Class)
	// Output:
	// hot
	// cold
}
