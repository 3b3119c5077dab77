package merge_test

import (
	"fmt"

	"github.com/skillstore/skillstore/merge"
)

// A local edit and an upstream change to the same line conflict; the
// conflict is written with git's diff3 markers and described structurally.
func Example() {
	base := []byte("# Deploy\nRun make deploy.\nCheck the logs.\n")
	ours := []byte("# Deploy\nRun make deploy ENV=staging.\nCheck the logs.\n")
	theirs := []byte("# Deploy\nRun ./deploy.sh.\nCheck the logs.\n")

	res, err := merge.Text(base, ours, theirs, merge.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Print(string(res.Merged))
	for _, c := range res.Conflicts {
		fmt.Printf("conflict: ours line %d, base line %d, theirs line %d\n", c.Ours.Start, c.Base.Start, c.Theirs.Start)
	}
	// Output:
	// # Deploy
	// <<<<<<< ours
	// Run make deploy ENV=staging.
	// ||||||| base
	// Run make deploy.
	// =======
	// Run ./deploy.sh.
	// >>>>>>> theirs
	// Check the logs.
	// conflict: ours line 2, base line 2, theirs line 2
}

// SkillMD merges the frontmatter key by key: upstream's new description and
// the local allowed-tools are both kept, where git merge-file would conflict
// on the two adjacent lines.
func ExampleSkillMD() {
	base := []byte("---\nname: deploy\ndescription: Deploy the app.\n---\nBody.\n")
	ours := []byte("---\nname: deploy\ndescription: Deploy the app.\nallowed-tools: Bash\n---\nBody.\n")
	theirs := []byte("---\nname: deploy\ndescription: Deploy the app to production.\n---\nBody.\n")

	res, err := merge.SkillMD(base, ours, theirs, merge.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Print(string(res.Merged))
	fmt.Println("clean:", res.Clean())
	// Output:
	// ---
	// name: deploy
	// description: Deploy the app to production.
	// allowed-tools: Bash
	// ---
	// Body.
	// clean: true
}

// MergeTrees merges skill folders path by path.
func ExampleMergeTrees() {
	base := merge.Tree{"run.sh": {Data: []byte("echo v1\n")}}
	ours := merge.Tree{"run.sh": {Mode: merge.Executable, Data: []byte("echo v1\n")}}
	theirs := merge.Tree{
		"run.sh":   {Data: []byte("echo v2\n")},
		"notes.md": {Data: []byte("new upstream notes\n")},
	}
	res, err := merge.MergeTrees(base, ours, theirs, merge.Options{})
	if err != nil {
		panic(err)
	}
	run := res.Tree["run.sh"]
	fmt.Printf("run.sh: %s %q\n", run.Mode, run.Data)
	fmt.Printf("notes.md: %q\n", res.Tree["notes.md"].Data)
	fmt.Println("clean:", res.Clean())
	// Output:
	// run.sh: executable "echo v2\n"
	// notes.md: "new upstream notes\n"
	// clean: true
}

// Markdown resolves what git leaves when both sides append: upstream's line
// stays in its section, the local section follows whole, and the resolution
// is listed for review.
func ExampleMarkdown() {
	base := []byte("# Deploy\n\nRun make deploy.\n")
	ours := []byte("# Deploy\n\nRun make deploy.\n\n## Local notes\n\nStaging first.\n")
	theirs := []byte("# Deploy\n\nRun make deploy.\nThen watch the error rate.\n")

	res, err := merge.Markdown(base, ours, theirs, merge.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Print(string(res.Merged))
	for _, r := range res.Resolutions {
		fmt.Printf("resolved: line %d, %d lines, rule %s\n", r.Line, r.Count, r.Rule)
	}
	// Output:
	// # Deploy
	//
	// Run make deploy.
	// Then watch the error rate.
	//
	// ## Local notes
	//
	// Staging first.
	// resolved: line 4, 5 lines, rule sections
}
