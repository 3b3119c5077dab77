package main

import (
	"bufio"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
)

type skillJSON struct {
	// Name is the store name: PLUGIN:NAME for a plugin's skill.
	Name string `json:"name"`
	// Plugin is the plugin part of a qualified name, for scripts that
	// group by plugin without splitting names.
	Plugin      string    `json:"plugin,omitempty"`
	Version     int       `json:"version"`
	Status      string    `json:"status"`
	Reason      string    `json:"reason,omitempty"`
	Source      string    `json:"source"`
	Description string    `json:"description"`
	Commit      string    `json:"commit"`
	Time        time.Time `json:"time"`
	Risk        string    `json:"risk"`
	Score       int       `json:"score,omitempty"`
}

func toSkillJSON(s store.SkillInfo) skillJSON {
	plugin, _ := store.SplitName(s.Name)
	return skillJSON{Name: s.Name, Plugin: plugin, Version: s.Number, Status: string(s.Status), Reason: s.Reason, Source: s.Source,
		Description: s.Description, Commit: s.Commit.String(), Time: s.Time.UTC(), Risk: s.Risk.String()}
}

func storeListCommand() *cli.Command {
	return &cli.Command{
		Name:     "list",
		Category: "skills",
		Usage:    "list the skills in the store",
		Description: "list prints each skill's name, latest version, status (active, disabled, removed),\n" +
			"source (managed or the plugin it comes from) and description. Removed skills are\n" +
			"shown only with --all.\n\nExit codes: 0 ok; 1 error; 3 store busy.",
		Flags: []cli.Flag{newJSONFlag(), &cli.BoolFlag{Name: "all", Usage: "include removed skills"}},
		Action: func(c *cli.Context) error {
			s, _, err := openStoreArgs(c, 0, 0)
			if err != nil {
				return err
			}
			skills, err := s.List(c.Context, c.Bool("all"))
			if err != nil {
				return err
			}
			e := getEnv(c)
			if c.Bool("json") {
				out := make([]skillJSON, 0, len(skills))
				for _, sk := range skills {
					out = append(out, toSkillJSON(sk))
				}
				return cliout.JSON(e.stdout, out)
			}
			if len(skills) == 0 {
				cliout.Println(e.stdout, "no skills yet; record one with 'skillstore add PATH'")
				return nil
			}
			// Buffered: tabwriter writes each cell apart, a system call
			// each, which was a quarter of listing 50,000 skills.
			bw := bufio.NewWriterSize(e.stdout, 64<<10)
			tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
			cliout.Printf(tw, "NAME\tVERSION\tSTATUS\tSOURCE\tDESCRIPTION\n")
			for _, sk := range skills {
				cliout.Printf(tw, "%s\tv%d\t%s\t%s\t%s\n", sk.Name, sk.Number, sk.Status, sk.Source, oneLineTrunc(sk.Description, 60))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			return bw.Flush()
		},
	}
}

func storeSearchCommand() *cli.Command {
	return &cli.Command{
		Name:      "search",
		Category:  "skills",
		Usage:     "find skills by name and description",
		ArgsUsage: "TERM",
		Description: "search ranks the skills (not removed ones) whose name or description contains every\n" +
			"word of TERM: exact names first, then name prefixes, names containing TERM, then\n" +
			"description matches.\n\nExit codes: 0 matches found; 1 no match or error; 3 store busy.",
		Flags: []cli.Flag{newJSONFlag()},
		Action: func(c *cli.Context) error {
			args, err := storeArgs(c, 1, -1)
			if err != nil {
				return err
			}
			term := strings.Join(args, " ")
			s, err := openStore(c)
			if err != nil {
				return err
			}
			matches, err := s.Search(c.Context, term)
			if err != nil {
				return err
			}
			e := getEnv(c)
			if c.Bool("json") {
				out := make([]skillJSON, 0, len(matches))
				for _, m := range matches {
					j := toSkillJSON(m.SkillInfo)
					j.Score = m.Score
					out = append(out, j)
				}
				if err := cliout.JSON(e.stdout, out); err != nil {
					return err
				}
			} else {
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				for _, m := range matches {
					cliout.Printf(tw, "%s\tv%d\t%s\n", m.Name, m.Number, oneLineTrunc(m.Description, 70))
				}
				tw.Flush()
			}
			if len(matches) == 0 {
				return fmt.Errorf("no skill matches %q", term)
			}
			return nil
		},
	}
}

// oneLineTrunc folds whitespace and cuts s to n runes.
func oneLineTrunc(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
