package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

const versionNames = "A version is NAME (the latest), NAME@vN, or NAME@<commit prefix> (4+ hex digits).\n" +
	"NAME is PLUGIN:NAME for a plugin's skill (or its short name when no other skill has\n" +
	"it), NAME or :NAME for a managed skill."

type versionJSON struct {
	Skill         string           `json:"skill"`
	Version       int              `json:"version"`
	Commit        string           `json:"commit"`
	Tree          string           `json:"tree"`
	Time          time.Time        `json:"time"`
	Actor         string           `json:"actor"`
	Source        string           `json:"source"`
	Reason        string           `json:"reason,omitempty"`
	MergeMode     store.MergeMode  `json:"merge_mode"`
	Plugin        string           `json:"plugin,omitempty"`
	PluginVersion string           `json:"plugin_version,omitempty"`
	Risk          string           `json:"risk"`
	Findings      []safety.Finding `json:"findings"`
}

func toVersionJSON(v store.Version) versionJSON {
	fs := v.Findings
	if fs == nil {
		fs = []safety.Finding{}
	}
	if v.Plugin == "" { // a version recorded without the trailer: the name says
		v.Plugin, _ = store.SplitName(v.Skill)
	}
	return versionJSON{Skill: v.Skill, Version: v.Number, Commit: v.Commit.String(), Tree: v.Tree.String(), Time: v.Time.UTC(),
		Actor: v.Actor, Source: v.Source, Reason: v.Reason, MergeMode: v.MergeMode, Plugin: v.Plugin,
		PluginVersion: v.PluginVersion, Risk: v.Risk.String(), Findings: fs}
}

type fileJSON struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
	Size int64  `json:"size"`
	Blob string `json:"blob"`
}

func storeShowCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Category:  "skills",
		Usage:     "show a version: metadata, frontmatter, files, provenance, safety findings",
		ArgsUsage: "NAME[@VERSION]",
		Description: "show prints a version's metadata (version, commit, date, actor, reason, source,\n" +
			"merge mode), its status, its safety risk and findings, its SKILL.md frontmatter,\n" +
			"and its files with modes and sizes. " + versionNames + "\n\n" +
			"Exit codes: 0 ok; 1 unknown skill or version, or error; 3 store busy.",
		Flags: []cli.Flag{newJSONFlag()},
		Action: func(c *cli.Context) error {
			s, args, err := openStoreArgs(c, 1, 1)
			if err != nil {
				return err
			}
			spec, err := resolveSpecArg(c, s, args[0])
			if err != nil {
				return err
			}
			d, err := s.Show(c.Context, spec)
			if err != nil {
				return err
			}
			e := getEnv(c)
			if c.Bool("json") {
				files := []fileJSON{}
				for _, f := range d.Files {
					files = append(files, fileJSON{Path: f.Path, Mode: f.ModeString(), Size: f.Size, Blob: f.ID.String()})
				}
				return cliout.JSON(e.stdout, struct {
					versionJSON
					Latest      int    `json:"latest"`
					Status      string `json:"status"`
					Description string `json:"description"`
					Frontmatter string `json:"frontmatter"`
					// FrontmatterFields is every key, typed (see discover --json).
					FrontmatterFields map[string]any `json:"frontmatter_fields,omitempty"`
					Files             []fileJSON     `json:"files"`
				}{toVersionJSON(d.Version), d.Latest, string(d.Record.Status), d.Description, d.Frontmatter, d.Fields, files})
			}
			v := d.Version
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 1, ' ', 0)
			cliout.Printf(tw, "skill:\t%s\n", v.Skill)
			cliout.Printf(tw, "version:\tv%d of v%d\n", v.Number, d.Latest)
			cliout.Printf(tw, "commit:\t%s\n", v.Commit)
			cliout.Printf(tw, "date:\t%s\n", v.Time.UTC().Format(time.RFC3339))
			cliout.Printf(tw, "actor:\t%s\n", v.Actor)
			if v.Reason != "" {
				cliout.Printf(tw, "reason:\t%s\n", v.Reason)
			}
			cliout.Printf(tw, "source:\t%s\n", v.Source)
			if v.Plugin != "" {
				cliout.Printf(tw, "plugin:\t%s %s\n", v.Plugin, v.PluginVersion)
			}
			cliout.Printf(tw, "merge mode:\t%s\n", v.MergeMode)
			status := string(d.Record.Status)
			if d.Record.Reason != "" {
				status += " (" + d.Record.Reason + ")"
			}
			cliout.Printf(tw, "status:\t%s\n", status)
			cliout.Printf(tw, "risk:\t%s\n", v.Risk)
			tw.Flush()
			if len(v.Findings) > 0 {
				cliout.Println(e.stdout, "findings:")
				for _, f := range v.Findings {
					cliout.Printf(e.stdout, "  %s\n", f)
				}
			}
			if d.Frontmatter != "" {
				cliout.Println(e.stdout, "frontmatter:")
				for _, line := range strings.Split(d.Frontmatter, "\n") {
					cliout.Printf(e.stdout, "  %s\n", line)
				}
			}
			cliout.Println(e.stdout, "files:")
			width := 1
			for _, f := range d.Files {
				width = max(width, len(fmt.Sprint(f.Size)))
			}
			for _, f := range d.Files {
				cliout.Printf(e.stdout, "  %s %*d %s\n", f.ModeString(), width, f.Size, f.Path)
			}
			return nil
		},
	}
}

func storeLogCommand() *cli.Command {
	return &cli.Command{
		Name:      "log",
		Category:  "skills",
		Usage:     "list every version of a skill",
		ArgsUsage: "NAME",
		Description: "log prints every version of a skill, newest first: version, date, commit, actor,\n" +
			"merge mode, risk and reason. The same story is in plain\n" +
			"'git log refs/heads/skills/NAME' through the commit trailers.\n\n" +
			"Exit codes: 0 ok; 1 unknown skill or error; 3 store busy.",
		Flags: []cli.Flag{newJSONFlag()},
		Action: func(c *cli.Context) error {
			s, args, err := openStoreArgs(c, 1, 1)
			if err != nil {
				return err
			}
			name, err := resolveNameArg(c, s, args[0])
			if err != nil {
				return err
			}
			versions, err := s.Log(c.Context, name)
			if err != nil {
				return err
			}
			e := getEnv(c)
			if c.Bool("json") {
				out := []versionJSON{}
				for _, v := range versions {
					out = append(out, toVersionJSON(v))
				}
				return cliout.JSON(e.stdout, out)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			for _, v := range versions {
				cliout.Printf(tw, "v%d\t%s\t%s\t%s\t%s\trisk %s", v.Number, v.Time.UTC().Format("2006-01-02 15:04:05"),
					shortHash(v.Commit), v.Actor, v.MergeMode, v.Risk)
				if v.Reason != "" {
					cliout.Printf(tw, "\t%s", v.Reason) // no trailing padding when there is no reason
				}
				cliout.Println(tw)
			}
			return tw.Flush()
		},
	}
}

func storeCatCommand() *cli.Command {
	return &cli.Command{
		Name:      "cat",
		Category:  "skills",
		Usage:     "print a file of a version (SKILL.md by default)",
		ArgsUsage: "NAME[@VERSION] [FILE]",
		Description: "cat writes the content of FILE (a path inside the skill, default SKILL.md) in the\n" +
			"version to stdout; with --body, without its YAML frontmatter (a file without one is\n" +
			"printed whole). " + versionNames + "\n\n" +
			"Exit codes: 0 ok; 1 unknown skill, version or file, or a frontmatter never closed;\n" +
			"3 store busy.",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "body", Usage: "print the Markdown body only, without the frontmatter"}},
		Action: func(c *cli.Context) error {
			args, err := storeArgs(c, 1, 2)
			if err != nil {
				return err
			}
			file := ""
			if len(args) == 2 {
				if file = args[1]; file == "" {
					return usageErrorf("cat: the file path is empty (leave it out for SKILL.md)")
				}
			}
			s, err := openStore(c)
			if err != nil {
				return err
			}
			spec, err := resolveSpecArg(c, s, args[0])
			if err != nil {
				return err
			}
			data, err := s.Cat(c.Context, spec, file)
			var noFile *store.NoFileError
			if errors.As(err, &noFile) {
				return withHint(err, fmt.Sprintf("run 'skillstore show %s' for its files", spec))
			}
			if err != nil {
				return err
			}
			if c.Bool("body") {
				if data, err = discover.Body(data); err != nil {
					shown := file
					if shown == "" {
						shown = discover.SkillFileName
					}
					var pe *discover.ParseError
					if errors.As(err, &pe) {
						pe.File = spec + " " + shown
					}
					return err
				}
			}
			_, err = cliout.Raw(getEnv(c).stdout).Write(data) // content, byte for byte
			return err
		},
	}
}
