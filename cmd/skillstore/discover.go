package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
)

// skillDirFlag is --skill-dir, the cli layer of discovery.
func skillDirFlag() *cli.StringSliceFlag {
	return &cli.StringSliceFlag{Name: "skill-dir", Usage: "also search `DIR` for skills, before every other root (repeatable)"}
}

const layersHelp = "Skills are searched in layered roots, highest priority first:\n" +
	"  cli       --skill-dir DIR (repeatable)\n" +
	"  env       $SKILLSTORE_PATH (a list separated by ':')\n" +
	"  manifest  the folders listed in .skillstore-skills (one path per line, relative\n" +
	"            to the file) in the working directory and each parent up to the\n" +
	"            repository root\n" +
	"  project   .claude/skills and .agents/skills in the working directory and each\n" +
	"            parent up to the repository root\n" +
	"  config    $XDG_CONFIG_HOME/skillstore/skills (default ~/.config/skillstore/skills)\n" +
	"  user      ~/.claude/skills, ~/.agents/skills, ~/.codex/skills\n" +
	"  plugin    skills/ of the Claude Code plugins in ~/.claude/plugins/installed_plugins.json,\n" +
	"            named plugin:skill\n" +
	"  system    $SKILLSTORE_SYSTEM_PATH, default /etc/skillstore/skills\n" +
	"A skill shadows skills of the same name (namespace included) in lower roots of the\n" +
	"same agent: .claude folders and plugins are Claude Code's, .agents and .codex folders\n" +
	"Codex's, the other roots every agent's."

// discoverWith runs discovery with the command's --skill-dir roots.
func discoverWith(c *cli.Context) (*discover.Result, error) {
	if err := checkSkillDirs(c.StringSlice("skill-dir")); err != nil {
		return nil, err
	}
	opts := discover.FromEnvironment(c.StringSlice("skill-dir"))
	opts.Logger = getEnv(c).log
	res, err := discover.Discover(c.Context, opts)
	if err != nil {
		return nil, fmt.Errorf("discover skills: %w", err)
	}
	return res, nil
}

// checkSkillDirs refuses a --skill-dir that is not a folder: a root the
// user named explicitly and mistyped would otherwise just find nothing.
func checkSkillDirs(dirs []string) error {
	for _, d := range dirs {
		info, err := os.Stat(d)
		switch {
		case err != nil && errors.Is(err, fs.ErrNotExist):
			return withHint(usageErrorf("--skill-dir %s: no such folder", d), "check the path; --skill-dir names a folder holding skill folders")
		case err != nil:
			return withHint(usageErrorf("--skill-dir %s: %v", d, err), "check the path; --skill-dir names a folder holding skill folders")
		case !info.IsDir():
			return withHint(usageErrorf("--skill-dir %s: not a folder", d), "check the path; --skill-dir names a folder holding skill folders")
		}
	}
	return nil
}

func discoverCommand() *cli.Command {
	return &cli.Command{
		Name:     "discover",
		Category: "inspection",
		Usage:    "list every skill found in the layered skill roots",
		Description: "Lists every skill folder found: its qualified name, layer, status (active,\n" +
			"shadowed by a skill of the same name in a higher root, or broken) and origin.\n\n" +
			layersHelp + "\n\n" +
			"Exit codes: 0 listed (even when nothing was found), 1 error, 2 usage error.",
		Flags:  []cli.Flag{skillDirFlag(), newJSONFlag()},
		Action: runDiscover,
	}
}

// skillView is a skill in discover's and doctor's JSON output.
type skillView struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	Namespace     string            `json:"namespace,omitempty"`
	QualifiedName string            `json:"qualified_name"`
	Description   string            `json:"description"`
	Layer         discover.Layer    `json:"layer"`
	Root          string            `json:"root"`
	Dir           string            `json:"dir"`
	Path          string            `json:"path"`
	Status        string            `json:"status"`
	ShadowedBy    *originView       `json:"shadowed_by,omitempty"`
	BodyHash      string            `json:"body_hash,omitempty"`
	Agent         string            `json:"agent,omitempty"`
	Plugin        string            `json:"plugin,omitempty"`
	Copy          discover.CopyKind `json:"copy,omitempty"`
	// FrontmatterFields is every frontmatter key, typed where skillstore
	// knows it (Claude Code's extensions included).
	FrontmatterFields map[string]any        `json:"frontmatter_fields,omitempty"`
	Diagnostics       []discover.Diagnostic `json:"diagnostics,omitempty"`
	AgentIssues       []discover.AgentIssue `json:"agent_issues,omitempty"`
}

type originView struct {
	Layer discover.Layer `json:"layer"`
	Dir   string         `json:"dir"`
}

func status(s *discover.Skill) string {
	switch {
	case !s.Loads():
		return "broken"
	case s.ShadowedBy != nil:
		return "shadowed"
	}
	return "active"
}

func newSkillView(s *discover.Skill, withDetails bool) skillView {
	v := skillView{
		ID: s.ID, Name: s.Name, Namespace: s.Namespace, QualifiedName: s.QualifiedName(),
		Description: s.Description, Layer: s.Layer, Root: s.Root, Dir: s.Dir, Path: s.Path(),
		Status: status(s), BodyHash: s.BodyHash, Agent: s.Agent, Plugin: s.Plugin, Copy: s.Copy,
	}
	if s.File != nil {
		v.FrontmatterFields = s.File.Frontmatter.Fields()
	}
	if s.ShadowedBy != nil {
		v.ShadowedBy = &originView{Layer: s.ShadowedBy.Layer, Dir: s.ShadowedBy.Dir}
	}
	if withDetails {
		v.Diagnostics = s.Diagnostics
		v.AgentIssues = discover.AgentIssues(s)
	}
	return v
}

func runDiscover(c *cli.Context) error {
	if c.NArg() > 0 {
		return withHint(usageErrorf("discover takes no arguments"), "add roots with --skill-dir DIR")
	}
	e := getEnv(c)
	res, err := discoverWith(c)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		out := struct {
			Roots  []discover.Root `json:"roots"`
			Skills []skillView     `json:"skills"`
		}{Roots: res.Roots, Skills: []skillView{}}
		for _, s := range res.Skills {
			out.Skills = append(out.Skills, newSkillView(s, false))
		}
		return cliout.JSON(e.stdout, out)
	}
	if len(res.Skills) == 0 {
		cliout.Println(e.stdout, "no skills found; run 'skillstore doctor' to see where skillstore looked")
		return nil
	}
	writeSkillTable(e.stdout, res.Skills)
	return nil
}

// writeSkillTable prints one line per skill: qualified name, layer,
// status, origin folder and, for a shadowed skill, the folder that wins.
func writeSkillTable(w io.Writer, skills []*discover.Skill) {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	cliout.Printf(tw, "NAME\tLAYER\tSTATUS\tORIGIN\tSHADOWED BY\n")
	for _, s := range skills {
		by := ""
		if s.ShadowedBy != nil {
			by = s.ShadowedBy.Layer.String() + " " + displayPath(s.ShadowedBy.Dir)
		}
		cliout.Printf(tw, "%s\t%s\t%s\t%s\t%s\n", s.QualifiedName(), s.Layer, status(s), displayPath(s.Dir), by)
	}
	tw.Flush()
	// An empty last column leaves padding behind; trim it.
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		cliout.Println(w, strings.TrimRight(line, " "))
	}
}
