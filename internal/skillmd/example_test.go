package skillmd_test

import (
	"fmt"

	"github.com/skillstore/skillstore/internal/skillmd"
)

func ExampleBody() {
	body, err := skillmd.Body([]byte("---\nname: deploy\ndescription: Ship it.\n---\n# Deploy\nRun make deploy.\n"))
	fmt.Printf("%q %v\n", body, err)
	// Output:
	// "# Deploy\nRun make deploy.\n" <nil>
}

// ExampleSetName renames a skill the way a flat target does: only the
// frontmatter's top-level name entry changes, the line break of the file
// is kept.
func ExampleSetName() {
	in := "---\r\nname: >-\r\n  access\r\ndescription: Grants access.\r\n---\r\nname: in the body stays\r\n"
	fmt.Printf("%q\n", skillmd.SetName([]byte(in), "chat-access"))
	// Output:
	// "---\r\nname: chat-access\r\ndescription: Grants access.\r\n---\r\nname: in the body stays\r\n"
}
