package app

import (
	"bufio"
	"context"
	"fmt"
	"text/tabwriter"
	"time"

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

// ListOptions are list's; All includes removed skills.
type ListOptions struct {
	Global
	Output
	All bool
}

// List prints the skills in the store.
func List(ctx context.Context, opts ListOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	skills, err := s.List(ctx, opts.All)
	if err != nil {
		return err
	}
	if opts.JSON {
		out := make([]skillJSON, 0, len(skills))
		for _, sk := range skills {
			out = append(out, toSkillJSON(sk))
		}
		return cliout.JSON(opts.Stdout, out)
	}
	if len(skills) == 0 {
		cliout.Println(opts.Stdout, "no skills yet; record one with 'skillstore add PATH'")
		return nil
	}
	// Buffered: tabwriter writes each cell apart, a system call
	// each, which was a quarter of listing 50,000 skills.
	bw := bufio.NewWriterSize(opts.Stdout, 64<<10)
	tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	cliout.Printf(tw, "NAME\tVERSION\tSTATUS\tSOURCE\tDESCRIPTION\n")
	for _, sk := range skills {
		cliout.Printf(tw, "%s\tv%d\t%s\t%s\t%s\n", sk.Name, sk.Number, sk.Status, sk.Source, oneLineTrunc(sk.Description, 60))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}

// SearchOptions are search's: Term is every word the command was given.
type SearchOptions struct {
	Global
	Output
	Term string
}

// Search prints the skills whose name or description matches the term,
// best first; no match is an error.
func Search(ctx context.Context, opts SearchOptions) error {
	term := opts.Term
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	matches, err := s.Search(ctx, term)
	if err != nil {
		return err
	}
	if opts.JSON {
		out := make([]skillJSON, 0, len(matches))
		for _, m := range matches {
			j := toSkillJSON(m.SkillInfo)
			j.Score = m.Score
			out = append(out, j)
		}
		if err := cliout.JSON(opts.Stdout, out); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(opts.Stdout, 0, 4, 2, ' ', 0)
		for _, m := range matches {
			cliout.Printf(tw, "%s\tv%d\t%s\n", m.Name, m.Number, oneLineTrunc(m.Description, 70))
		}
		tw.Flush()
	}
	if len(matches) == 0 {
		return fmt.Errorf("no skill matches %q", term)
	}
	return nil
}
