package main

import (
	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/internal/skillsel"
	"github.com/skillstore/skillstore/store/tags"
)

// The tag command: tags on skills, which targets select as @TAG.

func tagCommand() *cli.Command {
	return &cli.Command{
		Name:     "tag",
		Category: "targets",
		Usage:    "tag skills, so a target can hold @TAG (target add/set --only @TAG)",
		Description: "A tag names a set of skills of your choosing: 'skillstore tag add daily deploy\n" +
			"lint superpowers' tags three skills and every skill of the plugin superpowers;\n" +
			"'skillstore target set claude --only @daily' then exports just those into\n" +
			"Claude Code's folder, and '--except @rare' leaves a set out. Tags live in the\n" +
			"store's state: push sends them and pull merges them, so a team shares its tags.\n" +
			"A tag holds the skills the patterns selected when it was given (a plugin's skills\n" +
			"added later are not tagged until 'tag add' runs again).\n\n" +
			"Exit codes: 0 success, 1 error (a pattern selects no skill, no such tag), 2 usage\n" +
			"error, 3 store lock busy.",
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "tag the skills the patterns select",
				ArgsUsage: "TAG PATTERN...",
				Description: "Tags with TAG (lowercase letters, digits and hyphens) every skill a PATTERN\n" +
					"selects: NAME or PLUGIN:NAME (globs allowed), a plugin's name, or @OTHER (the\n" +
					"skills of another tag). A pattern that selects no skill is an error and nothing\n" +
					"is tagged.",
				Action: func(c *cli.Context) error {
					tag, patterns, err := tagArgs(c, 2)
					if err != nil {
						return err
					}
					return app.TagAdd(c.Context, app.TagOptions{Global: global(c), Output: output(c), Tag: tag, Patterns: patterns})
				},
			},
			{
				Name:      "rm",
				Usage:     "untag skills, or remove a tag",
				ArgsUsage: "TAG [PATTERN...]",
				Description: "Takes TAG off the skills the patterns select among those it holds; without\n" +
					"patterns removes the tag. A target whose --only or --except names @TAG then\n" +
					"selects nothing by it.",
				Action: func(c *cli.Context) error {
					tag, patterns, err := tagArgs(c, 1)
					if err != nil {
						return err
					}
					return app.TagRemove(c.Context, app.TagOptions{Global: global(c), Tag: tag, Patterns: patterns})
				},
			},
			{
				Name:      "list",
				Usage:     "list the tags and their skills",
				ArgsUsage: "[TAG]",
				Flags:     []cli.Flag{newJSONFlag()},
				Action: func(c *cli.Context) error {
					if c.NArg() > 1 {
						return app.UsageErrorf("tag list takes at most a TAG")
					}
					return app.TagList(c.Context, app.TagOptions{Global: global(c), Output: output(c), Tag: c.Args().First()})
				},
			},
		},
	}
}

// tagArgs reads TAG and the patterns after it (at least min arguments in
// all) and checks them.
func tagArgs(c *cli.Context, min int) (string, []string, error) {
	if c.NArg() < min {
		return "", nil, app.WithHint(app.UsageErrorf("tag %s takes a TAG and skill patterns", c.Command.Name), "run 'skillstore tag --help' for usage")
	}
	tag, patterns := c.Args().First(), c.Args().Tail()
	if err := skillsel.CheckTag(tag); err != nil {
		return "", nil, app.UsageErrorf("%v", err)
	}
	for _, p := range patterns {
		if err := skillsel.CheckPlain(p, tags.LeaveOut); err != nil {
			return "", nil, app.UsageErrorf("%v", err)
		}
	}
	return tag, patterns, nil
}
