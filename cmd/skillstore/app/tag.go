package app

import (
	"context"
	"errors"
	"sort"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store/tags"
)

// TagOptions are the tag commands': the tag and the skill patterns.
type TagOptions struct {
	Global
	Output
	Tag      string
	Patterns []string
}

// TagAdd tags the skills the patterns select.
func TagAdd(ctx context.Context, opts TagOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	added, err := tags.Add(ctx, s, opts.Tag, opts.Patterns)
	var nm *tags.NoMatchError
	if errors.As(err, &nm) {
		return WithHint(err, "run 'skillstore list' to see the skills' names (a plugin's are PLUGIN:NAME)")
	}
	if err != nil {
		return err
	}
	if len(added) == 0 {
		cliout.Printf(opts.Stdout, "every skill given is tagged %s already\n", opts.Tag)
		return nil
	}
	cliout.Printf(opts.Stdout, "tagged %s with %s: %s\n", Plural(len(added), "skill"), opts.Tag, joinAnd(cliout.QuoteAll(added)))
	return nil
}

// TagRemove takes a tag off skills, or deletes it.
func TagRemove(ctx context.Context, opts TagOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	removed, err := tags.Remove(ctx, s, opts.Tag, opts.Patterns)
	if err != nil {
		return WithHint(err, "run 'skillstore tag list' to see the tags")
	}
	if len(opts.Patterns) == 0 {
		cliout.Printf(opts.Stdout, "removed tag %s (it held %s)\n", opts.Tag, Plural(len(removed), "skill"))
		return nil
	}
	cliout.Printf(opts.Stdout, "untagged %s: %s\n", opts.Tag, joinAnd(cliout.QuoteAll(removed)))
	return nil
}

// TagList prints the tags and their skills (one tag's when named).
func TagList(ctx context.Context, opts TagOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	all, err := tags.List(ctx, s)
	if err != nil {
		return err
	}
	if opts.Tag != "" {
		skills, ok := all[opts.Tag]
		if !ok {
			return WithHint(errors.New("no tag named "+cliout.Quote(opts.Tag)), "run 'skillstore tag list' to see the tags")
		}
		all = map[string][]string{opts.Tag: skills}
	}
	if opts.JSON {
		return cliout.JSON(opts.Stdout, all)
	}
	if len(all) == 0 {
		cliout.Println(opts.Stdout, "no tags; tag skills with 'skillstore tag add TAG SKILL...'")
		return nil
	}
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		cliout.Printf(opts.Stdout, "@%s: %s\n", n, joinAnd(all[n]))
	}
	return nil
}
