package app

import (
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/pluginsync"
)

// failedParts are the skills (and the parts) of an added plugin whose
// sync failed for a reason other than their content (what intake leaves
// out is printed by printLeftOut), each with its error.
func failedParts(p pluginsync.PluginReport) []pluginsync.SkillReport {
	if p.Error != "" {
		return nil
	}
	var out []pluginsync.SkillReport
	for _, sk := range withParts(p) {
		if sk.Error != "" {
			out = append(out, sk)
		}
	}
	return out
}

// maxListedNames bounds the names one summary line lists.
const maxListedNames = 20

// writeAddReport prints what plugin add did: per plugin, added, already
// there, renamed, moved, skipped (stderr notes) or failed (stderr errors,
// with hints). Any failure exits 1, after the report.
func writeAddReport(opts PluginAddOptions, src plugins.Source, rep *pluginsync.Report) error {
	failed, leftOut := 0, rep.LeftOutParts()
	for _, p := range rep.Plugins {
		if p.Error != "" {
			failed++
		}
		leftOut += len(failedParts(p))
	}
	if opts.JSON {
		if err := cliout.JSON(opts.Stdout, rep); err != nil || failed+leftOut == 0 {
			return err
		}
		return ErrReported
	}
	for _, r := range rep.Renamed {
		cliout.Printf(opts.Stdout, "plugin %s is now %s (renamed by the marketplace; history kept)\n", r.From, r.To)
	}
	for _, m := range rep.Moved {
		cliout.Printf(opts.Stdout, "plugin %s now follows %s (was %s); the next sync fetches it\n", m.Plugin, m.To, m.From)
	}
	switch n := len(rep.AlreadyAdded); {
	case n == 1:
		cliout.Printf(opts.Stdout, "plugin %s is already added from %s\n", rep.AlreadyAdded[0], src)
	case n > 1: // one line, however long the marketplace
		cliout.Printf(opts.Stdout, "%d plugins are already added from %s: %s\n", n, src, strings.Join(rep.AlreadyAdded, ", "))
	}
	var partsOnly []string // plugins added without skills, named in one line
	for _, p := range rep.Plugins {
		if p.Error != "" {
			continue
		}
		left := failedParts(p)
		added := 0
		for _, sk := range p.Skills {
			if sk.Error == "" && sk.Classification != pluginsync.ClassLeftOut {
				added++
			}
		}
		cliout.Printf(opts.Stdout, "%s plugin %s from %s: %s\n", DryRunWord(opts.DryRun, "added", "would add"), p.Plugin, p.Source, Plural(added, "skill"))
		if p.IDTakenBy != "" {
			cliout.Reportf(opts.Stdout, "      ", "  named %s: the id %s is taken by %s\n", p.Plugin, p.Entry, p.IDTakenBy)
		}
		if p.DisabledByDefault {
			cliout.Printf(opts.Stdout, "  disabled: its manifest says defaultEnabled: false ('skillstore plugin enable %s' exports it)\n", p.Plugin)
		}
		writeDependencies(opts.Stdout, opts.Stderr, p)
		for _, sk := range p.Skills {
			if sk.Error != "" || sk.Classification == pluginsync.ClassLeftOut {
				continue // left out or failed: named on stderr below
			}
			if sk.Classification != pluginsync.ClassNew {
				// A skill linked back to the plugin it left: synced like any update.
				cliout.Printf(opts.Stdout, "  %s linked back: %s\n", sk.Skill, syncLine(sk, false))
				continue
			}
			cliout.Printf(opts.Stdout, "  %s v%d\n", sk.Skill, sk.NewVersion)
			writeFindings(opts.Stdout, sk.Findings, "    ")
		}
		if p.Parts != nil && p.Parts.Error == "" && p.Parts.Classification != pluginsync.ClassLeftOut {
			cliout.Printf(opts.Stdout, "  %s: %s\n", partsLabel(p.Parts.Skill), partsLine(*p.Parts, false))
			writeFindings(opts.Stdout, p.Parts.Findings, "    ")
		}
		if p.Note == pluginsync.NoSkillsNote {
			partsOnly = append(partsOnly, p.Plugin)
		} else if p.Note != "" {
			cliout.Printf(opts.Stderr, "skillstore: note: plugin %s: %s\n", p.Plugin, p.Note)
		}
		for _, sk := range left {
			label := store.QualifiedName(p.Plugin, sk.Skill)
			if sk.Skill == store.PluginPartsUnit(p.Plugin) {
				label = partsLabel(sk.Skill)
			}
			cliout.Printf(opts.Stderr, "skillstore: error: %s: %s\n", label, sk.Error)
		}
		printLeftOut(opts.Stderr, p)
	}
	if len(rep.Dialects) > 1 {
		cliout.Printf(opts.Stderr, "skillstore: note: %s ships manifests for %s; each plugin folder was read once, as the first of them describes it (--dialect NAME reads one)\n",
			src, pluginfmt.JoinDialects(rep.Dialects))
	}
	if len(partsOnly) > 0 {
		flag := "; --skills-only leaves them out"
		if src.Selector != "" {
			flag = "" // picked by name: taken whatever it holds
		}
		cliout.Printf(opts.Stderr, "skillstore: note: %s without skills added with their other parts (commands, agents, hooks or servers%s): %s\n",
			Plural(len(partsOnly), "plugin"), flag, NameSummary(partsOnly, maxListedNames))
	}
	var noSkills []string
	for _, sk := range rep.Skipped {
		if sk.Reason == pluginfmt.NoSkillsReason {
			noSkills = append(noSkills, sk.Name)
			continue
		}
		cliout.Printf(opts.Stderr, "skillstore: note: plugin %s of the marketplace not added: %s\n", sk.Name, sk.Reason)
	}
	if len(noSkills) > 0 {
		cliout.Printf(opts.Stderr, "skillstore: note: %s without skills left out (--skills-only); add one alone with SOURCE#NAME to version its parts: %s\n",
			Plural(len(noSkills), "plugin"), NameSummary(noSkills, maxListedNames))
	}
	printUnreached(opts.Stderr, src, rep.Unreached)
	printSyncWarnings(opts.Stderr, rep, opts.Verbose)
	NoteDryRun(opts.Stdout, opts.DryRun, opts.JSON)
	if failed == 0 && leftOut > 0 {
		return ErrReported // the rest was added; what was left out is named above
	}
	if failed == 0 {
		return nil
	}
	var failures []failure
	for _, p := range rep.Plugins {
		if p.Err != nil {
			failures = append(failures, failure{Name: p.Plugin, Err: p.Err})
		}
	}
	printFailures(opts.Stderr, "plugins", failures, opts.Verbose, opts.printError)
	for _, p := range rep.Plugins {
		if p.Err != nil {
			printLeftOut(opts.Stderr, p) // --strict: what would have been left out
		}
	}
	if total := len(rep.Plugins) + len(rep.AlreadyAdded) + len(rep.Skipped); total > 1 {
		cliout.Printf(opts.Stderr, "skillstore: %s of %s failed (nothing written for them); %d added\n", Plural(failed, "plugin"), src, len(rep.Plugins)-failed)
	}
	return ErrReported
}

// maxUnreachedFolders bounds the folders the unreached line names.
const maxUnreachedFolders = 3

// printUnreached names, in one line, the skill folders of the source
// that no plugin of its layout reaches, and the SOURCE#FOLDER/ that takes
// them in.
func printUnreached(w io.Writer, src plugins.Source, u *pluginsync.Unreached) {
	if u == nil || len(u.Skills) == 0 {
		return
	}
	folder := func(f pluginfmt.UnreachedFolder) string { return path.Join(src.Path, f.Folder) }
	how := fmt.Sprintf("'skillstore plugin add %s#%s/'", src.URL, folder(u.Folders[0]))
	if len(u.Folders) == 1 {
		how += " (or --path " + folder(u.Folders[0]) + ")"
	} else {
		how += fmt.Sprintf(" (%d)", u.Folders[0].Skills)
		for _, f := range u.Folders[1:min(len(u.Folders), maxUnreachedFolders)] {
			how += fmt.Sprintf(", #%s/ (%d)", folder(f), f.Skills)
		}
		if n := len(u.Folders) - maxUnreachedFolders; n > 0 {
			how += fmt.Sprintf(" and %d more folders", n)
		}
	}
	named := NameSummary(u.Skills, 5)
	verb, them := "are", "them"
	if len(u.Skills) == 1 {
		verb, them = "is", "it"
	}
	cliout.Printf(w, "skillstore: note: %s of the source %s in none of its plugins, not added: %s; add %s with %s\n",
		Plural(len(u.Skills), "skill folder"), verb, named, them, how)
}

// writeDependencies prints how the store meets a plugin's dependencies:
// a line each on w for those met (added with it, or there already), a
// warning on errw for each unmet one, saying why.
func writeDependencies(w, errw io.Writer, p pluginsync.PluginReport) {
	for _, d := range p.Dependencies {
		switch {
		case d.Unmet != "":
			cliout.Printf(errw, "skillstore: warning: plugin %s needs %s: %s\n", p.Plugin, d.Dependency, d.Unmet)
		case d.Added:
			cliout.Printf(w, "  needs %s: added with it as %s\n", d.Dependency, d.By)
		default:
			cliout.Printf(w, "  needs %s: met by %s\n", d.Dependency, joinNonEmpty(d.By, d.Version))
		}
	}
}
