package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/pluginsync"
)

// PluginAddOptions are plugin add's: the source as typed and how to add it.
type PluginAddOptions struct {
	Global
	Output
	// Source is SOURCE[#FOLDER/][#PLUGIN] as typed.
	Source string
	// Ref is the branch, tag or commit of a git source; Path the folder
	// inside the source that holds the plugin or marketplace.
	Ref, Path string
	// ID is the plugin's id in the store (default: the manifest's name).
	ID string
	// Track is what a git source follows: "branch" (or "", its ref or
	// HEAD) or "tags" (its newest release tag, in the range SOURCE@RANGE
	// gives, else any).
	Track string
	// SHA256 is the digest an archive source must have.
	SHA256 string
	// Review always makes this plugin's updates candidates.
	Review bool
	// Skills mirrors only the skills these patterns select.
	Skills []string
	// AllowLocal lets marketplace entries use repositories on this
	// machine at or below these folders or file:// URLs.
	AllowLocal []string
	// SkillsOnly leaves out a marketplace's plugins without skills.
	SkillsOnly bool
	// Dialect reads the source through one agent's manifests only.
	Dialect string
	Intake  Intake
	// DryRun fetches and reports what would be added, writing nothing.
	DryRun bool
}

// AddPlugin adds a plugin (or a marketplace's plugins) and mirrors its
// skills, printing what it added and what it left out.
func AddPlugin(ctx context.Context, opts PluginAddOptions) error {
	// Reading a shorthand or /tree/ address may list the remote's refs:
	// one round trip, held to the fetch timeout like a fetch.
	pctx, cancel := context.WithTimeout(ctx, opts.FetchTimeout)
	src, err := plugins.ParseSourceContext(pctx, opts.Source, opts.Ref)
	cancel()
	if err != nil {
		return err
	}
	switch opts.Track {
	case "", "branch":
		if opts.Track == "branch" && src.Tags != "" {
			return UsageErrorf("plugin add: %s follows release tags (@%s): drop --track branch or the range", opts.Source, src.Tags)
		}
	case "tags":
		if src.Kind != plugins.SourceGit && src.Kind != plugins.SourceNPM {
			return UsageErrorf("plugin add --track tags: %s is a %s source, not a git repository or an npm package: it has no releases", opts.Source, src.Kind)
		}
		if src.Ref != "" {
			return UsageErrorf("plugin add --track tags follows the newest release tag: drop --ref %s (or the /tree/REF of the address)", src.Ref)
		}
		src.Tags = cmp.Or(src.Tags, "*")
	default:
		return UsageErrorf("plugin add --track %q: give branch or tags", opts.Track)
	}
	if opts.SHA256 != "" {
		if src.Kind != plugins.SourceArchive {
			return UsageErrorf("plugin add --sha256: %s is a %s source, not an archive (a .tar.gz, .tgz or .zip URL)", opts.Source, src.Kind)
		}
		if err := plugins.CheckSHA256(opts.SHA256); err != nil {
			return UsageErrorf("plugin add --sha256: %v", err)
		}
		src.SHA256 = strings.ToLower(opts.SHA256)
	}
	if src.Path != "" && opts.Path != "" {
		return UsageErrorf("plugin add: the source already names the folder %s: drop --path or the folder in SOURCE", src.Path)
	}
	if src, err = src.WithPath(opts.Path); err != nil {
		return err
	}
	if opts.Dialect != "" {
		if err := pluginfmt.CheckDialect(pluginfmt.Dialect(opts.Dialect)); err != nil {
			return UsageErrorf("plugin add --dialect: %v", err)
		}
		src.Dialect = opts.Dialect
	}
	s, err := opts.OpenStoreFor(ctx, opts.DryRun)
	if err != nil {
		return err
	}
	rep, err := pluginsync.Add(ctx, s, src, pluginsync.AddOptions{ID: opts.ID, Review: opts.Review, Skills: opts.Skills, AllowLocal: opts.AllowLocal, SkillsOnly: opts.SkillsOnly, Strict: opts.Intake.Strict, AllowRisk: opts.Intake.AllowRisk, RiskCap: RiskCap()})
	if err != nil {
		return err
	}
	return writeAddReport(opts, src, rep)
}

// PluginOptions are the options of a command on one plugin.
type PluginOptions struct {
	Global
	Output
	// ID is the plugin's id; empty for every plugin (plugin list). For
	// plugin trust, PLUGIN:SKILL names one skill's findings.
	ID string
	// Skill is the plugin's skill (plugin adopt).
	Skill string
	// Reason is why (plugin disable), recorded in the state log.
	Reason string
	// NoSync only resumes (plugin resume): the next sync brings the
	// updates in.
	NoSync bool
}

// ShowPlugins prints every plugin, or only opts.ID.
func ShowPlugins(ctx context.Context, opts PluginOptions) error {
	id := opts.ID
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	var infos []*plugins.Info
	err = s.View(ctx, func(r *store.Reader) error {
		if id == "" {
			infos, err = plugins.Infos(r)
			return err
		}
		info, err := plugins.InfoOf(r, id)
		infos = []*plugins.Info{info}
		return err
	})
	if err != nil {
		return err
	}
	if opts.JSON {
		if id != "" {
			return cliout.JSON(opts.Stdout, infos[0])
		}
		if infos == nil {
			infos = []*plugins.Info{}
		}
		return cliout.JSON(opts.Stdout, infos)
	}
	if len(infos) == 0 {
		cliout.Println(opts.Stdout, "no plugins; add one with 'skillstore plugin add SOURCE'")
		return nil
	}
	for i, info := range infos {
		if i > 0 {
			cliout.Println(opts.Stdout)
		}
		writePlugin(opts.Stdout, info, id != "")
	}
	return nil
}

func writePlugin(w io.Writer, info *plugins.Info, details bool) {
	ref := info.Source.Ref
	if ref == "" && info.Source.Kind == plugins.SourceGit && info.Source.Tags == "" {
		ref = "HEAD"
	}
	cliout.Printf(w, "%s  %s  %s %s", info.ID, info.StateName, info.Source.Kind, info.Source)
	if ref != "" {
		cliout.Printf(w, "  ref %s", ref)
	}
	if info.Source.Tags != "" || info.Release != "" {
		cliout.Printf(w, "  release %s", cmp.Or(info.Release, "none yet"))
	}
	if info.Commit != "" {
		cliout.Printf(w, "  at %s", info.Commit[:12])
	}
	cliout.Println(w)
	if info.SourceError != "" {
		cliout.Printf(w, "  source: %s (sync skips it until it is back)\n", info.SourceError)
	}
	if info.Marketplace != "" {
		cliout.Printf(w, "  marketplace: %s\n", info.Marketplace)
	}
	if details {
		if info.Name != "" || info.Version != "" {
			cliout.Printf(w, "  manifest: %s\n", joinNonEmpty(info.Name, info.Version))
		}
		cliout.Printf(w, "  review: %v\n", info.Review)
	}
	if len(info.Select) > 0 {
		cliout.Printf(w, "  selection: %s\n", plugins.SelectionText(info.Select))
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, st := range info.Status {
		var notes []string
		if st.Modified {
			notes = append(notes, "modified")
		}
		if st.Disabled {
			notes = append(notes, "disabled")
		}
		status := string(st.Status)
		if len(notes) > 0 {
			status += " (" + strings.Join(notes, ", ") + ")"
		}
		cliout.Printf(tw, "  %s\tv%d\t%s\n", st.Skill, st.Version, status)
	}
	tw.Flush()
	writePartsRow(w, info)
	for _, a := range info.Adopted {
		cliout.Printf(w, "  %s  adopted (managed)\n", a)
	}
	for _, r := range info.Removed {
		cliout.Printf(w, "  %s  removed upstream (kept)\n", r)
	}
}

// PausePlugin makes sync skip the plugin.
func PausePlugin(ctx context.Context, opts PluginOptions) error { return setPaused(ctx, opts, true) }

// setPaused makes sync skip the plugin (paused) or take it again.
func setPaused(ctx context.Context, opts PluginOptions, paused bool) error {
	id := opts.ID
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	_, err = plugins.Pause(ctx, s, id, paused)
	if errors.Is(err, store.ErrNoChange) {
		cliout.Printf(opts.Stdout, "plugin %s is already %s\n", id, map[bool]string{true: "paused", false: "running"}[paused])
		return nil
	}
	if err != nil {
		return err
	}
	verb := map[bool]string{true: "paused (sync skips it)", false: "resumed"}[paused]
	cliout.Printf(opts.Stdout, "plugin %s %s\n", id, verb)
	return nil
}

// ResumePlugin makes sync take a paused plugin again and, unless NoSync,
// syncs it at once as 'skillstore sync PLUGIN' does (capture, sync,
// export).
func ResumePlugin(ctx context.Context, opts PluginOptions) error {
	if err := setPaused(ctx, opts, false); err != nil || opts.NoSync {
		return err
	}
	return Sync(ctx, SyncOptions{Global: opts.Global, Plugins: []string{opts.ID}, Intake: DefaultIntake})
}

// DisablePlugin stops syncing the plugin and disables its skills
// (history kept).
func DisablePlugin(ctx context.Context, opts PluginOptions) error {
	return setDisabled(ctx, opts, true)
}

// EnablePlugin re-enables a disabled plugin and its skills.
func EnablePlugin(ctx context.Context, opts PluginOptions) error {
	return setDisabled(ctx, opts, false)
}

// setDisabled disables the plugin and its skills (disable), or enables
// them again.
func setDisabled(ctx context.Context, opts PluginOptions, disable bool) error {
	id := opts.ID
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	var p *plugins.Plugin
	if disable {
		p, err = plugins.Disable(ctx, s, id, opts.Reason)
	} else {
		p, err = plugins.Enable(ctx, s, id)
	}
	if errors.Is(err, store.ErrNoChange) {
		cliout.Printf(opts.Stdout, "plugin %s is already %s\n", id, map[bool]string{true: "disabled", false: "enabled"}[disable])
		return nil
	}
	if err != nil {
		return err
	}
	verb := map[bool]string{true: "disabled", false: "enabled"}[disable]
	cliout.Printf(opts.Stdout, "plugin %s %s with its skills: %s\n", id, verb, strings.Join(p.Skills, ", "))
	return nil
}

// RemovePlugin forgets the plugin; its skills stay as managed skills.
func RemovePlugin(ctx context.Context, opts PluginOptions) error {
	id := opts.ID
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	p, err := plugins.Remove(ctx, s, id)
	if err != nil {
		return err
	}
	cliout.Printf(opts.Stdout, "removed plugin %s; its skills stay as managed skills: %s\n", id, strings.Join(p.Skills, ", "))
	if len(p.Skills) > 0 {
		cliout.Printf(opts.Stdout, "adding plugin %s again links them back to it\n", id)
	}
	return nil
}

// AdoptPluginSkill makes the plugin's skill a managed skill that sync no
// longer touches.
func AdoptPluginSkill(ctx context.Context, opts PluginOptions) error {
	id, skill := opts.ID, opts.Skill
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	err = plugins.AdoptSkill(ctx, s, id, skill)
	if errors.Is(err, store.ErrNoChange) {
		cliout.Printf(opts.Stdout, "%s is already adopted from plugin %s (a managed skill)\n", skill, id)
		return nil
	}
	if err != nil {
		return err
	}
	cliout.Printf(opts.Stdout, "%s is a managed skill now; sync of plugin %s no longer touches it\n", skill, id)
	var rec store.SkillRecord
	err = s.View(ctx, func(r *store.Reader) error {
		rec, err = r.SkillRecord(skill)
		return err
	})
	if err == nil && rec.Status == store.StatusDisabled {
		cliout.Printf(opts.Stdout, "note: %s is disabled (%s); enable it with 'skillstore enable %s'\n", skill, rec.Reason, skill)
	}
	return err
}

// TrustPlugin approves a plugin that came from a remote (ID is PLUGIN),
// or accepts the findings of a plugin's skill (PLUGIN:SKILL) and prints
// them.
func TrustPlugin(ctx context.Context, opts PluginOptions) error {
	arg := opts.ID
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	if plugin, skill, ok := strings.Cut(arg, ":"); ok {
		return trustSkill(ctx, opts.Stdout, s, plugin, skill)
	}
	src, err := plugins.Trust(ctx, s, arg)
	if err != nil {
		return err
	}
	cliout.Printf(opts.Stdout, "plugin %s trusted: sync fetches %s from now on\n", arg, src)
	return nil
}

// trustSkill accepts the findings of a plugin's skill and prints them.
func trustSkill(ctx context.Context, w io.Writer, s *store.Store, plugin, skill string) error {
	if plugin == "" || skill == "" {
		return UsageErrorf("plugin trust: give PLUGIN:SKILL, both names")
	}
	t, err := pluginsync.TrustSkill(ctx, s, plugin, skill, RiskCap())
	if err != nil {
		return err
	}
	if max, file, ok := loadSourcePolicy().MaxRisk(); ok && t.Risk > max {
		return fmt.Errorf("plugin trust %s: its risk %s is above the max-risk %s that %s sets for every user: the acceptance is recorded but sync will not take it in; ask whoever manages that file", t.Skill, t.Risk, max, file)
	}
	cliout.Printf(w, "accepted risk %s of %s (upstream tree %s):\n", t.Risk, t.Skill, t.Tree[:12])
	for _, f := range t.Findings {
		cliout.Printf(w, "  - %s\n", f)
	}
	cliout.Printf(w, "the next 'skillstore sync %s' takes it in; a change upstream asks again\n", plugin)
	return nil
}
