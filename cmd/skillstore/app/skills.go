package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
	"github.com/skillstore/skillstore/store/treediff"
)

// Init creates the store (a bare git repository).
func Init(ctx context.Context, opts Global) error {
	dir, err := opts.StoreDir()
	if err != nil {
		return err
	}
	sopts, err := opts.StoreOptions()
	if err != nil {
		return err
	}
	if _, err := store.Init(ctx, dir, sopts); err != nil {
		if errors.Is(err, store.ErrStoreExists) {
			return WithHint(fmt.Errorf("a store already exists at %s", dir), "use it as it is, or pick another --store")
		}
		return err
	}
	cliout.Printf(opts.Stdout, "initialized an empty store at %s\n", dir)
	return nil
}

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

type versionJSON struct {
	Skill         string           `json:"skill"`
	Version       int              `json:"version"`
	Commit        string           `json:"commit"`
	Tree          string           `json:"tree"`
	Time          time.Time        `json:"time"`
	Actor         string           `json:"actor"`
	Source        string           `json:"source"`
	Reason        string           `json:"reason,omitempty"`
	MergeMode     store.MergeMode  `json:"merge_mode"`
	Plugin        string           `json:"plugin,omitempty"`
	PluginVersion string           `json:"plugin_version,omitempty"`
	Risk          string           `json:"risk"`
	Findings      []safety.Finding `json:"findings"`
}

func toVersionJSON(v store.Version) versionJSON {
	fs := v.Findings
	if fs == nil {
		fs = []safety.Finding{}
	}
	if v.Plugin == "" { // a version recorded without the trailer: the name says
		v.Plugin, _ = store.SplitName(v.Skill)
	}
	return versionJSON{Skill: v.Skill, Version: v.Number, Commit: v.Commit.String(), Tree: v.Tree.String(), Time: v.Time.UTC(),
		Actor: v.Actor, Source: v.Source, Reason: v.Reason, MergeMode: v.MergeMode, Plugin: v.Plugin,
		PluginVersion: v.PluginVersion, Risk: v.Risk.String(), Findings: fs}
}

type fileJSON struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
	Size int64  `json:"size"`
	Blob string `json:"blob"`
}

// SkillOptions are the options of a command on one skill or version.
type SkillOptions struct {
	Global
	Output
	// Name is the skill, NAME[@VERSION] where a version is taken, as
	// typed: the qualified name PLUGIN:NAME, or a short NAME one skill
	// has (store.Reader.ResolveSkill).
	Name string
}

// Show prints a version: metadata, status, safety findings, frontmatter
// and files.
func Show(ctx context.Context, opts SkillOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	spec, err := s.ResolveSpec(ctx, opts.Name)
	if err != nil {
		return err
	}
	d, err := s.Show(ctx, spec)
	if err != nil {
		return err
	}
	out := opts.Stdout
	if opts.JSON {
		files := []fileJSON{}
		for _, f := range d.Files {
			files = append(files, fileJSON{Path: f.Path, Mode: f.ModeString(), Size: f.Size, Blob: f.ID.String()})
		}
		return cliout.JSON(out, struct {
			versionJSON
			Latest      int    `json:"latest"`
			Status      string `json:"status"`
			Description string `json:"description"`
			Frontmatter string `json:"frontmatter"`
			// FrontmatterFields is every key, typed (see discover --json).
			FrontmatterFields map[string]any `json:"frontmatter_fields,omitempty"`
			Files             []fileJSON     `json:"files"`
		}{toVersionJSON(d.Version), d.Latest, string(d.Record.Status), d.Description, d.Frontmatter, d.Fields, files})
	}
	v := d.Version
	tw := tabwriter.NewWriter(out, 0, 4, 1, ' ', 0)
	cliout.Printf(tw, "skill:\t%s\n", v.Skill)
	cliout.Printf(tw, "version:\tv%d of v%d\n", v.Number, d.Latest)
	cliout.Printf(tw, "commit:\t%s\n", v.Commit)
	cliout.Printf(tw, "date:\t%s\n", v.Time.UTC().Format(time.RFC3339))
	cliout.Printf(tw, "actor:\t%s\n", v.Actor)
	if v.Reason != "" {
		cliout.Printf(tw, "reason:\t%s\n", v.Reason)
	}
	cliout.Printf(tw, "source:\t%s\n", v.Source)
	if v.Plugin != "" {
		cliout.Printf(tw, "plugin:\t%s %s\n", v.Plugin, v.PluginVersion)
	}
	cliout.Printf(tw, "merge mode:\t%s\n", v.MergeMode)
	status := string(d.Record.Status)
	if d.Record.Reason != "" {
		status += " (" + d.Record.Reason + ")"
	}
	cliout.Printf(tw, "status:\t%s\n", status)
	cliout.Printf(tw, "risk:\t%s\n", v.Risk)
	tw.Flush()
	if len(v.Findings) > 0 {
		cliout.Println(out, "findings:")
		for _, f := range v.Findings {
			cliout.Printf(out, "  %s\n", f)
		}
	}
	if d.Frontmatter != "" {
		cliout.Println(out, "frontmatter:")
		for _, line := range strings.Split(d.Frontmatter, "\n") {
			cliout.Printf(out, "  %s\n", line)
		}
	}
	cliout.Println(out, "files:")
	width := 1
	for _, f := range d.Files {
		width = max(width, len(fmt.Sprint(f.Size)))
	}
	for _, f := range d.Files {
		cliout.Printf(out, "  %s %*d %s\n", f.ModeString(), width, f.Size, f.Path)
	}
	return nil
}

// Log prints every version of a skill, newest first.
func Log(ctx context.Context, opts SkillOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	name, err := s.ResolveSkill(ctx, opts.Name)
	if err != nil {
		return err
	}
	versions, err := s.Log(ctx, name)
	if err != nil {
		return err
	}
	if opts.JSON {
		out := []versionJSON{}
		for _, v := range versions {
			out = append(out, toVersionJSON(v))
		}
		return cliout.JSON(opts.Stdout, out)
	}
	tw := tabwriter.NewWriter(opts.Stdout, 0, 4, 2, ' ', 0)
	for _, v := range versions {
		cliout.Printf(tw, "v%d\t%s\t%s\t%s\t%s\trisk %s", v.Number, v.Time.UTC().Format("2006-01-02 15:04:05"),
			shortHash(v.Commit), v.Actor, v.MergeMode, v.Risk)
		if v.Reason != "" {
			cliout.Printf(tw, "\t%s", v.Reason) // no trailing padding when there is no reason
		}
		cliout.Println(tw)
	}
	return tw.Flush()
}

// CatOptions are cat's: the file of the version (SKILL.md when empty),
// Body printing it without its frontmatter.
type CatOptions struct {
	SkillOptions
	File string
	Body bool
}

// Cat writes a file of a version to stdout, byte for byte.
func Cat(ctx context.Context, opts CatOptions) error {
	file := opts.File
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	spec, err := s.ResolveSpec(ctx, opts.Name)
	if err != nil {
		return err
	}
	data, err := s.Cat(ctx, spec, file)
	var noFile *store.NoFileError
	if errors.As(err, &noFile) {
		return WithHint(err, fmt.Sprintf("run 'skillstore show %s' for its files", spec))
	}
	if err != nil {
		return err
	}
	if opts.Body {
		if data, err = discover.Body(data); err != nil {
			shown := file
			if shown == "" {
				shown = discover.SkillFileName
			}
			var pe *discover.ParseError
			if errors.As(err, &pe) {
				pe.File = spec + " " + shown
			}
			return err
		}
	}
	_, err = cliout.Raw(opts.Stdout).Write(data) // content, byte for byte
	return err
}

// DiffOptions are diff's: Name is NAME[@A]; To is @B, a folder, or empty
// for the latest version.
type DiffOptions struct {
	SkillOptions
	To string
	// Stat prints a summary of the lines added and deleted per file.
	Stat bool
	// ExitCode makes differences end the command with ErrReported, as git
	// diff --exit-code.
	ExitCode bool
}

// Diff prints what changed between two versions, or a version and a
// folder.
func Diff(ctx context.Context, opts DiffOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	from, err := s.ResolveSpec(ctx, opts.Name)
	if err != nil {
		return err
	}
	res, err := s.Diff(ctx, from, opts.To)
	if err != nil {
		return err
	}
	if err := writeDiff(opts, res); err != nil {
		return err
	}
	if opts.ExitCode && len(res.Changes) > 0 {
		return ErrReported
	}
	return nil
}

// writeDiff prints a diff result as JSON, as a --stat summary, or as a
// unified diff (coloured on a terminal).
func writeDiff(opts DiffOptions, res store.DiffResult) error {
	out := opts.Stdout
	if opts.JSON {
		if res.Changes == nil {
			res.Changes = []treediff.FileChange{}
		}
		if opts.Stat {
			return cliout.JSON(out, map[string]any{"from": res.From, "to": res.To, "stat": treediff.Stats(res.Changes)})
		}
		return cliout.JSON(out, res)
	}
	if len(res.Changes) == 0 {
		cliout.Printf(out, "no differences between %s and %s\n", res.From, res.To)
		return nil
	}
	if opts.Stat {
		width, ok := cliout.TermWidth(out)
		if !ok {
			width = 80
		}
		return treediff.WriteStat(out, treediff.Stats(res.Changes), width)
	}
	return cliout.WriteDiff(out, res.Changes)
}

// CheckoutOptions are checkout's: the folder Dir, which Force lets be
// replaced when not empty.
type CheckoutOptions struct {
	SkillOptions
	Dir   string
	Force bool
}

// Checkout writes a version's files into a folder, atomically.
func Checkout(ctx context.Context, opts CheckoutOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	spec, err := s.ResolveSpec(ctx, opts.Name)
	if err != nil {
		return err
	}
	if err := refuseTargetFolder(ctx, s, opts.Dir); err != nil {
		return err
	}
	v, err := s.Checkout(ctx, spec, opts.Dir, opts.Force)
	if errors.Is(err, store.ErrNotEmpty) {
		return WithHint(err, "nothing was written; pick an empty folder, or use --force to replace its content")
	}
	if err != nil {
		return err
	}
	cliout.Printf(opts.Stdout, "checked out %s into %s\n", v.Name(), opts.Dir)
	return nil
}

// RollbackOptions are rollback's: the skill Name and the Version whose
// files the new version takes.
type RollbackOptions struct {
	SkillOptions
	Version string
	Reason  string
	// DryRun reports the version that would be recorded, writing nothing.
	DryRun bool
}

// Rollback records a new version with the files of an earlier one.
func Rollback(ctx context.Context, opts RollbackOptions) error {
	s, err := opts.openStoreFor(ctx, opts.DryRun)
	if err != nil {
		return err
	}
	name, err := s.ResolveSkill(ctx, opts.Name)
	if err != nil {
		return err
	}
	v, err := s.Rollback(ctx, name, opts.Version, opts.Reason)
	if errors.Is(err, store.ErrNoChange) {
		return WithHint(err, "nothing was written")
	}
	if err != nil {
		return err
	}
	if opts.JSON {
		return cliout.JSON(opts.Stdout, toVersionJSON(v))
	}
	if opts.DryRun {
		cliout.Printf(opts.Stdout, "%s would be recorded (commit %s): %s\n", v.Name(), shortHash(v.Commit), v.Reason)
		noteDryRun(opts.Stdout, opts.DryRun, opts.JSON)
		return nil
	}
	cliout.Printf(opts.Stdout, "%s recorded (commit %s): %s\n", v.Name(), shortHash(v.Commit), v.Reason)
	return nil
}

// StatusChangeOptions are disable's, enable's and rm's: the skill, its
// new status, and why.
type StatusChangeOptions struct {
	SkillOptions
	Status store.Status
	Reason string
	// Purge (rm) deletes the skill's refs so gc can delete its history.
	Purge bool
}

// SetStatus disables, enables or removes a skill (history kept).
func SetStatus(ctx context.Context, opts StatusChangeOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	name, err := s.ResolveSkill(ctx, opts.Name)
	if err != nil {
		return err
	}
	out := opts.Stdout
	err = s.SetStatus(ctx, name, opts.Status, opts.Reason)
	if errors.Is(err, store.ErrNoChange) {
		cliout.Printf(out, "%s is already %s\n", name, opts.Status)
		return nil
	}
	if err != nil {
		return err
	}
	if opts.Status == store.StatusRemoved {
		cliout.Printf(out, "%s removed (history kept; 'skillstore enable %s' restores it)\n", name, name)
		return nil
	}
	cliout.Printf(out, "%s is now %s\n", name, opts.Status)
	return nil
}

// Remove is rm: the skill removed (SetStatus), or with Purge its refs
// deleted for gc to delete its history.
func Remove(ctx context.Context, opts StatusChangeOptions) error {
	opts.Status = store.StatusRemoved
	if !opts.Purge {
		return SetStatus(ctx, opts)
	}
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	name, err := s.ResolveSkill(ctx, opts.Name)
	if err != nil {
		return err
	}
	if err := s.Purge(ctx, name, opts.Reason); err != nil {
		return err
	}
	cliout.Printf(opts.Stdout, "%s purged; 'skillstore gc' deletes its objects once they are older than the grace period\n", name)
	return nil
}
