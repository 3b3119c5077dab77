package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
)

// adoptCommand is 'adopt': an existing installation taken over.
func adoptCommand() *cli.Command {
	return &cli.Command{
		Name:     "adopt",
		Category: "skills",
		Usage:    "take an existing installation over: agents' skill folders, npx skills installs",
		Description: "Reads, when present: the skill folders ~/.agents/skills, ~/.claude/skills and\n" +
			"~/.codex/skills (and .agents/skills, .claude/skills under --project), following\n" +
			"symlinked skill folders inside the home (or project); ~/.agents/.skill-lock.json and\n" +
			"the project's skills-lock.json ('npx skills'); ~/.claude/plugins/installed_plugins.json\n" +
			"and known_marketplaces.json (Claude Code's installed plugins: each installed skill\n" +
			"becomes PLUGIN:SKILL of the plugin from its marketplace's repository, on the commit\n" +
			"Claude Code installed, gitCommitSha). A skill whose lock file names a\n" +
			"source (github, git URL, local) becomes a skill of the plugin whose tree holds its\n" +
			"skillPath (a plugin of that repository the store has reused, whatever it selects;\n" +
			"else that plugin added) on the upstream commit it was installed from: the lock\n" +
			"file's skillFolderHash, else the closest commit; a local edit is kept on top (a\n" +
			"candidate when the plugin mirrors the skill already). Other skills are imported as\n" +
			"managed skills. Identical copies\n" +
			"in several agent folders are one skill. Nothing in the agents' folders is changed;\n" +
			"every entry left out is listed with its reason, and the 'target add' commands to\n" +
			"run next are printed.\n\n" +
			"A source on this machine (sourceType local, a file:// URL) that the project's\n" +
			"lock file names is not followed (the skill is taken in as managed) unless\n" +
			"--allow-local names it or a folder above it; the records in your home are your\n" +
			"own word: their local sources are followed, each listed (in --dry-run too).\n\n" +
			"Exit codes: 0 all taken over (stray files, listed, do not count); 1 some entries\n" +
			"failed or were skipped (the rest were taken over);\n" +
			"2 usage; 3 store busy.",
		Flags: append(addFlags(), dryRunFlag("print what would happen, skill by skill, writing nothing"),
			&cli.StringFlag{Name: "home", Usage: "the home folder to read (default $HOME)"},
			&cli.StringFlag{Name: "project", Usage: "also read this project's .agents/skills, .claude/skills and skills-lock.json"},
			&cli.StringSliceFlag{Name: "allow-local", Usage: "follow the project's local sources at or below DIR or file:// URL (repeatable)"}),
		Action: runAdopt,
	}
}

// adoptReport is what adopt prints (--json).
type adoptReport struct {
	Skills  []adoptSkillReport `json:"skills"`
	Skipped []adoptSkip        `json:"skipped"`
	// ClaudePlugins are the Claude Code plugins whose skills were taken
	// over ("plugin@marketplace").
	ClaudePlugins []string `json:"claude_plugins,omitempty"`
	Targets       []string `json:"target_commands,omitempty"`
	DryRun        bool     `json:"dry_run"`
}

type adoptSkillReport struct {
	*adoptEntry
	Source string `json:"source,omitempty"`
	// LocalFrom is the record in the home, the user's own, that named
	// Source when Source is on this machine: adopt followed it.
	LocalFrom string             `json:"local_source_named_by,omitempty"`
	Note      string             `json:"note,omitempty"`
	Result    *store.AdoptResult `json:"result"`
}

func runAdopt(c *cli.Context) error {
	if c.NArg() != 0 {
		return usageErrorf("adopt takes no arguments")
	}
	home := c.String("home")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("adopt: %w (give --home)", err)
		}
		home = h
	}
	home, _ = filepath.Abs(home)
	project := c.String("project")
	if project != "" {
		project, _ = filepath.Abs(project)
	}
	entries, skips := scanAgentFolders(home, project)
	locks := map[string]lockSkill{}
	lockFiles := []string{filepath.Join(home, ".agents", ".skill-lock.json")}
	if project != "" {
		lockFiles = append(lockFiles, filepath.Join(project, "skills-lock.json"))
	}
	for _, f := range lockFiles {
		m, err := readLockFile(f)
		var lerr *lockFileError
		if errors.As(err, &lerr) {
			skips = append(skips, adoptSkip{Path: lerr.Where, Reason: lerr.Msg})
			continue
		}
		if err != nil {
			skips = append(skips, adoptSkip{Path: f, Reason: err.Error()})
			continue
		}
		for k, v := range m {
			if _, ok := locks[k]; !ok {
				locks[k] = v
			}
		}
	}
	rep := adoptReport{Skipped: skips, DryRun: c.Bool("dry-run")}
	var todo []store.AdoptSkill
	var kept []*adoptEntry
	var sources, notes, localFrom []string
	for _, e := range entries {
		sk := store.AdoptSkill{Dir: e.Dir}
		label, note, from := "", "", ""
		if l, ok := locks[e.Name]; ok {
			src, err := lockSource(c.Context, l)
			if err == nil {
				from, err = sourceTrust(src, l.File, lockFiles[0], c.StringSlice("allow-local"))
			}
			if err != nil {
				// Taken in as managed all the same: nothing is lost.
				note = fmt.Sprintf("%s names a source that cannot be used (%v): taken in as a managed skill", l.File, err)
			} else {
				sk.Upstream, label = src, src.String()
				sk.SkillPath, sk.Name = l.SkillPath, e.Name
				if h, ok := store.ParseHash(l.SkillFolderHash); ok {
					sk.Hint = h
				}
			}
		}
		todo = append(todo, sk)
		kept = append(kept, e)
		sources = append(sources, label)
		notes = append(notes, note)
		localFrom = append(localFrom, from)
	}
	claudeEntries, claudeTodo, claudeLabels, claudeSkips := claudePluginSkills(c.Context, home, project)
	rep.Skipped = append(rep.Skipped, claudeSkips...)
	for i, e := range claudeEntries {
		todo = append(todo, claudeTodo[i])
		kept = append(kept, e)
		sources = append(sources, claudeLabels[i])
		notes = append(notes, "")
		from := ""
		if claudeTodo[i].Upstream.IsLocal() {
			from = filepath.Join(home, ".claude", "plugins", "known_marketplaces.json")
		}
		localFrom = append(localFrom, from)
		rep.ClaudePlugins = appendOnce(rep.ClaudePlugins, e.ClaudePlugin)
	}
	s, err := openStoreForWrite(c)
	if err != nil {
		return err
	}
	opts, err := addOptions(c)
	if err != nil {
		return err
	}
	opts.Reason = "adopted from " + home
	results, err := s.Adopt(c.Context, todo, opts)
	if err != nil {
		return err
	}
	failed := 0
	for i := range results {
		rep.Skills = append(rep.Skills, adoptSkillReport{adoptEntry: kept[i], Source: sources[i], LocalFrom: localFrom[i], Note: notes[i], Result: &results[i]})
		if results[i].Err != nil || notes[i] != "" {
			failed++
		}
	}
	rep.Targets = targetCommands(home, project, entries)
	if c.Bool("json") {
		if err := cliout.JSON(getEnv(c).stdout, rep); err != nil {
			return err
		}
	} else {
		printAdopt(c, rep)
	}
	skipped := 0
	for _, sk := range rep.Skipped {
		if !sk.NotSkill {
			skipped++
		}
	}
	if failed > 0 || skipped > 0 {
		return fmt.Errorf("adopt: %d skill(s) failed, %d entr(ies) skipped: see above", failed, skipped)
	}
	return nil
}

// appendOnce appends s unless list ends with it.
func appendOnce(list []string, s string) []string {
	if len(list) > 0 && list[len(list)-1] == s {
		return list
	}
	return append(list, s)
}

// sourceTrust applies the rule for sources named by files others can
// write (store.CheckNamedSource) to src, which the lock file file names:
// a project's lock file may name a source on this machine only when
// --allow-local (allowed) covers it; the lock file in the home (homeLock)
// is the user's own record, and its local sources are followed. from is
// that record when src is local and followed, for the report to list.
func sourceTrust(src store.Source, file, homeLock string, allowed []string) (from string, err error) {
	if file != homeLock {
		return "", store.CheckNamedSource(src, allowed)
	}
	if src.IsLocal() {
		return file, nil
	}
	return "", nil
}

// lockSource is the plugin source a lock file entry names.
func lockSource(ctx context.Context, l lockSkill) (store.Source, error) {
	switch l.SourceType {
	case "github":
		return store.ParseSourceContext(ctx, store.GitHubURL(l.Source), "")
	case "local":
		p := l.SourceURL
		if p == "" {
			p = l.Source
		}
		if _, err := os.Stat(p); err != nil {
			return store.Source{}, fmt.Errorf("local source %s: %w", p, err)
		}
		return store.ParseSourceContext(ctx, p, "")
	case "git", "direct-url", "url":
		u := l.SourceURL
		if u == "" {
			u = l.Source
		}
		return store.ParseSourceContext(ctx, u, "")
	}
	return store.Source{}, fmt.Errorf("unknown sourceType %q", l.SourceType)
}

// targetCommands are the 'target add' commands for the agent folders that
// held skills (not the canonical ~/.agents/skills copies).
func targetCommands(home, project string, entries []*adoptEntry) []string {
	used := map[string]bool{}
	for _, e := range entries {
		used[filepath.Dir(e.Path)] = true
		for _, a := range e.Also {
			a, _, _ = strings.Cut(a, " -> ")
			used[filepath.Dir(a)] = true
		}
	}
	var out []string
	for _, af := range agentFolders(home, project) {
		if used[af[1]] {
			name := strings.TrimPrefix(filepath.Base(filepath.Dir(af[1])), ".")
			if af[0] == "project" {
				name = "project-" + name
			}
			out = append(out, fmt.Sprintf("skillstore target add %s %s", name, af[1]))
		}
	}
	return out
}

func printAdopt(c *cli.Context, rep adoptReport) {
	w := getEnv(c).stdout
	for _, sk := range rep.Skills {
		r := sk.Result
		where := sk.Path
		if sk.Link != "" {
			where += " -> " + sk.Link
		}
		if len(sk.Also) > 0 {
			where += " (same files in " + strings.Join(sk.Also, ", ") + ")"
		}
		cliout.Printf(w, "%s: %s\n", sk.Name, where)
		if sk.ClaudePlugin != "" {
			cliout.Printf(w, "  installed by Claude Code as plugin %s\n", sk.ClaudePlugin)
		}
		if sk.Note != "" {
			cliout.Printf(w, "  error: %s\n", sk.Note)
		}
		if r.Err != nil {
			cliout.Printf(w, "  error: %v\n", r.Err)
			continue
		}
		if r.Imported > 0 {
			cliout.Printf(w, "  %s as managed skill %s@v%d\n", dryRunWord(c, "imported", "would import"), sk.Name, r.Imported)
		} else if r.Installed == nil {
			cliout.Printf(w, "  the store holds these files already\n")
		}
		if sk.Source == "" {
			continue
		}
		if sk.LocalFrom != "" {
			cliout.Printf(w, "  %s the local source %s, which your own record %s names\n", dryRunWord(c, "followed", "would follow"), sk.Source, sk.LocalFrom)
		}
		if r.PluginAdded {
			cliout.Printf(w, "  %s plugin %s from %s\n", dryRunWord(c, "added", "would add"), r.Plugin, sk.Source)
		}
		if r.Linked {
			cliout.Printf(w, "  plugin %s's skill already\n", r.Plugin)
			printInstalled(c, r)
			continue
		}
		if l := r.Link; l != nil {
			match := "exact"
			if !l.Base.Exact {
				match = fmt.Sprintf("closest: %d file(s), %d line(s) differ", l.Base.Files, l.Base.Distance)
			}
			cliout.Printf(w, "  %s to plugin %s at upstream commit %s (%s)\n", dryRunWord(c, "linked", "would link"), r.Plugin, l.Base.Commit, match)
			if l.LocalEdit {
				cliout.Printf(w, "  the installed files differ from it: kept as a local edit\n")
			}
		}
	}
	for _, sk := range rep.Skipped {
		cliout.Printf(w, "skipped %s: %s\n", sk.Path, sk.Reason)
	}
	if len(rep.ClaudePlugins) > 0 {
		cliout.Printf(w, "Claude Code still loads %s from its own plugin folders, which adopt left as they were;\n", strings.Join(rep.ClaudePlugins, ", "))
		cliout.Printf(w, "  to have it load the store's versions (with your edits), export them as a marketplace:\n")
		cliout.Printf(w, "  skillstore target add cc DIR --kind claude-marketplace && skillstore export cc\n")
		cliout.Printf(w, "  claude plugin marketplace add DIR\n")
		for _, key := range rep.ClaudePlugins {
			plugin, _, _ := strings.Cut(key, "@")
			cliout.Printf(w, "  claude plugin uninstall %s && claude plugin install %s@skillstore\n", key, plugin)
		}
	}
	if len(rep.Targets) > 0 {
		cliout.Printf(w, "next, to publish to the agents' folders:\n")
		for _, t := range rep.Targets {
			cliout.Printf(w, "  %s\n", t)
		}
	}
	noteDryRun(c)
}

// printInstalled says what adopt made of an installed copy of a skill the
// store had already, with other files: an older upstream version, or one
// edited on top of it, whose edit is merged with the published version.
func printInstalled(c *cli.Context, r *store.AdoptResult) {
	w := getEnv(c).stdout
	if r.Installed == nil {
		return
	}
	if r.Edit == nil {
		cliout.Printf(w, "  the installed copy is upstream commit %s, older: 'skillstore export' replaces it\n", r.Installed.Commit)
		return
	}
	cliout.Printf(w, "  the installed copy is upstream commit %s with local edits:", r.Installed.Commit)
	switch e := r.Edit; e.Outcome {
	case store.LocalCandidate, store.LocalPending:
		state := "clean"
		if len(e.Conflicts) > 0 {
			state = fmt.Sprintf("%d conflict(s): %s", len(e.Conflicts), strings.Join(e.Conflicts, ", "))
		}
		cliout.Printf(w, " candidate %s merges them with v%d, %s\n", shortID(e.Candidate), e.OnVersion, state)
	case store.LocalIntegrated:
		cliout.Printf(w, " v%d holds them already\n", e.OnVersion)
	case store.LocalBlocked:
		cliout.Printf(w, " not merged yet: review the skill's pending candidate first, then run adopt again\n")
	}
}
