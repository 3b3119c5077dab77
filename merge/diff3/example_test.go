package diff3_test

import (
	"fmt"

	"github.com/skillstore/skillstore/merge/diff3"
)

// Changes on different lines merge cleanly; changes to the same line
// conflict, here in git's default (plain) style with custom labels.
func Example() {
	base := []byte("title\nstep one\nstep two\nstep three\n")
	ours := []byte("Title\nstep one\nstep 2\nstep three\n")
	theirs := []byte("title\nstep one\nstep II\nstep three, done\n")

	res, err := diff3.Merge(base, ours, theirs, diff3.Options{
		Style:  diff3.Plain,
		Labels: diff3.Labels{Ours: "local", Theirs: "upstream"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Print(string(res.Merged))
	c := res.Conflicts[0]
	fmt.Printf("%d conflict: local line %d %q, upstream line %d %q\n",
		len(res.Conflicts), c.Ours.Start, c.Ours.Text, c.Theirs.Start, c.Theirs.Text)
	// Output:
	// Title
	// step one
	// <<<<<<< local
	// step 2
	// step three
	// =======
	// step II
	// step three, done
	// >>>>>>> upstream
	// 1 conflict: local line 3 "step 2\nstep three\n", upstream line 3 "step II\nstep three, done\n"
}
