package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/urfave/cli/v2"
)

// targetAddArgs reads the three forms of 'target add': NAME DIR, AGENT
// (a preset's user folder) and --project AGENT [NAME] (the preset's folder
// in the current project). project is the project's root for the last.
func targetAddArgs(c *cli.Context) (name, dir, project string, err error) {
	args := c.Args().Slice()
	known := strings.Join(presetNames(), ", ")
	if agent := c.String("project"); agent != "" {
		p, ok := findPreset(agent)
		if !ok {
			return "", "", "", withHint(usageErrorf("--project %q is not an agent skillstore knows", agent), "known agents: "+known)
		}
		if len(args) > 1 {
			return "", "", "", usageErrorf("target add --project %s takes at most a NAME", agent)
		}
		root, err := projectRoot(c)
		if err != nil {
			return "", "", "", err
		}
		name = projectTargetName(root, p)
		if len(args) == 1 {
			name = args[0]
		}
		return name, filepath.Join(root, filepath.FromSlash(p.project)), root, nil
	}
	switch len(args) {
	case 2:
		return args[0], args[1], "", nil
	case 1:
		p, ok := findPreset(args[0])
		if !ok {
			err := usageErrorf("target add %s: give the folder (target add NAME DIR), or an agent skillstore knows", args[0])
			if s := suggestNames(args[0], presetNames()); len(s) > 0 {
				err = withHint(err, "did you mean "+quoteList(s)+"?")
			}
			return "", "", "", withHint(err, "known agents: "+known)
		}
		dir, err := p.userDir()
		return p.name, dir, "", err
	}
	return "", "", "", withHint(usageErrorf("target add takes NAME and DIR, or an agent: %s", known), "run 'skillstore target add --help' for usage")
}

func targetDetectCommand() *cli.Command {
	return &cli.Command{
		Name:  "detect",
		Usage: "propose targets for the agents found on this machine and in this project",
		Description: "Looks for the agents skillstore knows (see 'target add --help'): for this user\n" +
			"by their folders in $HOME (~/.claude for Claude Code, ~/.codex or ~/.agents for\n" +
			"Codex), and in the project holding the working directory by its .claude and\n" +
			".agents folders. For each it prints the folder and either the target already\n" +
			"exporting there or the command that adds one. Nothing is written.\n\n" +
			"Exit codes: 0 success, 1 error, 3 store lock busy.",
		Flags:  []cli.Flag{newJSONFlag()},
		Action: runTargetDetect,
	}
}

// detected is one agent folder target detect found.
type detected struct {
	Agent   string `json:"agent"`
	Scope   string `json:"scope"` // "user" or "project"
	Dir     string `json:"dir"`
	Target  string `json:"target,omitempty"`  // the target already exporting there
	Command string `json:"command,omitempty"` // what adds it otherwise
}

func runTargetDetect(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("target detect takes no arguments")
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	targets, err := readTargets(c, s, nil)
	if err != nil {
		return err
	}
	byDir := map[string]string{}
	for _, t := range targets {
		byDir[t.Dir] = t.Name
	}
	home, _ := os.UserHomeDir()
	root, _ := projectRoot(c)
	var found []detected
	seen := map[string]bool{}
	propose := func(d detected) {
		if seen[d.Dir] {
			return
		}
		seen[d.Dir] = true
		d.Target = byDir[d.Dir]
		if d.Target != "" {
			d.Command = ""
		}
		found = append(found, d)
	}
	for _, p := range agentPresets {
		if home != "" && anyDir(home, p.markers) {
			dir, _ := p.userDir()
			propose(detected{Agent: p.name, Scope: "user", Dir: dir, Command: "skillstore target add " + p.name})
		}
	}
	if root != "" && root != home {
		for _, p := range agentPresets {
			top, _, _ := strings.Cut(p.project, "/")
			if anyDir(root, []string{top}) {
				propose(detected{Agent: p.name, Scope: "project", Dir: filepath.Join(root, filepath.FromSlash(p.project)), Command: "skillstore target add --project " + p.name})
			}
		}
	}
	e := getEnv(c)
	if c.Bool("json") {
		if found == nil {
			found = []detected{}
		}
		return cliout.JSON(e.stdout, found)
	}
	if len(found) == 0 {
		cliout.Println(e.stdout, "no agent found: add a folder with 'skillstore target add NAME DIR'")
		return nil
	}
	t := cliout.NewTable(-1)
	t.Add("AGENT", "SCOPE", "FOLDER", "TARGET")
	for _, d := range found {
		state := "not added: " + d.Command
		if d.Target != "" {
			state = "target " + d.Target
		}
		t.Add(d.Agent, d.Scope, d.Dir, state)
	}
	return t.Write(e.stdout, cliout.NewPainter(e.stdout), 0)
}

// anyDir reports whether one of names is a folder under base.
func anyDir(base string, names []string) bool {
	for _, n := range names {
		if info, err := os.Stat(filepath.Join(base, n)); err == nil && info.IsDir() {
			return true
		}
	}
	return false
}
