package remote_test

import (
	"fmt"

	"github.com/skillstore/skillstore/store/remote"
)

// Every URL skillstore prints goes through RedactURL: a password or a
// token in a remote URL never reaches the terminal or a log.
func ExampleRedactURL() {
	fmt.Println(remote.RedactURL("https://alice:s3cret@git.example.com/team/skills.git"))
	fmt.Println(remote.RedactURL("https://ghp_0123456789@github.com/team/skills.git"))
	fmt.Println(remote.RedactURL("git@github.com:team/skills.git"))
	// Output:
	// https://alice:***@git.example.com/team/skills.git
	// https://***@github.com/team/skills.git
	// git@github.com:team/skills.git
}
