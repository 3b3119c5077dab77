package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	addScriptCmd("manyskills", cmdManySkills)
}

// manyskills DIR PREFIX N [CHARS] writes N skill folders DIR/PREFIX-001 ...
// named as their folders, for scenarios about many skills. With CHARS,
// skill i's description is CHARS+i characters long (each a different
// length, as real ones are); else it is one short sentence.
func cmdManySkills(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 || len(args) > 4 {
		ts.Fatalf("usage: manyskills DIR PREFIX N [CHARS]")
	}
	n, err := strconv.Atoi(args[2])
	ts.Check(err)
	chars := 0
	if len(args) == 4 {
		chars, err = strconv.Atoi(args[3])
		ts.Check(err)
	}
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("%s-%03d", args[1], i)
		desc := "Does task " + name + " when the user asks for it."
		if chars > 0 {
			desc += strings.Repeat(" More detail.", (chars+i)/13+1)
			desc = strings.TrimSpace(desc[:chars+i])
		}
		md := fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\nSteps of %s.\n", name, desc, name)
		dir := filepath.Join(ts.MkAbs(args[0]), name)
		ts.Check(os.MkdirAll(dir, 0o755))
		ts.Check(os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644))
	}
}
