package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/problem"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

func addFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "reason", Usage: "why (recorded on each new version)"},
		&cli.BoolFlag{Name: "strict", Usage: "validate SKILL.md with the strict rules"},
		&cli.StringFlag{Name: "allow-risk", Usage: "highest safety risk level to accept (none, low, medium, high, critical)", Value: safety.DefaultAllowedRisk.String()},
		newJSONFlag(),
	}
}

func addOptions(c *cli.Context) (store.AddOptions, error) {
	risk, err := safety.ParseRiskLevel(c.String("allow-risk"))
	if err != nil {
		return store.AddOptions{}, usageErrorf("--allow-risk: %v", err)
	}
	return store.AddOptions{Reason: c.String("reason"), Validation: validationMode(c.Bool("strict")), AllowRisk: risk}, nil
}

const addExitCodes = "Exit codes: 0 every folder recorded or unchanged; 1 a folder is invalid, rejected by\n" +
	"the safety check or refused for its risk (nothing is written); 2 usage; 3 store busy."

func storeAddCommand() *cli.Command {
	return &cli.Command{
		Name:      "add",
		Category:  "skills",
		Usage:     "record skill folders as new versions",
		ArgsUsage: "PATH...",
		Description: "add validates each skill folder (lenient rules; --strict for strict), runs the safety\n" +
			"check, and records it as a new version of its skill when its files differ from the\n" +
			"latest version (otherwise it says there is nothing new). Several folders are recorded\n" +
			"together or not at all.\n\n" +
			"Safety: symlinks, paths leaving the folder, special files, files over 2 MiB and more\n" +
			"than 1000 files are rejected. Executable scripts, invisible Unicode in SKILL.md, long\n" +
			"base64 blobs, curl|sh pipelines and 'ignore previous instructions' are flagged with\n" +
			"a risk level recorded on the version (see 'skillstore show'). Findings above\n" +
			"--allow-risk (default high) refuse the version.\n\n" + addNamesHelp + "\n\n" + addExitCodes,
		Flags: append(addFlags(), append(nameFlags(), dryRunFlag("report what would be recorded, writing nothing"))...),
		Action: func(c *cli.Context) error {
			paths, err := storeArgs(c, 1, -1)
			if err != nil {
				return err
			}
			for _, p := range paths {
				if p == "" {
					return usageErrorf("add: an empty folder name: give the skill folder to record")
				}
			}
			opts, err := addOptions(c)
			if err != nil {
				return err
			}
			if opts.As, opts.Into, err = nameOptions(c, len(paths)); err != nil {
				return err
			}
			s, err := openStoreForWrite(c)
			if err != nil {
				return err
			}
			results, err := s.Add(c.Context, paths, opts)
			if err != nil {
				return err
			}
			return printAddResults(c, results)
		},
	}
}

func storeImportCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Category:  "skills",
		Usage:     "record every skill folder found under a folder",
		ArgsUsage: "ROOT",
		Description: "import finds every folder holding a SKILL.md under ROOT with the walk 'discover'\n" +
			"uses (8 folders deep, not inside another skill, skipping .git, node_modules, build\n" +
			"outputs, virtualenvs, caches and hidden folders other than .agents, .claude, .codex,\n" +
			".curated, .system and .experimental; symlinks followed only inside ROOT; in a folder\n" +
			"holding a plugin or marketplace manifest, the skill folders it names, as 'plugin\n" +
			"add' reads them) and records\n" +
			"each like 'add', in one pass and one store transaction. A skill found in several\n" +
			"places is taken once, from its canonical copy: a repository before .agents/skills\n" +
			"before an agent folder (.claude/skills) before the rest; identical copies are\n" +
			"reported as warnings, differing ones as failures. A bad folder is reported and\n" +
			"skipped; the others are recorded. " + addNamesHelp + "\n\n" +
			"Exit codes: 0 all recorded or unchanged; 1 some folders failed (the rest were\n" +
			"recorded) or none was found; 2 usage; 3 store busy.",
		Flags: append(addFlags(), append(nameFlags(), dryRunFlag("report what would be recorded, writing nothing"))...),
		Action: func(c *cli.Context) error {
			args, err := storeArgs(c, 1, 1)
			if err != nil {
				return err
			}
			opts, err := addOptions(c)
			if err != nil {
				return err
			}
			dirs, err := locateSkills(c, args[0])
			if err != nil {
				return err
			}
			if opts.As, opts.Into, err = nameOptions(c, len(dirs)); err != nil {
				return err
			}
			s, err := openStoreForWrite(c)
			if err != nil {
				return err
			}
			var results []store.AddResult
			err = withProgress(c, fmt.Sprintf("importing %d skill folders", len(dirs)), func() error {
				results, err = s.ImportDirs(c.Context, dirs, opts)
				return err
			})
			if err != nil {
				return err
			}
			if err := printAddResults(c, results); err != nil {
				return err
			}
			failed := 0
			for _, r := range results {
				if r.Err != nil {
					failed++
				}
			}
			if failed > 0 {
				if c.Bool("dry-run") {
					return fmt.Errorf("%s of %d could not be imported", plural(failed, "folder"), len(results))
				}
				return fmt.Errorf("%s of %d could not be imported (the others were recorded)", plural(failed, "folder"), len(results))
			}
			return nil
		},
	}
}

// locateSkills finds the skill folders under root, canonical copies
// first, and prints the walk's warnings (a skill past the depth bound).
func locateSkills(c *cli.Context, root string) ([]string, error) {
	found, diags, err := discover.Locate(c.Context, root, discover.Options{Logger: getEnv(c).log})
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	for _, d := range relativeDiagnostics(diags) {
		cliout.Printf(getEnv(c).stderr, "skillstore: %s\n", d)
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("no skill folders (folders with a %s) under %s", discover.SkillFileName, root)
	}
	dirs := make([]string, len(found))
	for i, f := range found {
		dirs[i] = filepath.Join(root, filepath.FromSlash(f.RelDir)) // as the user named them
	}
	return dirs, nil
}

type addResultJSON struct {
	Dir       string           `json:"dir"`
	Name      string           `json:"name,omitempty"`
	Version   int              `json:"version,omitempty"`
	Commit    string           `json:"commit,omitempty"`
	Unchanged bool             `json:"unchanged"`
	Risk      string           `json:"risk,omitempty"`
	Findings  []safety.Finding `json:"findings,omitempty"`
	Error     string           `json:"error,omitempty"`
	// DuplicateOf is the folder recorded instead of this identical copy.
	DuplicateOf string `json:"duplicate_of,omitempty"`
	// Warnings are the validation policy's warnings; they do not refuse.
	Warnings []discover.Diagnostic `json:"warnings,omitempty"`
}

func printAddResults(c *cli.Context, results []store.AddResult) error {
	e := getEnv(c)
	if c.Bool("json") {
		out := []addResultJSON{}
		for _, r := range results {
			j := addResultJSON{Dir: r.Dir, Name: r.Name, Unchanged: r.Unchanged, DuplicateOf: r.DuplicateOf, Warnings: warningsOf(r.Diagnostics)}
			switch {
			case r.Err != nil:
				j.Error = problem.Expand(r.Err)
			case r.DuplicateOf != "":
			default:
				j.Version, j.Commit, j.Risk, j.Findings = r.Version.Number, r.Version.Commit.String(), r.Version.Risk.String(), r.Safety.Findings
			}
			out = append(out, j)
		}
		return cliout.JSON(e.stdout, out)
	}
	for _, r := range results {
		for _, d := range r.Diagnostics {
			cliout.Printf(e.stderr, "skillstore: %s\n", d)
		}
		printAddResult(e.stdout, e.stderr, r, c.Bool("dry-run"))
	}
	noteDryRun(c)
	return nil
}

func printAddResult(stdout, stderr io.Writer, r store.AddResult, dryRun bool) {
	switch {
	case r.Err != nil:
		// Quoted piece by piece: the newlines between problems are ours.
		cliout.Printf(stderr, "skillstore: error: %s\n", cliout.Quoted(strings.Join(problem.ExpandLines(r.Err, cliout.Quote), "\n")))
	case r.DuplicateOf != "":
		cliout.Printf(stderr, "skillstore: warning: %s holds the same files as %s; %s is taken once, from %s\n",
			displayPath(r.Dir), displayPath(r.DuplicateOf), r.Name, displayPath(r.DuplicateOf))
	case r.Unchanged:
		cliout.Printf(stdout, "%s: nothing new (same files as v%d)\n", r.Name, r.Version.Number)
	default:
		verb := "recorded"
		if dryRun {
			verb = "would be recorded"
		}
		cliout.Printf(stdout, "%s %s (commit %s, risk %s)\n", r.Version.Name(), verb, shortHash(r.Version.Commit), r.Version.Risk)
		for _, f := range r.Safety.Findings {
			cliout.Printf(stdout, "  %s\n", f)
		}
	}
}
