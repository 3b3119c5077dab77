package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
)

// ExportOptions are export's: the targets (all when none) and how.
type ExportOptions struct {
	Global
	Output
	Targets []string
	// ReplaceLinks replaces skill folders that are symbolic links to
	// copies skillstore manages with the exported folders.
	ReplaceLinks bool
	// DryRun reports what export would do in each target, writing
	// nothing: target.Export on a dry-run store (see target.Plan).
	DryRun bool
	// MaxBudget refuses to export into a target whose skills list would
	// go past it, in place of the targets' own (target.ParseMaxBudget).
	MaxBudget string
}

// Export writes the published skills into the targets and prints what it
// did with each.
func Export(ctx context.Context, opts ExportOptions) error {
	s, err := opts.OpenStoreFor(ctx, opts.DryRun)
	if err != nil {
		return err
	}
	targets, err := target.List(ctx, s, opts.Targets)
	if err != nil {
		return err
	}
	if len(targets) == 0 {
		return WithHint(errors.New("no targets to export to"), "add one with 'skillstore target add NAME DIR'")
	}
	to := opts.TargetOptions(opts.ReplaceLinks)
	to.MaxBudget = opts.MaxBudget
	out, err := target.Export(ctx, s, targets, to)
	if opts.JSON {
		if jerr := cliout.JSON(opts.Stdout, out); jerr != nil {
			return jerr
		}
	} else {
		PrintExports(opts.Stdout, out, opts.Verbose)
		printListings(opts.Stdout, s, out, opts.Verbose)
		WriteDoubleLoads(opts.Stdout, DoubleLoads(ctx, opts.Global, s, targets))
		NoteDryRun(opts.Stdout, opts.DryRun, opts.JSON)
	}
	return err
}

// withoutUnchanged is out without the skills export found as they were:
// what a person reads after an export is what changed, and the summary
// line counts the rest (--verbose lists them).
func withoutUnchanged(out []target.Exported) []target.Exported {
	shown := make([]target.Exported, len(out))
	for i, te := range out {
		te.Results = slices.DeleteFunc(slices.Clone(te.Results), func(r reload.Result) bool { return r.Action == reload.ActionUnchanged })
		shown[i] = te
	}
	return shown
}

// exportSummary is export's last line: how many targets and skills, and
// how many of them each action touched ("2 targets, 30 skill folders: 1
// installed, 29 unchanged").
func exportSummary(out []target.Exported) string {
	counts := map[string]int{}
	skills := 0
	for _, te := range out {
		for _, r := range te.Results {
			skills++
			counts[summaryWord(r)]++
		}
	}
	var parts []string
	for _, word := range []string{"installed", "updated", "removed", "left alone", "failed", "unchanged"} {
		if counts[word] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[word], word))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "nothing to export")
	}
	return fmt.Sprintf("%s, %s: %s", Plural(len(out), "target"), Plural(skills, "skill folder"), strings.Join(parts, ", "))
}

// summaryWord is the summary's word for what export did with a skill.
func summaryWord(r reload.Result) string {
	switch r.Action {
	case reload.ActionUnchanged:
		return "unchanged"
	case reload.ActionCold:
		if r.OldTree.IsZero() {
			return "installed"
		}
		return "updated"
	case reload.ActionHot, reload.ActionAdopted, reload.ActionLinkReplaced:
		return "updated"
	case reload.ActionRemoved:
		return "removed"
	case reload.ActionFailed, reload.ActionConflict:
		return "failed"
	}
	return "left alone"
}

// TargetOptions are the logger and lock timeout every target command
// uses, and whether export replaces links to managed copies.
func (g Global) TargetOptions(replaceLinks bool) target.Options {
	return target.Options{Logger: g.Log, LockTimeout: g.LockTimeout, ReplaceLinks: replaceLinks}
}

// PrintExports prints what an export changed, a line per skill, and one
// summary line counting all of them: the skills it found as they were
// are counted, and listed only when verbose (an accept among hundreds of
// skills prints its own, not hundreds). Nothing when nothing was exported.
func PrintExports(w io.Writer, exports []target.Exported, verbose bool) {
	shown := exports
	if !verbose {
		shown = withoutUnchanged(exports)
	}
	printExportRows(w, shown, verbose)
	for _, te := range exports {
		if len(te.Results) > 0 || te.Error != "" {
			cliout.Println(w, exportSummary(exports))
			return
		}
	}
}

// printExportRows prints one line per skill: target, skill, action, detail.
// File lists are summarised to fit the terminal (all when verbose) and
// actions coloured on a terminal.
func printExportRows(w io.Writer, exports []target.Exported, verbose bool) {
	t := cliout.NewTable(2)
	for _, te := range exports {
		if te.Error != "" && len(te.Results) == 0 {
			t.Add(te.Target, "-", "failed", te.Error)
		}
		for _, r := range te.Results {
			r := r
			if te.Kind != "" && (r.Action == reload.ActionLocallyModified || r.Action == reload.ActionForeign) {
				t.Add(te.Target, r.Skill, string(r.Action), marketplaceLeftAlone(r))
				continue
			}
			t.AddFit(func(budget int) string { return exportDetail(r, budget, verbose) }, te.Target, r.Skill, string(r.Action))
		}
		if !te.Atomic && len(te.Results) > 0 && te.Error == "" {
			t.Add(te.Target, "-", "note", "this filesystem cannot exchange folders atomically; folders were replaced by two renames")
		}
		for _, w := range te.Warnings {
			t.Add(te.Target, "-", "warning", w)
		}
		for _, lo := range te.LeftOut {
			tail := " (" + lo.Why + ")"
			t.AddFit(func(budget int) string {
				if budget >= 0 {
					budget = max(budget-len("left out: ")-len(tail), 10)
				}
				return "left out: " + cliout.FileSummary(lo.Paths, budget, verbose) + tail
			}, te.Target, lo.Plugin, "note")
		}
	}
	t.Write(w, cliout.NewPainter(w), cliout.Width(w, verbose))
}

// exportDetail says what export did with a skill, its file list fitted
// into budget columns (see cliout.FileSummary).
func exportDetail(r reload.Result, budget int, verbose bool) string {
	where := folderNote(r)
	if where != "" {
		if budget >= 0 {
			budget = max(budget-len(where)-1, 10)
		}
		return where + " " + exportAction(r, budget, verbose)
	}
	return exportAction(r, budget, verbose)
}

func exportAction(r reload.Result, budget int, verbose bool) string {
	files := func(prefixLen int) string {
		if budget >= 0 {
			budget = max(budget-prefixLen, 10)
		}
		return cliout.FileSummary(r.Paths, budget, verbose)
	}
	switch r.Action {
	case reload.ActionHot, reload.ActionCold, reload.ActionRemoved:
		if r.Action == reload.ActionCold && r.OldTree.IsZero() {
			return "installed: " + files(len("installed: "))
		}
		return files(0)
	case reload.ActionLocallyModified:
		tail := "); run 'skillstore capture " + r.Skill + "'"
		return "left alone: edited in the target (" + files(len("left alone: edited in the target (")+len(tail)) + tail
	case reload.ActionForeign:
		if r.Link != "" {
			return "left alone: a symbolic link to " + r.Link + " that export did not create; 'skillstore export --replace-links' replaces it if it points at a copy skillstore manages"
		}
		return "left alone: export did not create this folder; move it away to let export write the skill"
	case reload.ActionFailed, reload.ActionConflict:
		return r.Error
	case reload.ActionLinked:
		return "left alone: the skill folder is a symbolic link; skillstore neither writes through it nor replaces it"
	case reload.ActionAdopted:
		return "the folder already held this version; export manages it from now on"
	case reload.ActionLinkReplaced:
		return "the symbolic link to " + r.Link + " was replaced by the exported folder (" + r.Link + " is left as it is)"
	}
	return ""
}

// marketplaceLeftAlone says why export left a plugin folder or the catalog
// of a marketplace target alone: capture does not read marketplaces, so
// the way out is to move the edit into the store or the file away.
func marketplaceLeftAlone(r reload.Result) string {
	if r.Action == reload.ActionForeign {
		return "left alone: export did not write it; move it away to let export write it"
	}
	return "left alone: edited since export wrote it; record the edit in the store (skillstore add), then move it away to let export write it again"
}

// folderNote says where a skill is when its folder is not its name (a
// plugin's skill in a flat target) or changed hands; "" otherwise.
func folderNote(r reload.Result) string {
	var parts []string
	switch {
	case r.MovedTo != "":
		parts = append(parts, "folder "+r.Folder+", moved to "+r.MovedTo)
	case r.MovedFrom != "" && r.Folder != "":
		parts = append(parts, "folder "+r.Folder+" (renamed from "+r.MovedFrom+")")
	case r.MovedFrom != "":
		parts = append(parts, "folder "+r.Skill+" (renamed from "+r.MovedFrom+")")
	case r.Folder != "" && r.Folder != shortSkillName(r.Skill) && r.Action != reload.ActionRemoved:
		parts = append(parts, "folder "+r.Folder+" (name adjusted: the short name is taken)")
	case r.Folder != "" && r.Folder != shortSkillName(r.Skill):
		parts = append(parts, "folder "+r.Folder)
	}
	if r.Was != "" {
		parts = append(parts, "folder held "+r.Was+" before")
	}
	if len(parts) == 0 {
		return ""
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// shortSkillName is a store name without its plugin.
func shortSkillName(name string) string {
	_, short := store.SplitName(name)
	return short
}
