package main

import (
	"github.com/urfave/cli/v2"
)

// addNamesHelp is how add and import pick the skill a folder becomes a
// version of (store.AddOptions.As, Into; store/add_name.go).
const addNamesHelp = "Names: a folder is a version of the skill its SKILL.md names. When only\n" +
	"plugins' skills have that name (PLUGIN:NAME), the folder is recorded onto one only if\n" +
	"its files are those of one of its versions; otherwise it is refused with the choices:\n" +
	"--as NEWNAME records it as the managed skill NEWNAME (SKILL.md's name set to it),\n" +
	"--into PLUGIN:NAME as that skill's next version (an edited copy of it; repeatable,\n" +
	"each folder going onto the --into skill of its name). A managed skill of the name\n" +
	"takes the folder as its next version. --as takes one folder."

func nameFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "as", Usage: "record the folder as the managed skill `NAME` (one folder); --as PLUGIN:NAME is --into PLUGIN:NAME"},
		&cli.StringSliceFlag{Name: "into", Usage: "record the folder of SKILL's name (any folder, when there is one) as the next version of the existing skill `SKILL` (PLUGIN:NAME or a unique NAME; repeatable)"},
	}
}

// nameOptions reads --as, which names the skill of exactly one folder
// (folders is how many the command was given or found), and --into.
func nameOptions(c *cli.Context, folders int) (as string, into []string, err error) {
	as, into = c.String("as"), c.StringSlice("into")
	switch {
	case as == "":
		return "", into, nil
	case len(into) > 0:
		return "", nil, usageErrorf("%s: --as and --into cannot be used together: --as makes a managed skill, --into names an existing one", c.Command.Name)
	case folders != 1:
		return "", nil, usageErrorf("%s: --as names the skill of one folder, and there are %d", c.Command.Name, folders)
	}
	return as, nil, nil
}
