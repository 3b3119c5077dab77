package app

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
)

// PluginSkillsOptions are plugin skills': without Add, Remove or All it
// lists the plugin's skills; with them it changes its selection.
type PluginSkillsOptions struct {
	Global
	Output
	ID          string
	Add, Remove []string
	All         bool
}

// PluginSkills lists a plugin's mirrored and available skills, or changes
// which it mirrors.
func PluginSkills(ctx context.Context, opts PluginSkillsOptions) error {
	id := opts.ID
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	if len(opts.Add) == 0 && len(opts.Remove) == 0 && !opts.All {
		var list *plugins.SkillList
		err := s.View(ctx, func(r *store.Reader) error {
			list, err = plugins.Skills(r, id)
			return err
		})
		if err != nil {
			return err
		}
		if opts.JSON {
			return cliout.JSON(opts.Stdout, list)
		}
		cliout.Printf(opts.Stdout, "%s  selection: %s", id, plugins.SelectionText(list.Select))
		if list.Commit != "" {
			cliout.Printf(opts.Stdout, "  upstream at %s", list.Commit[:12])
		}
		cliout.Println(opts.Stdout)
		if list.UpstreamError != "" {
			cliout.Printf(opts.Stdout, "  upstream not readable: %s\n", list.UpstreamError)
		}
		tw := tabwriter.NewWriter(opts.Stdout, 0, 4, 2, ' ', 0)
		for _, sk := range list.Skills {
			version := ""
			if sk.Version > 0 {
				version = fmt.Sprintf("v%d", sk.Version)
			}
			cliout.Printf(tw, "  %s\t%s\t%s\n", sk.Skill, version, skillStateText[sk.State])
		}
		return tw.Flush()
	}
	ch, err := plugins.ChangeSelection(ctx, s, id, opts.Add, opts.Remove, opts.All)
	if err != nil && !errors.Is(err, store.ErrNoChange) {
		return err
	}
	if opts.JSON {
		return cliout.JSON(opts.Stdout, ch)
	}
	if err != nil {
		cliout.Printf(opts.Stdout, "plugin %s: the selection is already %s\n", id, plugins.SelectionText(ch.After))
		return nil
	}
	cliout.Printf(opts.Stdout, "plugin %s: selection %s -> %s\n", id, plugins.SelectionText(ch.Before), plugins.SelectionText(ch.After))
	for _, sk := range ch.Managed {
		cliout.Printf(opts.Stdout, "  %s: a managed skill now (history kept; selecting it again links it back)\n", sk)
	}
	for _, sk := range ch.Next {
		cliout.Printf(opts.Stdout, "  %s: selected; the next sync mirrors it ('skillstore sync %s')\n", sk, id)
	}
	return nil
}

var skillStateText = map[string]string{
	plugins.SkillMirrored:        "mirrored",
	plugins.SkillSelected:        "selected (the next sync mirrors it)",
	plugins.SkillAvailable:       "available (not selected)",
	plugins.SkillAdopted:         "adopted (managed)",
	plugins.SkillRemovedUpstream: "removed upstream (kept)",
}

// LinkOptions are plugin link's.
type LinkOptions struct {
	Global
	Output
	ID, Skill string
	// DryRun reports the upstream commit that would be chosen, writing
	// nothing.
	DryRun bool
}

// LinkSkill makes a managed skill the plugin's skill of the same name,
// history kept, and says which upstream commit became its base.
func LinkSkill(ctx context.Context, opts LinkOptions) error {
	id, skill := opts.ID, opts.Skill
	s, err := opts.OpenStoreFor(ctx, opts.DryRun)
	if err != nil {
		return err
	}
	w := opts.Stdout
	res, err := plugins.Link(ctx, s, id, skill)
	if errors.Is(err, store.ErrNoChange) {
		cliout.Printf(w, "%s is already a skill of plugin %s\n", skill, id)
		return nil
	}
	if err != nil {
		return err
	}
	if opts.JSON {
		return cliout.JSON(w, res)
	}
	b := res.Base
	match := "exact match"
	if !b.Exact {
		match = fmt.Sprintf("closest match: %s, %s differ", Plural(b.Files, "file"), Plural(b.Distance, "line"))
	}
	if b.Truncated {
		match += "; the search stopped at its limit"
	}
	linked := DryRunWord(opts.DryRun, "linked", "would link")
	if b.Commit.IsZero() {
		cliout.Printf(w, "%s %s to plugin %s at its folder's current files (%s)\n", linked, skill, id, match)
	} else {
		cliout.Reportf(w, "    ", "%s %s to plugin %s at upstream commit %s (%s; %s searched)\n",
			linked, skill, id, b.Commit, match, Plural(b.Walked, "commit"))
	}
	if res.LocalEdit {
		cliout.Printf(w, "the difference from that commit is kept as a local edit: upstream's later changes come as a three-way candidate\n")
	}
	if res.SelectChanged {
		cliout.Printf(w, "plugin %s's selection is now %s\n", id, plugins.SelectionText(res.Select))
	}
	cliout.Printf(w, "%s v%d records the base; the next 'skillstore sync %s' brings upstream's later changes\n", skill, res.Version, id)
	NoteDryRun(w, opts.DryRun, opts.JSON)
	return nil
}
