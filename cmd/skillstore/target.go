package main

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/skillstore/skillstore/store"
	"github.com/urfave/cli/v2"
)

func init() { register(targetCommand()) }

// targetRecord is a target as the store's state records it, at
// "targets/<name>": an agent's skills folder and the skills exported to it.
type targetRecord struct {
	Name string `json:"name"`
	Dir  string `json:"dir"`
	// Skills are glob patterns (path.Match) of skill names; empty means
	// every active skill.
	Skills []string `json:"skills,omitempty"`
}

func targetRecordPath(name string) string { return "targets/" + name }

// wants reports whether the target exports skill.
func (t targetRecord) wants(skill string) bool {
	if len(t.Skills) == 0 {
		return true
	}
	for _, g := range t.Skills {
		if ok, _ := path.Match(g, skill); ok {
			return true
		}
	}
	return false
}

// Compiled on first use rather than at start-up, which every command pays.
var targetNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`) })

func targetCommand() *cli.Command {
	return &cli.Command{
		Name:     "target",
		Category: "targets",
		Usage:    "manage the agents' skills folders that export writes to",
		Description: "A target is an agent's skills folder (~/.claude/skills, ~/.codex/skills,\n" +
			".agents/skills, ...). 'skillstore export' writes the active published skills\n" +
			"into every target, one folder per skill, and never touches folders it did\n" +
			"not create.\n\n" +
			"Exit codes: 0 success, 1 error (unknown target, store problem), 2 usage error,\n" +
			"3 store lock busy.",
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "add a target folder",
				ArgsUsage: "NAME DIR",
				Description: "Records the target NAME (lowercase letters, digits, '.', '_', '-') for the\n" +
					"folder DIR, which need not exist yet. --skills limits the target to skills\n" +
					"whose names match one of the glob patterns (repeatable, e.g. --skills 'git-*').\n\n" +
					"Examples:\n" +
					"  skillstore target add claude ~/.claude/skills\n" +
					"  skillstore target add codex ~/.codex/skills --skills 'deploy*' --skills lint",
				Flags: []cli.Flag{
					&cli.StringSliceFlag{Name: "skills", Usage: "export only skills matching `GLOB` (repeatable)"},
				},
				Action: runTargetAdd,
			},
			{
				Name:   "list",
				Usage:  "list targets",
				Flags:  []cli.Flag{newJSONFlag()},
				Action: runTargetList,
			},
			{
				Name:      "rm",
				Usage:     "forget a target (its folder is left as it is)",
				ArgsUsage: "NAME",
				Action:    runTargetRm,
			},
		},
	}
}

// readTargets returns the targets named (all of them when names is empty),
// sorted by name.
func readTargets(ctx context.Context, s *store.Store, names []string) ([]targetRecord, error) {
	var out []targetRecord
	err := s.View(ctx, func(r *store.Reader) error {
		keys, err := r.RecordKeys("targets")
		if err != nil {
			return err
		}
		if len(names) > 0 {
			keys = names
		}
		for _, k := range keys {
			var t targetRecord
			ok, err := r.Record(targetRecordPath(k), &t)
			if err != nil {
				return err
			}
			if !ok {
				return withHint(fmt.Errorf("no target named %q", k), "run 'skillstore target list' to see the targets")
			}
			t.Name = k
			out = append(out, t)
		}
		return nil
	})
	return out, storeErr(err)
}

func runTargetAdd(c *cli.Context) error {
	args := c.Args().Slice()
	if len(args) != 2 {
		return withHint(usageErrorf("target add takes NAME and DIR"), "run 'skillstore target add --help' for usage")
	}
	name, dir := args[0], args[1]
	if !targetNameRE().MatchString(name) {
		return usageErrorf("target name %q: use lowercase letters, digits, '.', '_' and '-'", name)
	}
	globs := c.StringSlice("skills")
	for _, g := range globs {
		if _, err := path.Match(g, ""); err != nil || g == "" {
			return usageErrorf("--skills %q is not a valid glob pattern", g)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if info, err := os.Stat(abs); err == nil && !info.IsDir() {
		return withHint(fmt.Errorf("target %s: %s is not a folder", name, abs), "give the agent's skills folder, for example ~/.claude/skills")
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	if inside(abs, s.Dir()) || inside(s.Dir(), abs) {
		return fmt.Errorf("target %s: %s overlaps the store at %s", name, abs, s.Dir())
	}
	err = s.Update(c.Context, func(tx *store.Tx) error {
		keys, err := tx.RecordKeys("targets")
		if err != nil {
			return err
		}
		for _, k := range keys {
			var t targetRecord
			if _, err := tx.Record(targetRecordPath(k), &t); err != nil {
				return err
			}
			if k == name {
				return withHint(fmt.Errorf("target %q already exists (%s)", name, t.Dir), "remove it first with 'skillstore target rm "+name+"'")
			}
			if t.Dir == abs {
				return withHint(fmt.Errorf("target %q already writes to %s", k, abs), "two targets cannot share a folder")
			}
		}
		if err := tx.PutRecord(targetRecordPath(name), targetRecord{Name: name, Dir: abs, Skills: globs}); err != nil {
			return err
		}
		tx.NoteState("target add " + name)
		return nil
	})
	if err != nil {
		return storeErr(err)
	}
	fmt.Fprintf(getEnv(c).stdout, "added target %s: %s\n", name, abs)
	return nil
}

// inside reports whether p is dir or below it.
func inside(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func runTargetList(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("target list takes no arguments")
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	targets, err := readTargets(c.Context, s, nil)
	if err != nil {
		return err
	}
	e := getEnv(c)
	if c.Bool("json") {
		if targets == nil {
			targets = []targetRecord{}
		}
		return writeJSON(e.stdout, targets)
	}
	if len(targets) == 0 {
		fmt.Fprintln(e.stdout, "no targets; add one with 'skillstore target add NAME DIR'")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tDIR\tSKILLS")
	for _, t := range targets {
		skills := "*"
		if len(t.Skills) > 0 {
			skills = strings.Join(t.Skills, ", ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, t.Dir, skills)
	}
	return tw.Flush()
}

func runTargetRm(c *cli.Context) error {
	if c.NArg() != 1 {
		return withHint(usageErrorf("target rm takes one NAME"), "run 'skillstore target list' to see the targets")
	}
	name := c.Args().First()
	s, err := openStore(c)
	if err != nil {
		return err
	}
	var dir string
	err = s.Update(c.Context, func(tx *store.Tx) error {
		var t targetRecord
		ok, err := tx.Record(targetRecordPath(name), &t)
		if err != nil {
			return err
		}
		if !ok {
			return withHint(fmt.Errorf("no target named %q", name), "run 'skillstore target list' to see the targets")
		}
		dir = t.Dir
		tx.DeleteRecord(targetRecordPath(name))
		tx.NoteState("target rm " + name)
		return nil
	})
	if err != nil {
		return storeErr(err)
	}
	fmt.Fprintf(getEnv(c).stdout, "removed target %s; its folder %s is left as it is\n", name, dir)
	return nil
}
