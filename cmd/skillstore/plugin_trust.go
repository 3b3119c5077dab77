package main

import (
	"github.com/urfave/cli/v2"
)

// pluginTrustCommand approves a plugin whose source came from a remote.
func pluginTrustCommand() *cli.Command {
	return &cli.Command{
		Name:      "trust",
		Usage:     "let sync fetch a plugin whose source came from a remote by pull",
		ArgsUsage: "PLUGIN",
		Description: "A plugin record (or a changed source) that 'skillstore pull' takes from a remote\n" +
			"is not fetched by sync until a person approves it on this machine: a teammate's\n" +
			"server must not make this machine fetch a URL with its credentials. Approval is\n" +
			"recorded locally (STORE/skillstore/untrusted-plugins.json lists what waits) and\n" +
			"never pushed. Plugins added here with 'plugin add' are trusted already. A plugin\n" +
			"whose source is a local folder cannot be approved: add the folder yourself.\n\n" +
			"Exit codes: 0 approved, 1 error (unknown plugin, nothing to approve, folder source),\n" +
			"2 usage error, 3 store lock busy.",
		Action: oneArg("PLUGIN", func(c *cli.Context, id string) error {
			s, err := openStore(c)
			if err != nil {
				return err
			}
			src, err := s.TrustPlugin(c.Context, id)
			if err != nil {
				return err
			}
			printf(getEnv(c).stdout, "plugin %s trusted: sync fetches %s from now on\n", id, src)
			return nil
		}),
	}
}
