package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/internal/skillmd"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

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
	// Merged is the commit the version merged in, its commit's second
	// parent: the upstream snapshot a sync took in, the head of the
	// candidate accept published, or the remote version a pull joined.
	Merged string `json:"merged,omitempty"`
}

func ToVersionJSON(v store.Version) versionJSON {
	fs := v.Findings
	if fs == nil {
		fs = []safety.Finding{}
	}
	if v.Plugin == "" { // a version recorded without the trailer: the name says
		v.Plugin, _ = store.SplitName(v.Skill)
	}
	merged := ""
	if len(v.Parents) > 1 {
		merged = v.Parents[1].String()
	}
	return versionJSON{Merged: merged, Skill: v.Skill, Version: v.Number, Commit: v.Commit.String(), Tree: v.Tree.String(), Time: v.Time.UTC(),
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

// openSpec opens the store and resolves opts.Name to the version spec
// the store's commands take.
func (opts SkillOptions) openSpec(ctx context.Context) (*store.Store, string, error) {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return nil, "", err
	}
	spec, err := s.ResolveSpec(ctx, opts.Name)
	return s, spec, err
}

// Show prints a version: metadata, status, safety findings, frontmatter
// and files.
func Show(ctx context.Context, opts SkillOptions) error {
	s, spec, err := opts.openSpec(ctx)
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
		}{ToVersionJSON(d.Version), d.Latest, string(d.Record.Status), d.Description, d.Frontmatter, d.Fields, files})
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
		cliout.Printf(tw, "plugin:\t%s\n", joinNonEmpty(v.Plugin, v.PluginVersion))
	}
	cliout.Printf(tw, "merge mode:\t%s\n", mergeModeLabel(v))
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
			out = append(out, ToVersionJSON(v))
		}
		return cliout.JSON(opts.Stdout, out)
	}
	tw := tabwriter.NewWriter(opts.Stdout, 0, 4, 2, ' ', 0)
	for _, v := range versions {
		cliout.Printf(tw, "v%d\t%s\t%s\t%s\t%s\trisk %s", v.Number, v.Time.UTC().Format("2006-01-02 15:04:05"),
			ShortHash(v.Commit), v.Actor, mergeModeLabel(v), v.Risk)
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
	s, spec, err := opts.openSpec(ctx)
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
		if data, err = skillmd.Body(data); err != nil {
			shown := file
			if shown == "" {
				shown = skillmd.FileName
			}
			var pe *skillmd.ParseError
			if errors.As(err, &pe) {
				pe.File = spec + " " + shown
			}
			return err
		}
	}
	_, err = cliout.Raw(opts.Stdout).Write(data) // content, byte for byte
	return err
}
