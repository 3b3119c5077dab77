package main

import (
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/reload/target"
)

// captureDryRun is one line of capture --dry-run.
type captureDryRun struct {
	Target string   `json:"target"`
	Skill  string   `json:"skill"`
	Would  string   `json:"would"` // "capture" or "needs-merge"
	Paths  []string `json:"paths"`
}

// runCaptureDryRun says what capture would record, from target.Status,
// which reads and writes nothing: capture itself also records in the
// target what it captured, so it cannot run on a dry-run store. A skill
// whose published version also moved since export is one capture leaves
// to sync's merge (needs-merge). The validation and safety check that
// capture applies are not run.
func runCaptureDryRun(c *cli.Context) error {
	s, err := openStore(c)
	if err != nil {
		return err
	}
	targets, err := readTargets(c, s.DryRun(), c.StringSlice("target"))
	if err != nil {
		return err
	}
	sts, err := target.Status(c.Context, s.DryRun(), targets, targetOptions(c))
	if err != nil {
		return err
	}
	want, err := resolveCaptureArgs(c, s, c.Args().Slice())
	if err != nil {
		return err
	}
	out := []captureDryRun{}
	for _, st := range sts {
		if st.State != reload.StateModified || (len(want) > 0 && !slices.Contains(want, st.Skill)) {
			continue
		}
		would := "capture"
		if st.Outdated {
			would = "needs-merge"
		}
		out = append(out, captureDryRun{Target: st.Target, Skill: st.Skill, Would: would, Paths: st.Paths})
	}
	e := getEnv(c)
	if c.Bool("json") {
		return writeJSON(e.stdout, out)
	}
	verbose := c.Bool("verbose")
	t := newTable(2)
	for _, r := range out {
		r := r
		t.addFit(func(budget int) string { return fileSummary(r.Paths, budget, verbose) }, r.Target, r.Skill, "would "+r.Would)
	}
	t.write(e.stdout, newPainter(e.stdout), outputWidth(e.stdout, verbose))
	if len(out) == 0 {
		printLine(e.stdout, "no local edits to capture")
	}
	noteDryRun(c)
	return nil
}
