package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
)

func pluginCommand() *cli.Command {
	return &cli.Command{
		Name:     "plugin",
		Category: "plugins",
		Usage:    "vendor upstream plugins: add, list, show, skills, set, link, trust, pause, resume, disable, adopt, rm",
		Description: "A plugin is an upstream source of skills: a local folder or a git repository.\n" +
			"Its layout is read from .claude-plugin/marketplace.json, .claude-plugin/plugin.json,\n" +
			".codex-plugin/plugin.json, skills/ (with hidden category folders such as\n" +
			"skills/.curated/<name>), a SKILL.md at the top (one skill) or <name>/SKILL.md\n" +
			"folders (a flat repository). 'skillstore sync' brings its updates in.",
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "add a plugin and mirror its skills",
				ArgsUsage: "SOURCE[#FOLDER/][#PLUGIN]",
				Description: "SOURCE is a local folder (its files as they are on disk), a local git\n" +
					"repository, any URL git can fetch (https://, ssh://, git@host:path, file://),\n" +
					"GitHub shorthand owner/repo, or a GitHub address\n" +
					"https://github.com/owner/repo/tree/REF/PATH (REF and PATH become --ref and --path;\n" +
					"a REF holding '/' is the longest branch or tag of the repository that starts\n" +
					"REF/PATH). A local path that exists wins over shorthand: write ./owner/repo for a\n" +
					"folder. $SKILLSTORE_GITHUB_URL replaces https://github.com in every GitHub address.\n" +
					"After '#', a part holding '/' is a folder inside SOURCE (like --path; plugins/x,\n" +
					"or tools/ for a top-level folder) and a part without one a plugin.\n" +
					"The layouts recognised are listed in README.md (Sources and layouts); a folder\n" +
					"matching none is refused with the list. Every skill of a catalog's categories\n" +
					"(.curated, .system, .experimental) is added; two with one name are refused.\n" +
					"A marketplace adds every plugin it lists, or only PLUGIN with SOURCE#PLUGIN.\n" +
					"Each skill's upstream tree becomes a snapshot on refs/upstream/<plugin>/<skill>\n" +
					"and the skill's first version. A skill name the store already has (a managed\n" +
					"skill or another plugin's) is an ownership conflict: nothing is written, except\n" +
					"that the skills of a plugin removed with 'plugin rm' are linked back to it when\n" +
					"it is added again under the same id (history kept, the upstream their merge\n" +
					"base again). --skill NAME (repeatable; a glob such as 'doc*', or '!NAME' to\n" +
					"leave one out) mirrors only those skills, and sync keeps to that selection;\n" +
					"a NAME that matches no skill is an error listing the skills there are.\n" +
					"The smallest bad part is left out, never the plugin: a file a store never\n" +
					"holds (a symlink that leaves its folder, is absolute or loops; a FIFO; a\n" +
					"submodule; a file over 2 MiB) is left out of its skill; a skill that fails\n" +
					"validation, holds two names that are one on macOS and Windows, or is rated\n" +
					"above --allow-risk (default high) is left out whole. Each is named on stderr\n" +
					"with what takes it in ('plugin trust PLUGIN:SKILL' for a risk); the rest goes\n" +
					"in, and the exit code is 1. A symlink that stays in its folder is kept as git\n" +
					"keeps it. --strict makes each plugin all or nothing.\n\n" +
					"A marketplace's entries in other repositories (github, url, git-subdir) are\n" +
					"fetched, at their sha, else their ref. Each plugin is added on its own: one that\n" +
					"fails (unreachable, missing ref, bad manifest, conflict) is reported and nothing\n" +
					"is written for it; plugins without skills are skipped with a note. Adding the\n" +
					"marketplace again adds its new plugins, follows its \"renames\" (the plugin keeps\n" +
					"its history) and sources it moved ($SKILLSTORE_GITHUB_URL replaces https://github.com).\n" +
					"An entry whose url is on this machine (file://, a path) is refused: the\n" +
					"marketplace's author, not you, named it. --allow-local DIR|URL (repeatable)\n" +
					"takes the local entries at or below what it names.\n\n" +
					"Exit codes: 0 added; 1 error (bad manifest, ownership conflict, fetch failure,\n" +
					"a part left out; for a marketplace: some plugin failed, the others were added,\n" +
					"--json lists each); 2 usage error; 3 store lock busy.",
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: "id", Usage: "plugin id in the store (default: the manifest's name)"},
					&cli.StringFlag{Name: "ref", Usage: "branch, tag or commit of a git source (a commit pins it); default: the branch its HEAD points at (a detached HEAD needs --ref)"},
					&cli.StringFlag{Name: "path", Usage: "the folder inside SOURCE that holds the plugin or marketplace (e.g. plugins/x)"},
					&cli.BoolFlag{Name: "review", Usage: "always review this plugin's updates: fast-forwards become candidates"},
					&cli.StringSliceFlag{Name: "skill", Usage: "mirror only the skills NAME matches (repeatable; globs, !NAME leaves out)"},
					&cli.StringSliceFlag{Name: "allow-local", Usage: "let marketplace entries use repositories on this machine at or below DIR or file:// URL (repeatable)"},
					newJSONFlag(), dryRunFlag("fetch and report what would be added, writing nothing"),
				}, intakeFlags()...),
				Action: runPluginAdd,
			},
			{
				Name:  "list",
				Usage: "list plugins and the derived status of their skills",
				Description: "Shows each plugin's id, state (enabled, paused, disabled), source, ref and\n" +
					"last fetched commit, and each skill's status derived from refs: synced,\n" +
					"update available, candidate pending or conflicted ('modified' marks local edits).\n\n" +
					"Exit codes: 0 success, 1 error, 3 store lock busy.",
				Flags:  []cli.Flag{newJSONFlag()},
				Action: runPluginList,
			},
			{
				Name:        "show",
				Usage:       "show one plugin",
				ArgsUsage:   "PLUGIN",
				Description: "Exit codes: 0 success, 1 error (unknown plugin), 2 usage error, 3 store lock busy.",
				Flags:       []cli.Flag{newJSONFlag()},
				Action:      oneArg("PLUGIN", showPlugins),
			},
			pluginSkillsCommand(),
			pluginSetCommand(),
			pluginTrustCommand(),
			pluginLinkCommand(),
			{
				Name:        "pause",
				Usage:       "make sync skip a plugin",
				ArgsUsage:   "PLUGIN",
				Description: "Exit codes: 0 paused (or already paused), 1 error (unknown plugin), 2 usage error, 3 store lock busy.",
				Action: oneArg("PLUGIN", func(c *cli.Context, id string) error {
					return pluginPause(c, id, true)
				}),
			},
			{
				Name:      "resume",
				Usage:     "make sync take a paused plugin again, and sync it",
				ArgsUsage: "PLUGIN",
				Description: "Resumes the plugin and syncs it at once, as 'skillstore sync PLUGIN' does\n" +
					"(capture, sync, export), unless --no-sync.\n\n" +
					"Exit codes: 0 resumed (or already running) and synced; 1 error (unknown plugin,\n" +
					"or the sync failed); 2 usage error; 3 store lock busy; 4 synced, candidates wait\n" +
					"for review.",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "no-sync", Usage: "only resume; the next sync brings the updates in"},
				},
				Action: oneArg("PLUGIN", func(c *cli.Context, id string) error {
					if err := pluginPause(c, id, false); err != nil || c.Bool("no-sync") {
						return err
					}
					return syncPipeline(c, []string{id})
				}),
			},
			{
				Name:      "disable",
				Usage:     "stop syncing a plugin and disable its skills (history kept)",
				ArgsUsage: "PLUGIN",
				Description: "Disables every skill the plugin owns (they stay in the store with their\n" +
					"history but are not exported) and makes sync skip the plugin. The flag\n" +
					"--disable-linked-skills is required as confirmation. 'plugin enable' undoes it.\n\n" +
					"Exit codes: 0 success, 1 error, 2 usage error (missing confirmation), 3 store lock busy.",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "disable-linked-skills", Usage: "confirm that the plugin's skills are disabled too"},
					&cli.StringFlag{Name: "reason", Usage: "why (recorded in the state log)"},
				},
				Action: oneArg("PLUGIN", func(c *cli.Context, id string) error {
					if !c.Bool("disable-linked-skills") {
						return withHint(usageErrorf("disabling plugin %s disables its skills: confirm with --disable-linked-skills", id),
							"to only stop updates, run 'skillstore plugin pause "+id+"'")
					}
					return pluginDisable(c, id, true)
				}),
			},
			{
				Name:      "enable",
				Usage:     "re-enable a disabled plugin and its skills",
				ArgsUsage: "PLUGIN",
				Description: "Re-activates the skills that 'plugin disable' deactivated; a skill disabled\n" +
					"on its own ('skillstore disable SKILL') stays disabled.\n\n" +
					"Exit codes: 0 enabled (or already enabled), 1 error, 2 usage error, 3 store lock busy.",
				Action: oneArg("PLUGIN", func(c *cli.Context, id string) error {
					return pluginDisable(c, id, false)
				}),
			},
			{
				Name:      "adopt",
				Usage:     "make a plugin's skill a managed skill that sync no longer touches",
				ArgsUsage: "PLUGIN SKILL",
				Description: "The skill keeps its history; its pending candidate, if any, is dropped (kept\n" +
					"reachable under refs/skillstore/superseded/).\n\n" +
					"Exit codes: 0 success, 1 error, 2 usage error, 3 store lock busy.",
				Action: runPluginAdopt,
			},
			{
				Name:      "rm",
				Usage:     "forget a plugin; its skills stay as managed skills",
				ArgsUsage: "PLUGIN",
				Description: "Removes the plugin's record, source and upstream refs and pending candidates.\n" +
					"Its skills and their history stay, as managed skills that remember the plugin:\n" +
					"adding it again under the same id (at another ref or URL too) links them back.\n\n" +
					"Exit codes: 0 success, 1 error, 2 usage error, 3 store lock busy.",
				Action: oneArg("PLUGIN", func(c *cli.Context, id string) error {
					s, err := openStore(c)
					if err != nil {
						return err
					}
					p, err := s.RemovePlugin(c.Context, id)
					if err != nil {
						return err
					}
					cliout.Printf(getEnv(c).stdout, "removed plugin %s; its skills stay as managed skills: %s\n", id, strings.Join(p.Skills, ", "))
					if len(p.Skills) > 0 {
						cliout.Printf(getEnv(c).stdout, "adding plugin %s again links them back to it\n", id)
					}
					return nil
				}),
			},
		},
	}
}

func runPluginAdd(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageErrorf("plugin add needs exactly one SOURCE argument")
	}
	// Reading a shorthand or /tree/ address may list the remote's refs:
	// one round trip, held to --fetch-timeout like a fetch.
	ctx, cancel := context.WithTimeout(c.Context, c.Duration("fetch-timeout"))
	src, err := store.ParseSourceContext(ctx, c.Args().First(), c.String("ref"))
	cancel()
	if err != nil {
		return err
	}
	if src.Path != "" && c.String("path") != "" {
		return usageErrorf("plugin add: the source already names the folder %s: drop --path or the folder in SOURCE", src.Path)
	}
	if src, err = src.WithPath(c.String("path")); err != nil {
		return err
	}
	s, err := openStoreForWrite(c)
	if err != nil {
		return err
	}
	strict, allow, err := intakeOptions(c)
	if err != nil {
		return err
	}
	rep, err := s.AddPlugin(c.Context, src, store.AddPluginOptions{ID: c.String("id"), Review: c.Bool("review"), Skills: c.StringSlice("skill"), AllowLocal: c.StringSlice("allow-local"), Strict: strict, AllowRisk: allow})
	if err != nil {
		return err
	}
	return writeAddReport(c, src, rep)
}

func runPluginList(c *cli.Context) error {
	if c.NArg() != 0 {
		return usageErrorf("plugin list takes no arguments")
	}
	return showPlugins(c, "")
}

// showPlugins prints every plugin, or only id.
func showPlugins(c *cli.Context, id string) error {
	s, err := openStore(c)
	if err != nil {
		return err
	}
	var infos []*store.PluginInfo
	err = s.View(c.Context, func(r *store.Reader) error {
		if id == "" {
			infos, err = r.PluginInfos()
			return err
		}
		info, err := r.PluginInfo(id)
		infos = []*store.PluginInfo{info}
		return err
	})
	if err != nil {
		return err
	}
	e := getEnv(c)
	if c.Bool("json") {
		if id != "" {
			return cliout.JSON(e.stdout, infos[0])
		}
		if infos == nil {
			infos = []*store.PluginInfo{}
		}
		return cliout.JSON(e.stdout, infos)
	}
	if len(infos) == 0 {
		cliout.Println(e.stdout, "no plugins; add one with 'skillstore plugin add SOURCE'")
		return nil
	}
	for i, info := range infos {
		if i > 0 {
			cliout.Println(e.stdout)
		}
		writePlugin(e.stdout, info, id != "")
	}
	return nil
}

func writePlugin(w io.Writer, info *store.PluginInfo, details bool) {
	ref := info.Source.Ref
	if ref == "" && info.Source.Kind == store.SourceGit {
		ref = "HEAD"
	}
	cliout.Printf(w, "%s  %s  %s %s", info.ID, info.StateName, info.Source.Kind, info.Source)
	if ref != "" {
		cliout.Printf(w, "  ref %s", ref)
	}
	if info.Commit != "" {
		cliout.Printf(w, "  at %s", info.Commit[:12])
	}
	cliout.Println(w)
	if info.SourceError != "" {
		cliout.Printf(w, "  source: %s (sync skips it until it is back)\n", info.SourceError)
	}
	if info.Marketplace != "" {
		cliout.Printf(w, "  marketplace: %s\n", info.Marketplace)
	}
	if details {
		if info.Name != "" || info.Version != "" {
			cliout.Printf(w, "  manifest: %s %s\n", info.Name, info.Version)
		}
		cliout.Printf(w, "  review: %v\n", info.Review)
	}
	if len(info.Select) > 0 {
		cliout.Printf(w, "  selection: %s\n", store.SelectionText(info.Select))
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, st := range info.Status {
		var notes []string
		if st.Modified {
			notes = append(notes, "modified")
		}
		if st.Disabled {
			notes = append(notes, "disabled")
		}
		status := string(st.Status)
		if len(notes) > 0 {
			status += " (" + strings.Join(notes, ", ") + ")"
		}
		cliout.Printf(tw, "  %s\tv%d\t%s\n", st.Skill, st.Version, status)
	}
	tw.Flush()
	writePartsRow(w, info)
	for _, a := range info.Adopted {
		cliout.Printf(w, "  %s  adopted (managed)\n", a)
	}
	for _, r := range info.Removed {
		cliout.Printf(w, "  %s  removed upstream (kept)\n", r)
	}
}

func pluginPause(c *cli.Context, id string, paused bool) error {
	s, err := openStore(c)
	if err != nil {
		return err
	}
	_, err = s.PausePlugin(c.Context, id, paused)
	if errors.Is(err, store.ErrNoChange) {
		cliout.Printf(getEnv(c).stdout, "plugin %s is already %s\n", id, map[bool]string{true: "paused", false: "running"}[paused])
		return nil
	}
	if err != nil {
		return err
	}
	verb := map[bool]string{true: "paused (sync skips it)", false: "resumed"}[paused]
	cliout.Printf(getEnv(c).stdout, "plugin %s %s\n", id, verb)
	return nil
}

func pluginDisable(c *cli.Context, id string, disable bool) error {
	s, err := openStore(c)
	if err != nil {
		return err
	}
	var p *store.Plugin
	if disable {
		p, err = s.DisablePlugin(c.Context, id, c.String("reason"))
	} else {
		p, err = s.EnablePlugin(c.Context, id)
	}
	if errors.Is(err, store.ErrNoChange) {
		cliout.Printf(getEnv(c).stdout, "plugin %s is already %s\n", id, map[bool]string{true: "disabled", false: "enabled"}[disable])
		return nil
	}
	if err != nil {
		return err
	}
	verb := map[bool]string{true: "disabled", false: "enabled"}[disable]
	cliout.Printf(getEnv(c).stdout, "plugin %s %s with its skills: %s\n", id, verb, strings.Join(p.Skills, ", "))
	return nil
}

func runPluginAdopt(c *cli.Context) error {
	if c.NArg() != 2 {
		return usageErrorf("plugin adopt needs PLUGIN and SKILL")
	}
	id, skill, err := pluginSkillArgs(c)
	if err != nil {
		return err
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	e := getEnv(c)
	err = s.AdoptSkill(c.Context, id, skill)
	if errors.Is(err, store.ErrNoChange) {
		cliout.Printf(e.stdout, "%s is already adopted from plugin %s (a managed skill)\n", skill, id)
		return nil
	}
	if err != nil {
		return err
	}
	cliout.Printf(e.stdout, "%s is a managed skill now; sync of plugin %s no longer touches it\n", skill, id)
	var rec store.SkillRecord
	err = s.View(c.Context, func(r *store.Reader) error {
		rec, err = r.SkillRecord(skill)
		return err
	})
	if err == nil && rec.Status == store.StatusDisabled {
		cliout.Printf(e.stdout, "note: %s is disabled (%s); enable it with 'skillstore enable %s'\n", skill, rec.Reason, skill)
	}
	return err
}
