package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
)

// pluginSkillsCommand is 'plugin skills': a plugin's selection of skills.
func pluginSkillsCommand() *cli.Command {
	return &cli.Command{
		Name:      "skills",
		Usage:     "show a plugin's mirrored and available skills, or change which it mirrors",
		ArgsUsage: "PLUGIN",
		Description: "Without flags, lists the skills the plugin mirrors and those its upstream has\n" +
			"(as of the last sync: nothing is fetched), with its selection ('all' unless\n" +
			"'plugin add --skill' or this command narrowed it).\n\n" +
			"--add NAME selects skills (a name or a glob such as 'doc*', repeatable): the next\n" +
			"sync of the plugin mirrors them. --remove NAME leaves them out: a skill the plugin\n" +
			"mirrored becomes a managed skill at once, as 'plugin rm' leaves them (history\n" +
			"kept, sync no longer touches it); selecting it again links it back to the plugin.\n" +
			"--all selects every skill again. A pattern that matches no skill of the plugin or\n" +
			"its upstream is an error listing the skills there are.\n\n" +
			"Exit codes: 0 success (or the selection was already so), 1 error, 2 usage error,\n" +
			"3 store lock busy.",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "add", Usage: "select the skills NAME matches (repeatable)"},
			&cli.StringSliceFlag{Name: "remove", Usage: "leave out the skills NAME matches; mirrored ones become managed (repeatable)"},
			&cli.BoolFlag{Name: "all", Usage: "select every skill (then --add/--remove apply)"},
			newJSONFlag(),
		},
		Action: oneArg("PLUGIN", runPluginSkills),
	}
}

func runPluginSkills(c *cli.Context, id string) error {
	s, err := openStore(c)
	if err != nil {
		return err
	}
	e := getEnv(c)
	add, remove := c.StringSlice("add"), c.StringSlice("remove")
	if len(add) == 0 && len(remove) == 0 && !c.Bool("all") {
		var list *store.PluginSkillList
		err := s.View(c.Context, func(r *store.Reader) error {
			list, err = r.PluginSkills(id)
			return err
		})
		if err != nil {
			return err
		}
		if c.Bool("json") {
			return cliout.JSON(e.stdout, list)
		}
		cliout.Printf(e.stdout, "%s  selection: %s", id, store.SelectionText(list.Select))
		if list.Commit != "" {
			cliout.Printf(e.stdout, "  upstream at %s", list.Commit[:12])
		}
		cliout.Println(e.stdout)
		if list.UpstreamError != "" {
			cliout.Printf(e.stdout, "  upstream not readable: %s\n", list.UpstreamError)
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		for _, sk := range list.Skills {
			version := ""
			if sk.Version > 0 {
				version = fmt.Sprintf("v%d", sk.Version)
			}
			cliout.Printf(tw, "  %s\t%s\t%s\n", sk.Skill, version, skillStateText[sk.State])
		}
		return tw.Flush()
	}
	ch, err := s.ChangeSelection(c.Context, id, add, remove, c.Bool("all"))
	if err != nil && !errors.Is(err, store.ErrNoChange) {
		return err
	}
	if c.Bool("json") {
		return cliout.JSON(e.stdout, ch)
	}
	if err != nil {
		cliout.Printf(e.stdout, "plugin %s: the selection is already %s\n", id, store.SelectionText(ch.After))
		return nil
	}
	cliout.Printf(e.stdout, "plugin %s: selection %s -> %s\n", id, store.SelectionText(ch.Before), store.SelectionText(ch.After))
	for _, sk := range ch.Managed {
		cliout.Printf(e.stdout, "  %s: a managed skill now (history kept; selecting it again links it back)\n", sk)
	}
	for _, sk := range ch.Next {
		cliout.Printf(e.stdout, "  %s: selected; the next sync mirrors it ('skillstore sync %s')\n", sk, id)
	}
	return nil
}

var skillStateText = map[string]string{
	store.PluginSkillMirrored: "mirrored",
	store.PluginSkillSelected: "selected (the next sync mirrors it)",
	store.PluginSkillOff:      "available (not selected)",
	store.PluginSkillAdopted:  "adopted (managed)",
	store.PluginSkillRemoved:  "removed upstream (kept)",
}

// pluginSetCommand is 'plugin set': move a plugin's pin.
func pluginSetCommand() *cli.Command {
	return &cli.Command{
		Name:      "set",
		Usage:     "change a plugin's ref or URL (a new tag, a fork); the next sync follows it",
		ArgsUsage: "PLUGIN",
		Description: "--ref REF pins a git plugin to another branch, tag or commit ('' for the remote's\n" +
			"HEAD); --url URL moves it to another repository or folder (a fork), keeping its\n" +
			"ref unless --ref is given too, and its '#PLUGIN' unless URL names one. Nothing is\n" +
			"fetched now: the next sync reads the new source and classifies each skill against\n" +
			"what was accepted, as any upstream update (local edits meet it as a three-way\n" +
			"candidate), and an unreachable URL or missing ref is reported by that sync. The\n" +
			"change is recorded in the store's state history. A --ref on a folder source is\n" +
			"refused.\n\n" +
			"Exit codes: 0 set (or already so), 1 error, 2 usage error, 3 store lock busy.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "ref", Usage: "branch, tag or commit of the git source ('' for HEAD)"},
			&cli.StringFlag{Name: "url", Usage: "new source: a git URL, a local repository or a folder"},
			newJSONFlag(),
		},
		Action: oneArg("PLUGIN", runPluginSet),
	}
}

func runPluginSet(c *cli.Context, id string) error {
	var url, ref *string
	if c.IsSet("url") {
		u := c.String("url")
		url = &u
	}
	if c.IsSet("ref") {
		r := c.String("ref")
		ref = &r
	}
	if url == nil && ref == nil {
		return usageErrorf("plugin set needs --ref REF or --url URL")
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	e := getEnv(c)
	ch, err := s.SetPluginSource(c.Context, id, url, ref)
	if err != nil && !errors.Is(err, store.ErrNoChange) {
		return err
	}
	if c.Bool("json") {
		return cliout.JSON(e.stdout, ch)
	}
	if err != nil {
		cliout.Printf(e.stdout, "plugin %s already follows %s\n", id, sourceText(ch.After))
		return nil
	}
	cliout.Printf(e.stdout, "plugin %s: %s; the next sync follows it ('skillstore sync %s')\n", id, ch.Describe(), id)
	return nil
}

// sourceText renders a source with its ref: "URL at REF".
func sourceText(s store.Source) string {
	var b strings.Builder
	b.WriteString(s.String())
	if s.Kind == store.SourceGit {
		ref := s.Ref
		if ref == "" {
			ref = "HEAD"
		}
		b.WriteString(" at " + ref)
	}
	return b.String()
}
