package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
)

// pluginTrustCommand approves a plugin whose source came from a remote, or
// accepts the findings of one skill's upstream tree.
func pluginTrustCommand() *cli.Command {
	return &cli.Command{
		Name:      "trust",
		Usage:     "let sync fetch a plugin that came from a remote, or take in a skill whose risk it left out",
		ArgsUsage: "PLUGIN | PLUGIN:SKILL",
		Description: "PLUGIN: a plugin record (or a changed source) that 'skillstore pull' takes from a\n" +
			"remote is not fetched by sync until a person approves it on this machine: a\n" +
			"teammate's server must not make this machine fetch a URL with its credentials.\n" +
			"Approval is recorded locally (STORE/skillstore/untrusted-plugins.json lists what\n" +
			"waits) and never pushed. Plugins added here with 'plugin add' are trusted already.\n" +
			"A plugin whose source is a local folder cannot be approved: add the folder yourself.\n\n" +
			"PLUGIN:SKILL: accepts the safety findings of the skill as its upstream holds it now\n" +
			"(the commit the last sync fetched, or the folder on disk), which sync left out for\n" +
			"a risk above --allow-risk. The findings are printed; the acceptance names that\n" +
			"upstream tree, so the next sync takes it in (an update is published, not held for\n" +
			"review), and any change upstream asks again. PLUGIN:_plugin accepts the plugin's\n" +
			"parts. Recorded locally (STORE/skillstore/accepted-risks.json), never pushed.\n\n" +
			"Exit codes: 0 approved or accepted, 1 error (unknown plugin or skill, nothing to\n" +
			"approve or accept, folder source, invalid skill), 2 usage error, 3 store lock busy.",
		Action: oneArg("PLUGIN", func(c *cli.Context, arg string) error {
			s, err := openStore(c)
			if err != nil {
				return err
			}
			if plugin, skill, ok := strings.Cut(arg, ":"); ok {
				return trustSkill(c, s, plugin, skill)
			}
			src, err := s.TrustPlugin(c.Context, arg)
			if err != nil {
				return err
			}
			cliout.Printf(getEnv(c).stdout, "plugin %s trusted: sync fetches %s from now on\n", arg, src)
			return nil
		}),
	}
}

// trustSkill accepts the findings of a plugin's skill and prints them.
func trustSkill(c *cli.Context, s *store.Store, plugin, skill string) error {
	if plugin == "" || skill == "" {
		return usageErrorf("plugin trust: give PLUGIN:SKILL, both names")
	}
	t, err := s.TrustSkill(c.Context, plugin, skill)
	if err != nil {
		return err
	}
	w := getEnv(c).stdout
	cliout.Printf(w, "accepted risk %s of %s (upstream tree %s):\n", t.Risk, t.Skill, t.Tree[:12])
	for _, f := range t.Findings {
		cliout.Printf(w, "  - %s\n", f)
	}
	cliout.Printf(w, "the next 'skillstore sync %s' takes it in; a change upstream asks again\n", plugin)
	return nil
}
