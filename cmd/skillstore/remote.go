package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/reload/target"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/remote"
	"github.com/skillstore/skillstore/store/safety"
)

func remoteCommand() *cli.Command {
	return &cli.Command{
		Name:     "remote",
		Category: "remotes",
		Usage:    "manage the git servers this store is shared through: add, list, rm",
		Description: "A remote is a git repository (on GitHub, GitLab, Gitea, a bare repository\n" +
			"over ssh or git daemon, or a local path) that holds a copy of the store. Remotes\n" +
			"are kept in the store repository's git config, so 'git remote -v' shows them;\n" +
			"they are never written into the state that push sends.",
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "record a remote",
				ArgsUsage: "NAME URL",
				Description: "URL is file://, git://, http(s)://, ssh:// or user@host:path, or a local path.\n" +
					"Credentials are read from where git keeps them (credential helpers, the ssh\n" +
					"agent); a password in the URL is kept in the git config only and never printed.\n\n" +
					"Exit codes: 0 added, 1 error (name taken, bad URL), 2 usage error, 3 store lock busy.",
				Action: runRemoteAdd,
			},
			{
				Name:        "list",
				Usage:       "list the remotes (passwords hidden)",
				Description: "Exit codes: 0 success, 1 error, 3 store lock busy.",
				Flags:       []cli.Flag{newJSONFlag()},
				Action:      runRemoteList,
			},
			{
				Name:      "rm",
				Usage:     "forget a remote and what this store last saw of it",
				ArgsUsage: "NAME",
				Description: "Nothing on the remote changes, and no skill or candidate of this store does.\n\n" +
					"Exit codes: 0 removed, 1 error (no such remote), 2 usage error, 3 store lock busy.",
				Action: runRemoteRm,
			},
		},
	}
}

func cloneCommand() *cli.Command {
	return &cli.Command{
		Name:      "clone",
		Category:  "remotes",
		Usage:     "create a store from a remote",
		ArgsUsage: "URL [DIR]",
		Description: "Creates a new store at DIR (default: --store, $SKILLSTORE_DIR or the XDG\n" +
			"default) with URL as its remote 'origin', pulls everything (each fetched tree\n" +
			"passes the same safety checks as local input) and verifies the result. On any\n" +
			"failure nothing is left behind.\n\n" +
			"Versions the safety check rates high wait for review as in pull.\n\n" +
			"Exit codes: 0 cloned, 1 error (unreachable, refused by the safety checks, DIR\n" +
			"not empty), 2 usage error.",
		Flags:  []cli.Flag{allowRiskFlag(), maxNewSkillsFlag(), newJSONFlag()},
		Action: runClone,
	}
}

func pushCommand() *cli.Command {
	return &cli.Command{
		Name:      "push",
		Category:  "remotes",
		Usage:     "send published skills, upstream snapshots, candidates and state to a remote",
		ArgsUsage: "[REMOTE]",
		Description: "Sends refs/heads/skills/*, refs/upstream/*, refs/heads/candidates/*,\n" +
			"refs/skillstore/superseded/* and refs/skillstore/state to REMOTE (default: the\n" +
			"only remote, or 'origin'). Published skills and the state only fast-forward: if\n" +
			"the remote has versions this store lacks, the whole push is refused and nothing\n" +
			"is sent (run 'skillstore pull' first). Nothing on the remote is overwritten,\n" +
			"except a candidate this store superseded, accepted or rejected, and only while\n" +
			"the remote still holds what this store last saw of it (force-with-lease); a\n" +
			"candidate a reviewer changed on the server is never replaced. The update is\n" +
			"atomic where the server supports it. Quiet when there is nothing to send.\n\n" +
			"Exit codes: 0 pushed or up to date, 1 refused or error, 2 usage error, 3 store\n" +
			"lock busy.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "show what would be sent, send nothing"},
			newJSONFlag(),
		},
		Action: runPush,
	}
}

func pullCommand() *cli.Command {
	return &cli.Command{
		Name:      "pull",
		Category:  "remotes",
		Usage:     "fetch a remote and integrate its published skills, candidates and state",
		ArgsUsage: "[REMOTE]",
		Description: "Fetches REMOTE (default: the only remote, or 'origin') and checks every fetched\n" +
			"tree with the store's safety checks (symlinks, '..' paths, huge files, risky\n" +
			"content, ref names outside skillstore's namespaces): a remote that fails them\n" +
			"is refused and nothing is written. Then, per skill, with the merge-base logic\n" +
			"of sync:\n" +
			"  new / fast-forward    the remote is ahead: its versions are taken\n" +
			"  local-ahead           this store is ahead: 'skillstore push' publishes it\n" +
			"  joined                both published the same files: one version joins them\n" +
			"  merge-candidate       both published different edits: their three-way merge\n" +
			"  conflicted-candidate  waits on refs/heads/candidates/<skill> for review\n" +
			"Nothing published is overwritten. The merged version, once accepted, is numbered\n" +
			"one past the higher of both sides' numbers. Candidates a reviewer extended on\n" +
			"the server fast-forward. The state is merged record by record; conflicting\n" +
			"records keep this store's and are reported; targets stay this machine's.\n" +
			"A version the safety check here rates high is not published: the versions\n" +
			"before it are, the rest waits as a candidate for review (held-for-review), as\n" +
			"sync holds a risky upstream update. A pull that would create more than\n" +
			"--max-new-skills skills is refused before anything is fetched. The fetch runs\n" +
			"without the store lock, within --fetch-timeout, so list and show answer\n" +
			"meanwhile.\n" +
			"With --export the published skills are then exported to every target.\n\n" +
			"Exit codes: 0 done, nothing waits for review; 1 refused or error; 2 usage\n" +
			"error; 3 store lock busy; 4 done, candidates wait for review or state records\n" +
			"conflicted.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "export", Usage: "export into every target afterwards"},
			&cli.BoolFlag{Name: "skill-aware", Usage: "merge Markdown of diverged skills with the skill-aware rules (see merge-file --help); the candidate lists each resolution"},
			allowRiskFlag(),
			maxNewSkillsFlag(),
			newJSONFlag(),
			dryRunFlag("pull into a scratch copy of the store and report what would change, writing nothing here (with --export: what export would do)"),
		},
		Action: runPull,
	}
}

func allowRiskFlag() cli.Flag {
	return &cli.StringFlag{Name: "allow-risk", Usage: "highest safety risk level to accept in fetched versions (none, low, medium, high, critical)", Value: safety.DefaultAllowedRisk.String()}
}

func maxNewSkillsFlag() cli.Flag {
	return &cli.IntFlag{Name: "max-new-skills", Usage: "most skills one pull may create in this store; a remote with more is refused before anything is fetched", Value: remote.DefaultMaxNewSkills}
}

// parseMaxNewSkills reads --max-new-skills, which must be positive.
func parseMaxNewSkills(c *cli.Context) (int, error) {
	n := c.Int("max-new-skills")
	if n <= 0 {
		return 0, usageErrorf("--max-new-skills %d is not positive: give how many skills one pull may create", n)
	}
	return n, nil
}

func parseAllowRisk(c *cli.Context) (safety.RiskLevel, error) {
	risk, err := safety.ParseRiskLevel(c.String("allow-risk"))
	if err != nil {
		return 0, usageErrorf("--allow-risk: %v", err)
	}
	if risk == safety.RiskNone {
		return 0, usageErrorf("--allow-risk none is not supported for remotes: fetched versions always carry script findings")
	}
	return risk, nil
}

func runRemoteAdd(c *cli.Context) error {
	args, err := remoteArgs(c, 2, 2)
	if err != nil {
		return err
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	rem, err := remote.Add(c.Context, s, args[0], args[1])
	if err != nil {
		return err
	}
	cliout.Printf(getEnv(c).stdout, "added remote %s %s\n", rem.Name, rem.Redacted())
	return nil
}

// remoteView is a remote as list prints it: the URL with passwords hidden.
type remoteView struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

func runRemoteList(c *cli.Context) error {
	if _, err := remoteArgs(c, 0, 0); err != nil {
		return err
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	rems, err := remote.List(c.Context, s)
	if err != nil {
		return err
	}
	e := getEnv(c)
	views := []remoteView{}
	for _, r := range rems {
		views = append(views, remoteView{Name: r.Name, URL: r.Redacted()})
	}
	if c.Bool("json") {
		return cliout.JSON(e.stdout, views)
	}
	if len(views) == 0 {
		cliout.Println(e.stdout, "no remotes; add one with 'skillstore remote add NAME URL'")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, v := range views {
		cliout.Printf(tw, "%s\t%s\n", v.Name, v.URL)
	}
	return tw.Flush()
}

func runRemoteRm(c *cli.Context) error {
	args, err := remoteArgs(c, 1, 1)
	if err != nil {
		return err
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	if err := remote.Remove(c.Context, s, args[0]); err != nil {
		return err
	}
	cliout.Printf(getEnv(c).stdout, "removed remote %s\n", args[0])
	return nil
}

func runClone(c *cli.Context) error {
	args, err := remoteArgs(c, 1, 2)
	if err != nil {
		return err
	}
	risk, err := parseAllowRisk(c)
	if err != nil {
		return err
	}
	maxNew, err := parseMaxNewSkills(c)
	if err != nil {
		return err
	}
	dir := ""
	if len(args) == 2 {
		dir, err = filepath.Abs(args[1])
	} else {
		dir, err = storeDir(c)
	}
	if err != nil {
		return err
	}
	opts, err := storeOptions(c)
	if err != nil {
		return err
	}
	s, rep, err := remote.Clone(c.Context, args[0], dir, opts, remote.CloneOptions{AllowRisk: risk, MaxNewSkills: maxNew})
	switch {
	case errors.Is(err, store.ErrStoreExists), errors.Is(err, store.ErrNotEmpty):
		return withHint(err, "clone into a new or empty folder, or point --store elsewhere")
	case err != nil:
		return err
	}
	e := getEnv(c)
	if c.Bool("json") {
		return cliout.JSON(e.stdout, rep)
	}
	cliout.Printf(e.stdout, "cloned %s into %s: %d skill(s), %d candidate(s) waiting; verified\n", rep.URL, s.Dir(), skillsOnly(rep.Skills), rep.CandidatesWaiting)
	for _, sk := range rep.Skills {
		if sk.Action == remote.PullHeld {
			cliout.Printf(e.stdout, "%s: %s\n", sk.Skill, pullLine(rep.Remote, sk))
		}
	}
	printPolicyWarnings(e.stderr, "remote "+rep.Remote, rep.Warnings)
	return nil
}

func runPush(c *cli.Context) error {
	args, err := remoteArgs(c, 0, 1)
	if err != nil {
		return err
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	// Target records of older stores are in the state: move them out to
	// this machine's records first, so the push never sends them.
	if err := target.Migrate(c.Context, s); err != nil {
		return err
	}
	opts := remote.PushOptions{DryRun: c.Bool("dry-run")}
	if len(args) == 1 {
		opts.Remote = args[0]
	}
	rep, err := pushWithProgress(c, s, opts)
	if err != nil {
		return err
	}
	e := getEnv(c)
	if c.Bool("json") {
		return cliout.JSON(e.stdout, rep)
	}
	writePushReport(e.stdout, rep)
	return nil
}

// shortRef drops "refs/" and "heads/" as git does when it prints refs.
func shortRef(ref string) string {
	return strings.TrimPrefix(strings.TrimPrefix(ref, "refs/"), "heads/")
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func writePushReport(w io.Writer, rep *remote.PushReport) {
	prefix := ""
	if rep.DryRun {
		prefix = "would "
	}
	for _, u := range rep.Updates {
		switch u.Action {
		case remote.PushCreate:
			cliout.Printf(w, "%s: %screate %s\n", shortRef(u.Ref), prefix, shortID(u.New))
		case remote.PushDelete:
			cliout.Printf(w, "%s: %sdelete %s (%s)\n", shortRef(u.Ref), prefix, shortID(u.Old), u.Reason)
		case remote.PushSkip:
			cliout.Printf(w, "%s: skipped (%s)\n", shortRef(u.Ref), u.Reason)
		default:
			cliout.Printf(w, "%s: %s%s %s..%s\n", shortRef(u.Ref), prefix, u.Action, shortID(u.Old), shortID(u.New))
		}
	}
}

// pullOutput is pull's --json output: the report, and the export when
// --export ran.
type pullOutput struct {
	*remote.PullReport
	Export []target.Exported `json:"export,omitempty"`
}

func runPull(c *cli.Context) error {
	args, err := remoteArgs(c, 0, 1)
	if err != nil {
		return err
	}
	risk, err := parseAllowRisk(c)
	if err != nil {
		return err
	}
	maxNew, err := parseMaxNewSkills(c)
	if err != nil {
		return err
	}
	s, cleanup, err := openPullStore(c)
	if err != nil {
		return err
	}
	defer cleanup()
	opts := remote.PullOptions{AllowRisk: risk, SkillAware: c.Bool("skill-aware"), MaxNewSkills: maxNew}
	if len(args) == 1 {
		opts.Remote = args[0]
	}
	rep, err := pullWithProgress(c, s, opts)
	if err != nil {
		return err
	}
	e := getEnv(c)
	out := pullOutput{PullReport: rep}
	var exportErr error
	if c.Bool("export") {
		targets, err := readTargets(c, s, nil)
		if err != nil {
			return err
		}
		if len(targets) == 0 {
			cliout.Println(e.stderr, "skillstore: no targets to export to; add one with 'skillstore target add NAME DIR'")
		} else {
			export := target.Export
			if c.Bool("dry-run") {
				export = target.Plan // the scratch copy is no dry-run store
			}
			out.Export, exportErr = export(c.Context, s, targets, targetOptions(c))
		}
	}
	if c.Bool("json") {
		if err := cliout.JSON(e.stdout, out); err != nil {
			return err
		}
	} else {
		writePullReport(e.stdout, rep)
		printPolicyWarnings(e.stderr, "remote "+rep.Remote, rep.Warnings)
		if out.Export != nil {
			printExports(c, e.stdout, out.Export)
		}
		noteDryRun(c)
	}
	switch {
	case exportErr != nil:
		return exportErr
	case rep.CandidatesWaiting > 0 || len(rep.State.Conflicts) > 0:
		if rep.Changed() && !c.Bool("json") {
			cliout.Printf(e.stderr, "skillstore: %d candidate(s) wait for review: run 'skillstore candidates list'\n", rep.CandidatesWaiting)
		}
		return silentExit(exitReview)
	}
	return nil
}

// writePullReport prints one line per change; nothing when nothing changed.
func writePullReport(w io.Writer, rep *remote.PullReport) {
	for _, sk := range rep.Skills {
		cliout.Printf(w, "%s: %s\n", sk.Skill, pullLine(rep.Remote, sk))
	}
	for _, r := range rep.Refs {
		line := fmt.Sprintf("%s: %s", shortRef(r.Ref), r.Action)
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
		cliout.Println(w, line)
	}
	for _, sc := range rep.State.Conflicts {
		cliout.Printf(w, "state: conflict in %s: %s\n", sc.Record, sc.Reason)
	}
	refused := map[string]bool{}
	for _, sc := range rep.State.Refused {
		refused[sc.Record] = true
		cliout.Printf(w, "state: %s: %s\n", sc.Record, sc.Reason)
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
		return fmt.Sprintf("candidate-pending, %s (merge of local v%d and %s v%d)", shortID(sk.Candidate), sk.OldVersion, remoteName, sk.RemoteVersion)
	case remote.PullHeld:
		return heldLine(remoteName, sk)
	}
	line := fmt.Sprintf("%s %s, local v%d and %s v%d", sk.Action, shortID(sk.Candidate), sk.OldVersion, remoteName, sk.RemoteVersion)
	if n := len(sk.Conflicts); n > 0 {
		line += fmt.Sprintf(" with %d conflict(s): %s", n, strings.Join(sk.Conflicts, ", "))
	} else {
		line += ", clean"
	}
	if n := len(sk.MergeResolved); n > 0 {
		line += fmt.Sprintf(", %d resolved by skill-aware rules: %s", n, strings.Join(sk.MergeResolved, ", "))
	}
	if sk.Superseded != "" {
		line += fmt.Sprintf(" (supersedes candidate %s)", shortID(sk.Superseded))
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
	line += fmt.Sprintf(" rated %s by the safety check %s in candidate %s", sk.Held.Risk, verb, shortID(sk.Candidate))
	if sk.Held.Pending {
		line += " (already waiting)"
	}
	return line + fmt.Sprintf(": review with 'skillstore candidates show %s'", sk.Skill)
}

// remoteArgs returns the arguments after checking their number, and lets
// the command's flags follow them ("pull origin --export"), which
// urfave/cli leaves among the arguments.
func remoteArgs(c *cli.Context, min, max int) ([]string, error) {
	name := commandPath(c)
	help := fmt.Sprintf("run 'skillstore %s --help' for usage", name)
	var args []string
	raw := c.Args().Slice()
	for i := 0; i < len(raw); i++ {
		a := raw[i]
		if a == "--" {
			args = append(args, raw[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			args = append(args, a)
			continue
		}
		flag, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		var def cli.Flag
		for _, f := range c.Command.Flags {
			if slices.Contains(f.Names(), flag) {
				def = f
			}
		}
		if def == nil {
			return nil, withHint(usageErrorf("flag provided but not defined: -%s", flag), help)
		}
		if _, isBool := def.(*cli.BoolFlag); isBool && !hasVal {
			val = "true"
		} else if !hasVal {
			if i+1 >= len(raw) {
				return nil, withHint(usageErrorf("flag needs an argument: -%s", flag), help)
			}
			i++
			val = raw[i]
		}
		if err := c.Set(flag, val); err != nil {
			return nil, withHint(usageErrorf("invalid value %q for flag -%s: %v", val, flag, err), help)
		}
	}
	if len(args) < min || len(args) > max {
		if c.Command.ArgsUsage == "" {
			return nil, withHint(usageErrorf("%s takes no arguments", name), help)
		}
		return nil, withHint(usageErrorf("%s takes %s", name, c.Command.ArgsUsage), help)
	}
	return args, nil
}

// commandPath is the command's name with its parents ("remote add").
func commandPath(c *cli.Context) string {
	var names []string
	for _, ctx := range c.Lineage() {
		if ctx.Command != nil && ctx.Command.Name != "" && ctx.Command.Name != c.App.Name && (len(names) == 0 || names[0] != ctx.Command.Name) {
			names = append([]string{ctx.Command.Name}, names...)
		}
	}
	return strings.Join(names, " ")
}
