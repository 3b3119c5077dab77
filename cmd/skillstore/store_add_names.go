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
	"--into PLUGIN:NAME as that skill's next version (an edited copy of it). A managed\n" +
	"skill of the name takes the folder as its next version. --as and --into take one folder."

func nameFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "as", Usage: "record the folder as the managed skill `NAME` (one folder)"},
		&cli.StringFlag{Name: "into", Usage: "record the folder as the next version of the existing skill `SKILL` (PLUGIN:NAME or a unique NAME; one folder)"},
	}
}

// nameOptions reads --as and --into, which name the skill of exactly one
// folder (folders is how many the command was given or found).
func nameOptions(c *cli.Context, folders int) (as, into string, err error) {
	as, into = c.String("as"), c.String("into")
	switch {
	case as == "" && into == "":
		return "", "", nil
	case as != "" && into != "":
		return "", "", usageErrorf("%s: --as and --into cannot be used together: --as makes a managed skill, --into names an existing one", c.Command.Name)
	case folders != 1:
		return "", "", usageErrorf("%s: --as and --into name the skill of one folder, and there are %d", c.Command.Name, folders)
	}
	return as, into, nil
}
