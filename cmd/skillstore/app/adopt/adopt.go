package adopt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/internal/folderscan"
	"github.com/skillstore/skillstore/internal/npxhash"
	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/candidates"
	"github.com/skillstore/skillstore/store/plugins"
)

// Options are adopt's.
type Options struct {
	app.Global
	app.Output
	// Home is the home folder to read (default $HOME); Project, when set,
	// a project whose .agents/skills, .claude/skills and skills-lock.json
	// are read too.
	Home, Project string
	// AllowLocal follows the project's local sources at or below these
	// folders or file:// URLs.
	AllowLocal []string
	// Store holds the validation mode and the risk allowed (the reason is
	// adopt's own).
	Store store.AddOptions
	// DryRun prints what would happen, skill by skill, writing nothing.
	DryRun bool
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

// adoptSkillReport is one skill adopt took over, or failed to.
type adoptSkillReport struct {
	*adoptEntry
	// Source is the upstream the skill was linked to ("" for a managed
	// skill).
	Source string
	// LocalFrom is the record in the home, the user's own, that named
	// Source when Source is on this machine: adopt followed it.
	LocalFrom string
	// Note is why the source a record names was not used: the skill was
	// taken in as a managed skill all the same.
	Note   error
	Result *plugins.AdoptResult
	// Record says which installer's record named the source, and what
	// adopt made of it (a lock entry and how it matched the folder, gh
	// skill's metadata).
	Record string
}

// MarshalJSON writes the skill as adopt --json shows it: the note as its
// message.
func (r adoptSkillReport) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		*adoptEntry
		Source    string               `json:"source,omitempty"`
		LocalFrom string               `json:"local_source_named_by,omitempty"`
		Note      string               `json:"note,omitempty"`
		Record    string               `json:"record,omitempty"`
		Result    *plugins.AdoptResult `json:"result"`
	}{r.adoptEntry, r.Source, r.LocalFrom, app.ErrorText(r.Note), r.Record, r.Result})
}

// adoptPlan is what adopt takes over: per skill folder, its entry, what
// the store is asked to do, the source's label, and the note or the record
// that made adopt follow a local source.
type adoptPlan struct {
	entries   []*adoptEntry
	todo      []plugins.InstalledSkill
	sources   []string
	notes     []error
	localFrom []string
	records   []string
}

func (p *adoptPlan) add(e *adoptEntry, sk plugins.InstalledSkill, source string, note error, from, record string) {
	p.entries = append(p.entries, e)
	p.todo = append(p.todo, sk)
	p.sources = append(p.sources, source)
	p.notes = append(p.notes, note)
	p.localFrom = append(p.localFrom, from)
	p.records = append(p.records, record)
}

// Run takes an existing installation over: the agents' skill folders,
// the 'npx skills' lock files and Claude Code's installed plugins. Nothing
// in the agents' folders is changed; every entry left out is listed with
// its reason.
func Run(ctx context.Context, opts Options) error {
	home := opts.Home
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("adopt: %w (give --home)", err)
		}
		home = h
	}
	home, _ = filepath.Abs(home)
	project := opts.Project
	if project != "" {
		project, _ = filepath.Abs(project)
	}
	entries, skips := scanAgentFolders(home, project)
	lockFiles := []string{filepath.Join(home, ".agents", ".skill-lock.json")}
	if project != "" {
		lockFiles = append(lockFiles, filepath.Join(project, "skills-lock.json"))
	}
	locks := lockIndex{}
	for _, f := range lockFiles {
		m, err := readLockFile(f)
		if err != nil {
			skips = append(skips, skipOf(f, err))
			continue
		}
		locks.add(m)
	}
	rep := adoptReport{Skipped: skips, DryRun: opts.DryRun}
	var plan adoptPlan
	for _, e := range entries {
		sk, label, from, record, note := lockedSkill(ctx, e, locks, lockFiles[0], opts.AllowLocal)
		if record == "" && note == nil {
			sk, label, record, note = ghSkill(ctx, e, opts.AllowLocal)
		}
		plan.add(e, sk, label, note, from, record)
	}
	claudeSkips := claudePluginSkills(ctx, home, project, &plan, &rep)
	rep.Skipped = append(rep.Skipped, claudeSkips...)
	s, err := opts.OpenStoreFor(ctx, opts.DryRun)
	if err != nil {
		return err
	}
	sopts := opts.Store
	sopts.Reason = "adopted from " + home
	results, err := plugins.Adopt(ctx, s, plan.todo, sopts)
	if err != nil {
		return err
	}
	failed := 0
	for i := range results {
		rep.Skills = append(rep.Skills, adoptSkillReport{adoptEntry: plan.entries[i], Source: plan.sources[i], LocalFrom: plan.localFrom[i], Note: plan.notes[i], Result: &results[i], Record: plan.records[i]})
		if results[i].Err != nil || plan.notes[i] != nil {
			failed++
		}
	}
	rep.Targets = targetCommands(home, project, entries)
	if opts.JSON {
		if err := cliout.JSON(opts.Stdout, rep); err != nil {
			return err
		}
	} else {
		printAdopt(opts.Stdout, rep, opts.DryRun)
	}
	skipped := 0
	for _, sk := range rep.Skipped {
		if !sk.NotSkill {
			skipped++
		}
	}
	if failed > 0 || skipped > 0 {
		return fmt.Errorf("adopt: %s failed, %s skipped: see above", app.Plural(failed, "skill"), app.Plural(skipped, "entry"))
	}
	return nil
}

// lockedSkill is what adopt asks of the store for an agent folder's skill:
// with a lock file's source (usable and trusted), a skill of the plugin of
// that source on the commit it was installed from; else a managed skill,
// with the note saying why the source was not used; from is the record
// in the home that named a local source adopt followed; record describes
// the lock entry ("" when no entry names the folder).
func lockedSkill(ctx context.Context, e *adoptEntry, locks lockIndex, homeLock string, allowLocal []string) (sk plugins.InstalledSkill, label, from, record string, note error) {
	sk = plugins.InstalledSkill{Dir: e.Dir}
	l, key, how, ok := locks.find(e)
	if !ok {
		return sk, "", "", "", nil
	}
	record = l.describe(key, how)
	if n := l.digestNote(e.Dir); n != "" && how != byDigest {
		record += "; " + n
	}
	src, err := lockSource(ctx, l)
	if err == nil {
		from, err = sourceTrust(src, l.File, homeLock, allowLocal)
	}
	if err != nil {
		// Taken in as managed all the same: nothing is lost.
		return sk, "", "", record, fmt.Errorf("%s names a source that cannot be used (%v): taken in as a managed skill", l.File, err)
	}
	sk.Upstream, label = src, src.String()
	sk.SkillPath, sk.Name = l.SkillPath, e.Name
	if h, ok := store.ParseHash(l.SkillFolderHash); ok {
		sk.Hint = h
	}
	if npxhash.Valid(l.ComputedHash) {
		sk.ContentHash = l.ComputedHash
	}
	return sk, label, from, record, nil
}

// ghSkill is what adopt asks of the store for a skill 'gh skill' installed
// (its provenance in SKILL.md's metadata): a skill of the plugin of that
// repository, on the commit whose folder is the tree gh recorded, with
// gh's keys taken out of SKILL.md first; a plain managed skill when the
// folder has no such metadata.
func ghSkill(ctx context.Context, e *adoptEntry, allowLocal []string) (sk plugins.InstalledSkill, label, record string, note error) {
	sk = plugins.InstalledSkill{Dir: e.Dir}
	p, err := readGHProvenance(e.Dir)
	if err != nil || p == nil {
		return sk, "", "", nil
	}
	record = p.describe()
	src, err := p.source(ctx)
	if err == nil && e.Scope == "project" {
		err = plugins.CheckNamedSource(src, allowLocal)
	}
	if err != nil {
		return sk, "", record, fmt.Errorf("%s names a source that cannot be used (%v): taken in as a managed skill", p.File, err)
	}
	tree, _ := store.ParseHash(p.TreeSHA)
	sk.Upstream, label = src, src.String()
	sk.SkillPath, sk.Name, sk.Hint = p.Path, e.Name, tree
	sk.Restore = p.restore(tree)
	return sk, label, record, nil
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
func sourceTrust(src plugins.Source, file, homeLock string, allowed []string) (from string, err error) {
	if file != homeLock {
		return "", plugins.CheckNamedSource(src, allowed)
	}
	if src.IsLocal() {
		return file, nil
	}
	return "", nil
}

// claudePluginSkills adds Claude Code's installed plugins to the plan:
// each skill folder of each install in scope, with the plugin's source and
// the install commit as its base hint. Installs that cannot be taken over
// are returned as skips, with why. Claude Code's own folders are only
// read.
func claudePluginSkills(ctx context.Context, home, project string, plan *adoptPlan, rep *adoptReport) (skips []adoptSkip) {
	installsFile := claudeFile(home, "installed_plugins.json")
	installs, err := readClaudeInstalls(installsFile)
	if err != nil {
		return []adoptSkip{skipOf(installsFile, err)}
	}
	if len(installs) == 0 {
		return nil
	}
	marketsFile := claudeFile(home, "known_marketplaces.json")
	markets, err := readClaudeMarketplaceRecords(marketsFile)
	if err != nil {
		skips = append(skips, skipOf(marketsFile, err))
	}
	for _, in := range installs {
		where := fmt.Sprintf("%s (Claude Code plugin %s)", installsFile, in.Key)
		if in.Scope != "user" && (project == "" || filepath.Clean(in.ProjectPath) != project) {
			skips = append(skips, adoptSkip{Path: where, Err: fmt.Errorf("installed for project %s (%s scope): adopt it with --project", in.ProjectPath, in.Scope), NotSkill: true})
			continue
		}
		m, ok := markets[in.Marketplace]
		if !ok {
			skips = append(skips, adoptSkip{Path: where, Err: fmt.Errorf("marketplace %q is not in %s", in.Marketplace, marketsFile)})
			continue
		}
		src, err := m.pluginSource(ctx, in.Plugin)
		if err != nil {
			skips = append(skips, adoptSkip{Path: where, Err: fmt.Errorf("marketplace %s: %w", in.Marketplace, err)})
			continue
		}
		skills, err := installedSkills(in.InstallPath, home)
		if err != nil {
			skips = append(skips, adoptSkip{Path: where, Err: err})
			continue
		}
		hint, _ := store.ParseHash(in.Commit)
		from := ""
		if src.IsLocal() {
			from = marketsFile
		}
		for _, sk := range skills {
			e := &adoptEntry{Name: sk.Name, Path: sk.Path, Dir: sk.Path, Scope: in.Scope, ClaudePlugin: in.Key}
			plan.add(e, plugins.InstalledSkill{Dir: sk.Path, Upstream: src, Hint: hint}, fmt.Sprintf("%s (Claude Code plugin %s)", src, in.Key), nil, from, "")
			rep.ClaudePlugins = appendOnce(rep.ClaudePlugins, in.Key)
		}
	}
	return skips
}

// installedSkills lists the skill folders of an installed plugin (its
// manifest's layout), absolute; the install must be inside the home.
func installedSkills(installPath, home string) ([]pluginfmt.SkillDir, error) {
	if installPath == "" {
		return nil, errors.New("no installPath recorded")
	}
	if !target.Inside(installPath, home) {
		return nil, fmt.Errorf("install path %s is outside %s: not read", installPath, home)
	}
	root, err := os.OpenRoot(installPath)
	if err != nil {
		return nil, fmt.Errorf("install path: %w", err)
	}
	defer root.Close()
	// Through folderscan's RootFS: a manifest there is read only when it
	// is a regular file of bounded size.
	layout, err := pluginfmt.Read(folderscan.NewRootFS(root), pluginfmt.Options{RootName: filepath.Base(installPath)})
	if err != nil {
		return nil, fmt.Errorf("install path %s: %w", installPath, err)
	}
	var out []pluginfmt.SkillDir
	for _, p := range layout.Plugins {
		for _, sk := range p.Skills {
			out = append(out, pluginfmt.SkillDir{Name: sk.Name, Path: filepath.Join(installPath, filepath.FromSlash(sk.Path))})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("install path %s holds no skills (only commands, agents, hooks or servers): nothing to take over yet", installPath)
	}
	return out, nil
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

func printAdopt(w io.Writer, rep adoptReport, dryRun bool) {
	for _, sk := range rep.Skills {
		r := sk.Result
		where := sk.Path
		if sk.Link != "" {
			where += " -> " + sk.Link
		}
		if len(sk.Also) > 0 {
			where += " (same files in " + strings.Join(sk.Also, ", ") + ")"
		}
		cliout.Reportf(w, "    ", "%s: %s\n", sk.Name, where)
		if sk.Record != "" {
			cliout.Reportf(w, "      ", "  %s\n", sk.Record)
		}
		if sk.ClaudePlugin != "" {
			cliout.Printf(w, "  installed by Claude Code as plugin %s\n", sk.ClaudePlugin)
		}
		if sk.Note != nil {
			cliout.Reportf(w, "      ", "  error: %s\n", sk.Note)
		}
		if r.Err != nil {
			cliout.Printf(w, "  error: %v\n", r.Err)
			continue
		}
		if r.Imported > 0 {
			cliout.Printf(w, "  %s as managed skill %s@v%d\n", app.DryRunWord(dryRun, "imported", "would import"), sk.Name, r.Imported)
		} else if r.Installed == nil {
			cliout.Printf(w, "  the store holds these files already\n")
		}
		if sk.Source == "" {
			continue
		}
		if sk.LocalFrom != "" {
			cliout.Reportf(w, "      ", "  %s the local source %s, which your own record %s names\n", app.DryRunWord(dryRun, "followed", "would follow"), sk.Source, sk.LocalFrom)
		}
		if r.PluginAdded {
			cliout.Printf(w, "  %s plugin %s from %s\n", app.DryRunWord(dryRun, "added", "would add"), r.Plugin, sk.Source)
		}
		if r.Linked {
			cliout.Printf(w, "  already a skill of plugin %s\n", r.Plugin)
			printInstalled(w, r)
			continue
		}
		if l := r.Link; l != nil {
			match := "exact"
			if !l.Base.Exact {
				match = fmt.Sprintf("closest: %s, %s differ", app.Plural(l.Base.Files, "file"), app.Plural(l.Base.Distance, "line"))
			}
			cliout.Reportf(w, "      ", "  %s to plugin %s at upstream commit %s (%s)\n", app.DryRunWord(dryRun, "linked", "would link"), r.Plugin, l.Base.Commit, match)
			if l.LocalEdit {
				cliout.Printf(w, "  the installed files differ from it: kept as a local edit\n")
			}
		}
	}
	for _, sk := range rep.Skipped {
		cliout.Reportf(w, "    ", "skipped %s: %s\n", sk.Path, sk.Err)
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
	app.NoteDryRun(w, dryRun, false)
}

// printInstalled says what adopt made of an installed copy of a skill the
// store had already, with other files: an older upstream version, or one
// edited on top of it, whose edit is merged with the published version.
func printInstalled(w io.Writer, r *plugins.AdoptResult) {
	if r.Installed == nil {
		return
	}
	if r.Edit == nil {
		cliout.Reportf(w, "      ", "  the installed copy is upstream commit %s, older: 'skillstore export' replaces it\n", r.Installed.Commit)
		return
	}
	var outcome string
	switch e := r.Edit; e.Outcome {
	case candidates.LocalCandidate, candidates.LocalPending:
		state := "clean"
		if len(e.Conflicts) > 0 {
			state = fmt.Sprintf("%s: %s", app.Plural(len(e.Conflicts), "conflict"), strings.Join(cliout.QuoteAll(e.Conflicts), ", "))
		}
		outcome = fmt.Sprintf("candidate %s merges them with v%d, %s", app.ShortID(e.Candidate), e.OnVersion, state)
	case candidates.LocalIntegrated:
		outcome = fmt.Sprintf("v%d holds them already", e.OnVersion)
	case candidates.LocalBlocked:
		outcome = "not merged yet: review the skill's pending candidate first, then run adopt again"
	}
	cliout.Reportf(w, "      ", "  the installed copy is upstream commit %s with local edits: %s\n", r.Installed.Commit, cliout.Quoted(outcome))
}
