package app

import (
	"context"
	"errors"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/reload/target"
)

// StatusOptions are status's.
type StatusOptions struct {
	Global
	Output
}

// Status lists the skills edited in the target folders since export wrote
// them. A target whose folders could not be compared is the error; the
// others are shown first.
func Status(ctx context.Context, opts StatusOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	targets, err := target.List(ctx, s, nil)
	if err != nil {
		return err
	}
	sts, err := target.Status(ctx, s, targets, opts.TargetOptions(false))
	var failed *target.StatusError
	if err != nil && !errors.As(err, &failed) {
		return err
	}
	if opts.JSON {
		if sts == nil {
			sts = []target.SkillStatus{}
		}
		if werr := cliout.JSON(opts.Stdout, sts); werr != nil {
			return werr
		}
		return err
	}
	if len(targets) == 0 {
		cliout.Println(opts.Stdout, "no targets; add one with 'skillstore target add NAME DIR'")
		return nil
	}
	verbose := opts.Verbose
	tw := cliout.NewTable(2)
	shown := 0
	for _, st := range sts {
		st.Skill = statusName(st)
		switch {
		case st.State == reload.StateModified:
			prefix := string(st.Class) + ": "
			tw.AddFit(func(budget int) string {
				return prefix + cliout.FileSummary(st.Paths, max(budget-len(prefix), -1), verbose)
			}, st.Target, st.Skill, "modified")
		case st.State == reload.StateMissing:
			tw.Add(st.Target, st.Skill, "missing", "deleted from the target; the next export installs it again")
		case st.State == reload.StateLinked:
			tw.Add(st.Target, st.Skill, "linked", "a symbolic link to "+st.Link+"; export and capture leave it alone")
		case st.State == reload.StateForeign && st.Link != "":
			tw.Add(st.Target, st.Skill, "foreign", "a symbolic link to "+st.Link+" that export did not create; 'skillstore export --replace-links' replaces it if it points at a copy skillstore manages")
		case st.State == reload.StateForeign:
			tw.Add(st.Target, st.Skill, "foreign", "a folder export did not create, unlike the published version; export leaves it alone: move it away to let export write the skill")
		case st.State == reload.StateConflict:
			tw.Add(st.Target, st.Skill, "conflict", st.Error)
		case st.State == reload.StateRaced:
			tw.Add(st.Target, st.Skill, "raced", "edited while export replaced it; the edit is kept in "+st.Dir+": run 'skillstore capture'")
		case st.State == reload.StateUnreadable:
			tw.Add(st.Target, st.Skill, "unreadable", st.Error+"; export and capture leave it alone: remove or fix that entry")
		case st.State == reload.StateIgnored:
			tw.Add(st.Target, st.Skill, "ignored", st.Error)
		case st.Outdated:
			tw.Add(st.Target, st.Skill, "outdated", "a newer version is published; run 'skillstore export'")
		default:
			continue
		}
		shown++
	}
	tw.Write(opts.Stdout, cliout.NewPainter(opts.Stdout), cliout.Width(opts.Stdout, verbose))
	if shown == 0 && failed == nil {
		cliout.Printf(opts.Stdout, "every exported skill is as export wrote it (%s in %s)\n", Plural(len(sts), "skill folder"), Plural(len(targets), "target"))
	}
	return err
}

// statusName is how status names a skill: its store name, and its folder
// when that is another name (a plugin's skill in a flat target).
func statusName(st target.SkillStatus) string {
	if st.Folder != "" && st.Folder != shortSkillName(st.Skill) {
		return st.Skill + " (folder " + st.Folder + ")"
	}
	return st.Skill
}
