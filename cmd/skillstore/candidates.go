package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/treediff"
)

func candidatesCommand() *cli.Command {
	return &cli.Command{
		Name:     "candidates",
		Category: "review",
		Usage:    "review pending updates: list, show, diff, checkout, edit, mergetool, accept, reject, resolve",
		Description: "A candidate is a pending update of a skill on refs/heads/candidates/<skill>: a\n" +
			"merge commit with parents (published version, upstream snapshot). Review it here,\n" +
			"or with plain git: clone the store, commit a resolution on candidates/<skill>,\n" +
			"push it back, then 'skillstore candidates accept <skill>'.",
		Subcommands: []*cli.Command{
			{
				Name:        "list",
				Usage:       "list pending candidates",
				Description: "Exit codes: 0 success, 1 error, 3 store lock busy.",
				Flags:       []cli.Flag{newJSONFlag()},
				Action:      runCandidatesList,
			},
			{
				Name:        "show",
				Usage:       "show a candidate: classification, base/ours/theirs versions, conflicts",
				ArgsUsage:   "SKILL",
				Description: "Exit codes: 0 success, 1 error (no candidate), 2 usage error, 3 store lock busy.",
				Flags:       []cli.Flag{newJSONFlag()},
				Action:      candidateSkillArg(runCandidateShow),
			},
			{
				Name:        "diff",
				Usage:       "show what accepting a candidate would change in the published version",
				ArgsUsage:   "SKILL",
				Description: "Exit codes: 0 success, 1 error (no candidate), 2 usage error, 3 store lock busy.",
				Action:      candidateSkillArg(runCandidateDiff),
			},
			candidateCheckoutCommand(),
			candidateEditCommand(),
			candidateMergetoolCommand(),
			{
				Name:      "accept",
				Usage:     "publish a candidate as the skill's next version",
				ArgsUsage: "SKILL",
				Description: "Refused while a conflicted file still holds conflict markers, and when the\n" +
					"published version moved since the candidate was made (run 'skillstore sync'\n" +
					"for a new candidate). Then says what 'skillstore export' will do with the new\n" +
					"version in each target (hot or cold), or, with --export, exports at once.\n\n" +
					"Exit codes: 0 accepted, 1 refused or error (or export failed), 2 usage error,\n" +
					"3 store lock busy.",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "reason", Usage: "why (recorded on the version)"}, newJSONFlag(),
					&cli.BoolFlag{Name: "export", Usage: "export into every target afterwards"},
				},
				Action: candidateSkillArg(runCandidateAccept),
			},
			{
				Name:      "reject",
				Usage:     "drop a candidate and keep the published files",
				ArgsUsage: "SKILL",
				Description: "Like dpkg keeping a locally changed file: the published files stay, but the\n" +
					"upstream is recorded as seen (a version with the same files that takes the\n" +
					"upstream snapshot in), so sync does not propose the same update again. The\n" +
					"candidate stays reachable under refs/skillstore/superseded/.\n\n" +
					"A merge that pull proposed (mode remote-merge) is rejected the same way: the\n" +
					"local files stay, and the new version joins both published histories, numbered\n" +
					"one past both sides, so the next push fast-forwards the remote.\n\n" +
					"Exit codes: 0 rejected, 1 error, 2 usage error, 3 store lock busy.",
				Flags:  []cli.Flag{&cli.StringFlag{Name: "reason", Usage: "why (recorded on the version)"}, newJSONFlag()},
				Action: candidateSkillArg(runCandidateReject),
			},
			{
				Name:      "resolve",
				Usage:     "make a resolved skill folder the candidate's new head",
				ArgsUsage: "SKILL --from DIR",
				Description: "Commits the folder DIR on top of the candidate branch (the safety check runs\n" +
					"on it). Accept it afterwards.\n\n" +
					"Exit codes: 0 recorded, 1 error, 2 usage error, 3 store lock busy.",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "from", Usage: "the resolved skill folder (required)"},
					&cli.StringFlag{Name: "reason", Usage: "why (recorded on the commit)"},
				},
				Action: candidateSkillArg(runCandidateResolve),
			},
		},
	}
}

// candidateErr adds hints and exit codes to candidate errors.
func candidateErr(skill string, err error) error {
	var me *store.ConflictMarkersError
	switch {
	case errors.Is(err, store.ErrNoCandidate):
		return withHint(err, "run 'skillstore candidates list' to see the pending candidates")
	case errors.Is(err, store.ErrHeadMoved):
		return withHint(err, "run 'skillstore sync' to merge the update into the new published version")
	case errors.As(err, &me):
		return withHint(err,
			"resolve them with 'skillstore candidates edit "+skill+"' or 'skillstore candidates mergetool "+skill+"'",
			"or 'skillstore candidates checkout "+skill+" DIR', edit the files and run 'skillstore candidates resolve "+skill+" --from DIR'",
			"or commit a resolution on candidates/"+skill+" in a clone of the store and push it back")
	}
	return err
}

func candidateState(c store.Candidate) string {
	switch {
	case c.Stale:
		return "stale"
	case len(c.Markers) > 0:
		return "conflicted"
	case c.Resolved:
		return "resolved"
	}
	return "ready"
}

func readCandidates(c *cli.Context, skill string) ([]store.Candidate, error) {
	s, err := openStore(c)
	if err != nil {
		return nil, err
	}
	var out []store.Candidate
	err = s.View(c.Context, func(r *store.Reader) error {
		if skill == "" {
			out, err = r.Candidates()
			return err
		}
		cand, err := r.Candidate(skill)
		out = []store.Candidate{cand}
		return err
	})
	return out, candidateErr(skill, err)
}

func runCandidatesList(c *cli.Context) error {
	if c.NArg() != 0 {
		return usageErrorf("candidates list takes no arguments")
	}
	cands, err := readCandidates(c, "")
	if err != nil {
		return err
	}
	e := getEnv(c)
	if c.Bool("json") {
		if cands == nil {
			cands = []store.Candidate{}
		}
		return cliout.JSON(e.stdout, cands)
	}
	if len(cands) == 0 {
		cliout.Println(e.stdout, "no candidates wait for review")
		return nil
	}
	t := cliout.NewTable(5)
	t.Add("SKILL", "FROM", "MODE", "ON", "CONFLICTS", "STATE")
	for _, cand := range cands {
		t.Add(cand.Skill, candidateFrom(cand), string(cand.Mode), fmt.Sprintf("v%d", cand.PublishedVersion), fmt.Sprint(len(cand.Conflicts)), candidateState(cand))
	}
	return t.Write(e.stdout, cliout.NewPainter(e.stdout), 0)
}

// candidateFrom names where a candidate's update came from: a plugin, or
// the remote whose published history pull merged.
func candidateFrom(c store.Candidate) string {
	if c.Mode == store.MergeModeRemote {
		return "remote:" + c.Remote
	}
	if c.Mode == store.MergeModeLocalEdit {
		return "target edit"
	}
	return "plugin:" + c.Plugin
}

func runCandidateShow(c *cli.Context, skill string) error {
	cands, err := readCandidates(c, skill)
	if err != nil {
		return err
	}
	e := getEnv(c)
	cand := cands[0]
	if c.Bool("json") {
		return cliout.JSON(e.stdout, cand)
	}
	writeCandidate(e.stdout, cand)
	return nil
}

func writeCandidate(w io.Writer, c store.Candidate) {
	cliout.Printf(w, "candidate %s  (%s)\n", c.Skill, candidateState(c))
	cliout.Printf(w, "  classification: %s\n", c.Mode)
	base := "none"
	if !c.Base.IsZero() {
		base = c.Base.String()[:12]
	}
	if c.Mode == store.MergeModeRemote {
		cliout.Printf(w, "  remote:         %s\n", c.Remote)
		cliout.Printf(w, "  base:           %s (last version both sides published)\n", base)
		cliout.Printf(w, "  ours:           v%d (%s)\n", c.PublishedVersion, c.Published.String()[:12])
		cliout.Printf(w, "  theirs:         %s's v%s (%s)\n", c.Remote, c.RemoteVersion, c.Upstream.String()[:12])
	} else if c.Mode == store.MergeModeLocalEdit {
		cliout.Printf(w, "  base:           %s (the version export wrote into the target)\n", base)
		cliout.Printf(w, "  ours:           v%d (%s)\n", c.PublishedVersion, c.Published.String()[:12])
		cliout.Printf(w, "  theirs:         the edit in the target (%s, by %s)\n", c.Upstream.String()[:12], c.EditAuthor)
	} else {
		plugin := c.Plugin
		if c.PluginVersion != "" {
			plugin += " " + c.PluginVersion
		}
		cliout.Printf(w, "  plugin:         %s\n", plugin)
		cliout.Printf(w, "  base:           %s (last accepted upstream)\n", base)
		cliout.Printf(w, "  ours:           v%d (%s)\n", c.PublishedVersion, c.Published.String()[:12])
		cliout.Printf(w, "  theirs:         upstream %s\n", c.Upstream.String()[:12])
	}
	head := c.Head.String()[:12]
	if c.Resolved {
		head += " (resolution on top of merge " + c.Merge.String()[:12] + ")"
	}
	cliout.Printf(w, "  head:           %s\n", head)
	if len(c.MergeResolved) > 0 {
		cliout.Printf(w, "  rules resolved: %s (skill-aware merge: review them)\n", strings.Join(c.MergeResolved, ", "))
	}
	if len(c.Conflicts) == 0 {
		cliout.Printf(w, "  conflicts:      none\n")
	} else {
		cliout.Printf(w, "  conflicts:      %s\n", strings.Join(c.Conflicts, ", "))
		markers := "none left"
		if len(c.Markers) > 0 {
			markers = strings.Join(c.Markers, ", ")
		}
		cliout.Printf(w, "  markers:        %s\n", markers)
	}
	if c.Risk != "" {
		cliout.Printf(w, "  risk:           %s\n", c.Risk)
	}
	if c.Stale {
		cliout.Printf(w, "  the published version moved since: run 'skillstore sync' for a new candidate\n")
	}
}

func runCandidateDiff(c *cli.Context, skill string) error {
	s, err := openStore(c)
	if err != nil {
		return err
	}
	var changes []treediff.FileChange
	err = s.View(c.Context, func(r *store.Reader) error {
		_, changes, err = r.CandidateDiff(skill)
		return err
	})
	if err != nil {
		return candidateErr(skill, err)
	}
	return treediff.Write(getEnv(c).stdout, changes)
}

func runCandidateAccept(c *cli.Context, skill string) error {
	s, err := openStore(c)
	if err != nil {
		return err
	}
	var changes []treediff.FileChange
	err = s.View(c.Context, func(r *store.Reader) error {
		_, changes, err = r.CandidateDiff(skill)
		return err
	})
	if err != nil {
		return candidateErr(skill, err)
	}
	v, err := s.AcceptCandidate(c.Context, skill, c.String("reason"))
	if err != nil {
		return candidateErr(skill, err)
	}
	e := getEnv(c)
	if c.Bool("export") {
		return acceptAndExport(c, s, v)
	}
	if c.Bool("json") {
		return cliout.JSON(e.stdout, toVersionJSON(v))
	}
	cliout.Printf(e.stdout, "accepted candidate %s: published %s\n", skill, v.Name())
	return explainNextExport(c, s, v, changes)
}

func runCandidateReject(c *cli.Context, skill string) error {
	s, err := openStore(c)
	if err != nil {
		return err
	}
	v, err := s.RejectCandidate(c.Context, skill, c.String("reason"))
	if err != nil {
		return candidateErr(skill, err)
	}
	if c.Bool("json") {
		return cliout.JSON(getEnv(c).stdout, toVersionJSON(v))
	}
	cliout.Printf(getEnv(c).stdout, "rejected candidate %s: %s keeps the published files; this upstream will not be proposed again\n", skill, v.Name())
	return nil
}

func runCandidateResolve(c *cli.Context, skill string) error {
	if c.String("from") == "" {
		return usageErrorf("candidates resolve needs --from DIR, the resolved skill folder")
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	cand, err := s.ResolveCandidate(c.Context, skill, c.String("from"), c.String("reason"))
	if err != nil {
		return candidateErr(skill, err)
	}
	markers := "no conflict markers left: accept it with 'skillstore candidates accept " + skill + "'"
	if len(cand.Markers) > 0 {
		markers = "conflict markers left in " + strings.Join(cand.Markers, ", ")
	}
	cliout.Printf(getEnv(c).stdout, "candidate %s now at %s; %s\n", skill, cand.Head.String()[:12], markers)
	return nil
}
