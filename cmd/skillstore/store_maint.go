package main

import (
	"fmt"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
)

func storeVerifyCommand() *cli.Command {
	return &cli.Command{
		Name:     "verify",
		Category: "inspection",
		Usage:    "check every invariant of the store",
		Description: "verify checks that every ref file holds an object id and reaches a complete commit,\n" +
			"that every version's tree holds a SKILL.md that parses and only regular files,\n" +
			"that version numbers count down by one to v1 along each skill's history, and that\n" +
			"every state record parses, that every tree passes git fsck --strict's rules (no duplicate\n" +
			"names, no .git in any spelling, sorted), and that every object read hashes to its id\n" +
			"(--quick checks that blobs are present without reading them). It prints each problem\n" +
			"with the ref or file concerned. SKILL.md files are judged by the validation policy add,\n" +
			"import, plugin add, sync, pull and clone apply (lenient): its warnings are printed and\n" +
			"do not fail verify.\n\n" +
			"Exit codes: 0 the store is sound (warnings or not); 1 problems found (listed) or error; 3 store busy.",
		Flags: []cli.Flag{newJSONFlag(), &cli.BoolFlag{Name: "quick", Usage: "check that blobs are present instead of reading and re-hashing them"}},
		Action: func(c *cli.Context) error {
			s, _, err := openStoreArgs(c, 0, 0)
			if err != nil {
				return err
			}
			rep, err := s.VerifyWith(c.Context, store.VerifyOptions{Quick: c.Bool("quick")})
			if err != nil {
				return err
			}
			e := getEnv(c)
			if c.Bool("json") {
				if rep.Problems == nil {
					rep.Problems = []store.VerifyProblem{}
				}
				if rep.Warnings == nil {
					rep.Warnings = []store.VerifyProblem{}
				}
				if err := cliout.JSON(e.stdout, rep); err != nil {
					return err
				}
			} else {
				for _, p := range rep.Problems {
					cliout.Println(e.stdout, p)
				}
				for _, w := range rep.Warnings {
					cliout.Printf(e.stderr, "skillstore: %s\n", w)
				}
			}
			if !rep.OK() {
				return withHint(fmt.Errorf("verify found %s in %s", plural(len(rep.Problems), "problem"), s.Dir()),
					"a ref can be repaired with plain git (git update-ref), or restored from a clone of the store")
			}
			if !c.Bool("json") {
				cliout.Printf(e.stdout, "ok: %s, %s, %s verified\n", plural(rep.Skills, "skill"), plural(rep.Versions, "version"), plural(rep.Refs, "ref"))
			}
			return nil
		},
	}
}

func storeGCCommand() *cli.Command {
	return &cli.Command{
		Name:     "gc",
		Category: "inspection",
		Usage:    "pack objects and refs, prune unreachable objects past a grace period",
		Description: "gc writes every reachable object into one delta-compressed pack, packs the refs,\n" +
			"and deletes loose objects and old packs. Unreachable objects (from purges or\n" +
			"crashed writers) are deleted only once older than --grace. Deltas already in\n" +
			"packs are copied, not recomputed. Other commands, readers and writers, run while\n" +
			"gc writes its pack: it takes the store's exclusive lock only to switch to it.\n\n" +
			"Exit codes: 0 done; 1 error; 3 store busy.",
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "grace", Usage: "keep unreachable objects younger than this", Value: store.DefaultGCGrace},
			newJSONFlag(),
		},
		Action: func(c *cli.Context) error {
			s, _, err := openStoreArgs(c, 0, 0)
			if err != nil {
				return err
			}
			if c.Duration("grace") < 0 {
				return usageErrorf("--grace %s is negative: give how long to keep unreachable objects, e.g. 24h", c.Duration("grace"))
			}
			// gc's heap is its per-object records (no pointers, so cheap
			// to collect): collecting more often keeps its peak memory
			// closer to them.
			defer debug.SetGCPercent(debug.SetGCPercent(25))
			res, err := s.GC(c.Context, c.Duration("grace"))
			if err != nil {
				return err
			}
			e := getEnv(c)
			if c.Bool("json") {
				return cliout.JSON(e.stdout, res)
			}
			cliout.Printf(e.stdout, "packed %s (%d as deltas) into %d bytes and %s\n", plural(res.Objects, "object"), res.Deltas, res.PackBytes, plural(res.Refs, "ref"))
			cliout.Printf(e.stdout, "removed %s and %s; pruned %s (%d younger than %s kept)\n",
				plural(res.LooseRemoved, "loose object"), plural(res.PacksRemoved, "old pack"), plural(res.Pruned, "unreachable object"), res.Kept, c.Duration("grace"))
			return nil
		},
	}
}
