package remotes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/remote"
	"github.com/skillstore/skillstore/store/safety"
)

// Options are the options of the remote commands.
type Options struct {
	app.Global
	app.Output
	// Name is the remote's name (remote add, rm; push and pull: empty for
	// the only remote, or origin).
	Name string
	// URL is where the remote is (remote add, clone).
	URL string
}

// AddRemote records a remote.
func AddRemote(ctx context.Context, opts Options) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	rem, err := remote.Add(ctx, s, opts.Name, opts.URL)
	if err != nil {
		return err
	}
	cliout.Printf(opts.Stdout, "added remote %s %s\n", rem.Name, rem.Redacted())
	return nil
}

// remoteView is a remote as list prints it: the URL with passwords hidden.
type remoteView struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// ListRemotes prints the remotes, passwords hidden.
func ListRemotes(ctx context.Context, opts Options) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	rems, err := remote.List(ctx, s)
	if err != nil {
		return err
	}
	views := []remoteView{}
	for _, r := range rems {
		views = append(views, remoteView{Name: r.Name, URL: r.Redacted()})
	}
	if opts.JSON {
		return cliout.JSON(opts.Stdout, views)
	}
	if len(views) == 0 {
		cliout.Println(opts.Stdout, "no remotes; add one with 'skillstore remote add NAME URL'")
		return nil
	}
	tw := tabwriter.NewWriter(opts.Stdout, 0, 4, 2, ' ', 0)
	for _, v := range views {
		cliout.Printf(tw, "%s\t%s\n", v.Name, v.URL)
	}
	return tw.Flush()
}

// RemoveRemote forgets a remote and what this store last saw of it.
func RemoveRemote(ctx context.Context, opts Options) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	if err := remote.Remove(ctx, s, opts.Name); err != nil {
		return err
	}
	cliout.Printf(opts.Stdout, "removed remote %s\n", opts.Name)
	return nil
}

// CloneOptions are clone's: the remote's URL, and Dir, the new store
// (empty: the store the global options name).
type CloneOptions struct {
	Options
	Dir string
	// AllowRisk is the highest risk accepted in fetched versions;
	// MaxNewSkills the most skills one pull may create.
	AllowRisk    safety.RiskLevel
	MaxNewSkills int
}

// Clone creates a store from a remote.
func Clone(ctx context.Context, opts CloneOptions) error {
	dir := opts.Dir
	if dir == "" {
		var err error
		if dir, err = opts.StoreDir(); err != nil {
			return err
		}
	}
	sopts, err := opts.StoreOptions()
	if err != nil {
		return err
	}
	s, rep, err := remote.Clone(ctx, opts.URL, dir, sopts, remote.CloneOptions{AllowRisk: opts.AllowRisk, MaxNewSkills: opts.MaxNewSkills})
	switch {
	case errors.Is(err, store.ErrStoreExists), errors.Is(err, store.ErrNotEmpty):
		return app.WithHint(err, "clone into a new or empty folder, or point --store elsewhere")
	case err != nil:
		return err
	}
	if opts.JSON {
		if err := cliout.JSON(opts.Stdout, rep); err != nil {
			return err
		}
		return refusedError(rep)
	}
	cliout.Printf(opts.Stdout, "cloned %s into %s: %s, %s waiting; verified\n", rep.URL, s.Dir(), app.Plural(app.SkillsOnly(rep.Skills), "skill"), app.Plural(rep.CandidatesWaiting, "candidate"))
	for _, sk := range rep.Skills {
		if sk.Action == remote.PullHeld {
			cliout.Printf(opts.Stdout, "%s: %s\n", sk.Skill, pullLine(rep.Remote, sk))
		}
	}
	app.PrintPolicyWarnings(opts.Stderr, "remote "+rep.Remote, rep.Warnings)
	printRefused(opts.Stderr, rep)
	return refusedError(rep)
}

// printRefused names each skill a pull or clone left out, with why, one
// line per problem under it, and the flag that takes them in when every
// one is a risk above the allowed level.
func printRefused(w io.Writer, rep *remote.PullReport) {
	risk := safety.RiskNone
	for _, r := range rep.Refused {
		cliout.Printf(w, "skillstore: left out %s: what remote %s serves of it fails the checks here; the rest was taken, and the next pull checks it again\n", r.Skill, rep.Remote)
		for _, p := range r.Problems {
			cliout.Printf(w, "  %s\n", p)
		}
		level, err := safety.ParseRiskLevel(r.Risk)
		if risk >= 0 && (err != nil || r.Risk == "" || len(r.Problems) != 1) {
			risk = -1
		} else if risk >= 0 {
			risk = max(risk, level)
		}
	}
	switch {
	case risk > safety.RiskNone:
		cliout.Printf(w, "skillstore: hint: review the findings, and if you trust them pull again with --allow-risk %s\n", risk)
	case len(rep.Refused) > 0:
		cliout.Println(w, "skillstore: hint: what the server holds of those skills breaks the store's rules (listed above): fix it there, no flag takes it in")
	}
}

// refusedError is the exit of a pull or clone that left skills out: 1,
// the report having said what.
func refusedError(rep *remote.PullReport) error {
	if len(rep.Refused) == 0 {
		return nil
	}
	return app.ErrReported
}

// PushOptions are push's; DryRun shows what would be sent, sending
// nothing.
type PushOptions struct {
	Options
	DryRun bool
}

// Push sends the published skills, upstream snapshots, candidates and
// state to a remote.
func Push(ctx context.Context, opts PushOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	// Target records of older stores are in the state: move them out to
	// this machine's records first, so the push never sends them.
	if err := target.Migrate(ctx, s); err != nil {
		return err
	}
	popts := remote.PushOptions{DryRun: opts.DryRun, Remote: opts.Name}
	var rep *remote.PushReport
	err = cliout.Progress(opts.ProgressOut(opts.JSON), "pushing", func() error {
		rep, err = remote.Push(ctx, s, popts)
		return err
	})
	if err != nil {
		return err
	}
	if opts.JSON {
		return cliout.JSON(opts.Stdout, rep)
	}
	writePushReport(opts.Stdout, rep)
	app.NoteDryRun(opts.Stdout, rep.DryRun, false)
	return nil
}

func writePushReport(w io.Writer, rep *remote.PushReport) {
	prefix := ""
	if rep.DryRun {
		prefix = "would "
	}
	for _, u := range rep.Updates {
		switch u.Action {
		case remote.PushCreate:
			cliout.Printf(w, "%s: %screate %s\n", app.ShortRef(u.Ref), prefix, app.ShortID(u.New))
		case remote.PushDelete:
			cliout.Printf(w, "%s: %sdelete %s (%s)\n", app.ShortRef(u.Ref), prefix, app.ShortID(u.Old), u.Reason)
		case remote.PushSkip:
			cliout.Printf(w, "%s: skipped (%s)\n", app.ShortRef(u.Ref), u.Reason)
		default:
			cliout.Printf(w, "%s: %s%s %s..%s\n", app.ShortRef(u.Ref), prefix, u.Action, app.ShortID(u.Old), app.ShortID(u.New))
		}
	}
}

// PullOptions are pull's.
type PullOptions struct {
	Options
	// Export exports into every target afterwards.
	Export bool
	// SkillAware merges Markdown of diverged skills with the skill-aware
	// rules.
	SkillAware   bool
	AllowRisk    safety.RiskLevel
	MaxNewSkills int
	// DryRun pulls into a scratch copy of the store (remote.Scratch) and
	// reports what would change, writing nothing here; with Export, what
	// export would do.
	DryRun bool
}

// pullOutput is pull's --json output: the report, and the export when
// Export ran.
type pullOutput struct {
	*remote.PullReport
	Export []target.Exported `json:"export,omitempty"`
}

// Pull fetches a remote and integrates its published skills, candidates
// and state.
func Pull(ctx context.Context, opts PullOptions) error {
	s, cleanup, err := opts.openPullStore(ctx)
	if err != nil {
		return err
	}
	defer cleanup()
	popts := remote.PullOptions{AllowRisk: opts.AllowRisk, SkillAware: opts.SkillAware, MaxNewSkills: opts.MaxNewSkills, Remote: opts.Name}
	var rep *remote.PullReport
	err = cliout.Progress(opts.ProgressOut(opts.JSON), "pulling", func() error {
		rep, err = remote.Pull(ctx, s, popts)
		return err
	})
	if err != nil {
		return err
	}
	out := pullOutput{PullReport: rep}
	var exportErr error
	if opts.Export {
		targets, err := target.List(ctx, s, nil)
		if err != nil {
			return err
		}
		if len(targets) == 0 {
			cliout.Println(opts.Stderr, "skillstore: no targets to export to; add one with 'skillstore target add NAME DIR'")
		} else {
			export := target.Export
			if opts.DryRun {
				export = target.Plan // the scratch copy is no dry-run store
			}
			out.Export, exportErr = export(ctx, s, targets, opts.TargetOptions(false))
		}
	}
	if opts.JSON {
		if err := cliout.JSON(opts.Stdout, out); err != nil {
			return err
		}
	} else {
		writePullReport(opts.Stdout, rep)
		app.PrintPolicyWarnings(opts.Stderr, "remote "+rep.Remote, rep.Warnings)
		if out.Export != nil {
			app.PrintExports(opts.Stdout, out.Export, opts.Verbose)
		}
		app.NoteDryRun(opts.Stdout, opts.DryRun, opts.JSON)
	}
	if !opts.JSON {
		printRefused(opts.Stderr, rep)
	}
	review := rep.CandidatesWaiting > 0 || len(rep.State.Conflicts) > 0
	if review && rep.Changed() && !opts.JSON {
		cliout.Printf(opts.Stderr, "skillstore: %s for review: run 'skillstore candidates list'\n", app.Waiting(rep.CandidatesWaiting))
	}
	switch {
	case exportErr != nil:
		return exportErr
	case len(rep.Refused) > 0:
		return refusedError(rep)
	case review:
		return app.ErrReview
	}
	return nil
}

// openPullStore opens the store pull works on: the store, or in a dry run
// a scratch copy of it (remote.Scratch); cleanup removes the copy.
func (o PullOptions) openPullStore(ctx context.Context) (*store.Store, func(), error) {
	s, err := o.OpenStore(ctx)
	if err != nil || !o.DryRun {
		return s, func() {}, err
	}
	sopts, err := o.StoreOptions()
	if err != nil {
		return nil, nil, err
	}
	return remote.Scratch(ctx, s, sopts)
}

// writePullReport prints one line per change; nothing when nothing changed.
func writePullReport(w io.Writer, rep *remote.PullReport) {
	for _, sk := range rep.Skills {
		cliout.Printf(w, "%s: %s\n", sk.Skill, pullLine(rep.Remote, sk))
	}
	for _, r := range rep.Refs {
		line := fmt.Sprintf("%s: %s", app.ShortRef(r.Ref), r.Action)
		if r.Reason != "" {
			line += " (" + r.Reason + ")"
		}
		cliout.Println(w, line)
	}
	switch rep.State.Action {
	case remote.StateFastForward, remote.StateMerged:
		line := "state: " + string(rep.State.Action)
		if len(rep.State.Taken) > 0 {
			line += ", took " + strings.Join(rep.State.Taken, ", ")
		}
		cliout.Reportf(w, "    ", "%s", line)
	}
	for _, sc := range rep.State.Conflicts {
		cliout.Reportf(w, "    ", "state: conflict in %s: %s\n", sc.Record, sc.Reason)
	}
	refused := map[string]bool{}
	for _, sc := range rep.State.Refused {
		refused[sc.Record] = true
		cliout.Reportf(w, "    ", "state: %s: %s\n", sc.Record, sc.Reason)
	}
	for _, id := range rep.State.Untrusted {
		if !refused["plugins/"+id] {
			cliout.Printf(w, "plugin %s came from the remote: sync will not fetch it until you run 'skillstore plugin trust %s'\n", id, id)
		}
	}
}

func pullLine(remoteName string, sk remote.PullSkill) string {
	switch sk.Action {
	case remote.PullNew:
		return fmt.Sprintf("new skill, v%d", sk.NewVersion)
	case remote.PullFastForward:
		return fmt.Sprintf("fast-forward, v%d -> v%d", sk.OldVersion, sk.NewVersion)
	case remote.PullLocalAhead:
		return fmt.Sprintf("local-ahead, v%d here, v%d on %s (push to publish)", sk.OldVersion, sk.RemoteVersion, remoteName)
	case remote.PullJoined:
		return fmt.Sprintf("joined, local v%d and %s v%d had the same files: v%d", sk.OldVersion, remoteName, sk.RemoteVersion, sk.NewVersion)
	case remote.PullPending:
		return fmt.Sprintf("candidate-pending, %s (merge of local v%d and %s v%d)", app.ShortID(sk.Candidate), sk.OldVersion, remoteName, sk.RemoteVersion)
	case remote.PullHeld:
		return heldLine(remoteName, sk)
	}
	line := fmt.Sprintf("%s %s, local v%d and %s v%d", sk.Action, app.ShortID(sk.Candidate), sk.OldVersion, remoteName, sk.RemoteVersion)
	if n := len(sk.Conflicts); n > 0 {
		line += fmt.Sprintf(" with %s: %s", app.Plural(n, "conflict"), strings.Join(sk.Conflicts, ", "))
	} else {
		line += ", clean"
	}
	if n := len(sk.MergeResolved); n > 0 {
		line += fmt.Sprintf(", %d resolved by skill-aware rules: %s", n, strings.Join(sk.MergeResolved, ", "))
	}
	if sk.Superseded != "" {
		line += fmt.Sprintf(" (supersedes candidate %s)", app.ShortID(sk.Superseded))
	}
	return line
}

// heldLine says which remote versions wait for review and why.
func heldLine(remoteName string, sk remote.PullSkill) string {
	line := "held-for-review, "
	if sk.NewVersion > 0 {
		line += fmt.Sprintf("took v%d; ", sk.NewVersion)
	}
	line += fmt.Sprintf("%s v%d", remoteName, sk.Held.From)
	verb := "waits"
	if sk.RemoteVersion > sk.Held.From {
		line += fmt.Sprintf("..v%d", sk.RemoteVersion)
		verb = "wait"
	}
	line += fmt.Sprintf(" rated %s by the safety check %s in candidate %s", sk.Held.Risk, verb, app.ShortID(sk.Candidate))
	if sk.Held.Pending {
		line += " (already waiting)"
	}
	return line + fmt.Sprintf(": review with 'skillstore candidates show %s'", sk.Skill)
}
