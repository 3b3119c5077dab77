package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
)

// pluginLinkCommand is 'plugin link': a managed skill becomes a plugin's.
func pluginLinkCommand() *cli.Command {
	return &cli.Command{
		Name:      "link",
		Usage:     "make a managed skill the plugin's skill of the same name, history kept",
		ArgsUsage: "PLUGIN SKILL",
		Description: "For a skill imported as a copy of a plugin's skill (by hand, or installed by\n" +
			"another tool). The plugin's upstream history, as last fetched, is searched (at most\n" +
			"1,000 commits back along first parents) for the commit whose folder of the skill\n" +
			"equals the skill's published files; failing that, the closest one (fewest\n" +
			"differing lines), which is said. That commit becomes the skill's upstream base,\n" +
			"recorded by a new version with the same files; what the skill changed against it\n" +
			"is kept as a local edit. The next sync then publishes upstream's later changes to\n" +
			"an unedited skill, and turns them plus a local edit into a three-way candidate.\n" +
			"The plugin's selection is extended to take the skill if it left it out.\n" +
			"The plugin's upstream must have the skill. A folder source has no history: the\n" +
			"folder's files as they are now are the base.\n\n" +
			"Exit codes: 0 success (or the skill was the plugin's already), 1 error, 2 usage\n" +
			"error, 3 store lock busy.",
		Flags:  []cli.Flag{newJSONFlag(), dryRunFlag("report the upstream commit that would be chosen, writing nothing")},
		Action: runPluginLink,
	}
}

func runPluginLink(c *cli.Context) error {
	if c.NArg() != 2 {
		return usageErrorf("plugin link needs PLUGIN and SKILL")
	}
	id, skill, err := pluginSkillArgs(c)
	if err != nil {
		return err
	}
	s, err := openStoreForWrite(c)
	if err != nil {
		return err
	}
	e := getEnv(c)
	res, err := s.LinkSkill(c.Context, id, skill)
	if errors.Is(err, store.ErrNoChange) {
		cliout.Printf(e.stdout, "%s is plugin %s's skill already\n", skill, id)
		return nil
	}
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return cliout.JSON(e.stdout, res)
	}
	b := res.Base
	match := "exact match"
	if !b.Exact {
		match = fmt.Sprintf("closest match: %d file(s), %d line(s) differ", b.Files, b.Distance)
	}
	if b.Truncated {
		match += "; the search stopped at its limit"
	}
	if b.Commit.IsZero() {
		cliout.Printf(e.stdout, "%s %s to plugin %s at its folder's current files (%s)\n", dryRunWord(c, "linked", "would link"), skill, id, match)
	} else {
		cliout.Printf(e.stdout, "%s %s to plugin %s at upstream commit %s (%s; %d commit(s) searched)\n",
			dryRunWord(c, "linked", "would link"), skill, id, b.Commit, match, b.Walked)
	}
	if res.LocalEdit {
		cliout.Printf(e.stdout, "the difference from that commit is kept as a local edit: upstream's later changes come as a three-way candidate\n")
	}
	if res.SelectChanged {
		cliout.Printf(e.stdout, "plugin %s's selection is now %s\n", id, store.SelectionText(res.Select))
	}
	cliout.Printf(e.stdout, "%s v%d records the base; the next 'skillstore sync %s' brings upstream's later changes\n", skill, res.Version, id)
	noteDryRun(c)
	return nil
}
