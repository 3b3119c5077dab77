package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/merge"
)

// exitMergeError is merge-file's exit code when it cannot merge at all
// (missing or binary input), the code git merge-file uses.
const exitMergeError = 255

// maxConflictExit caps the conflict count used as exit code, as git does, so
// it never reaches the codes of a failure.
const maxConflictExit = 127

// labelList collects repeated -L values. urfave's StringSlice flag would
// split a label at commas; a label is taken verbatim, as git takes it.
type labelList []string

func (l *labelList) Set(v string) error { *l = append(*l, v); return nil }
func (l *labelList) String() string     { return strings.Join(*l, " ") }

func mergeFileCommand() *cli.Command {
	// The flag's value lives as long as the command: it is emptied after
	// each run so that runs in one process (tests) do not see each other's.
	labels := &labelList{}
	return &cli.Command{
		Name:      "merge-file",
		Category:  "merge",
		Usage:     "three-way merge of one file, like git merge-file (usable as a git merge driver)",
		ArgsUsage: "CURRENT BASE OTHER",
		Description: "Merges the changes that lead from BASE to OTHER into CURRENT, with the arguments,\n" +
			"defaults, output and exit code of git merge-file: the result overwrites CURRENT\n" +
			"(atomically, keeping its mode) unless -p prints it; conflicts are written with\n" +
			"<<<<<<< ======= >>>>>>> markers in the plain style unless --diff3 or --zdiff3.\n" +
			"\n" +
			"When the three versions start with a YAML frontmatter block (a SKILL.md), the\n" +
			"frontmatter is merged key by key and the body line by line, so an upstream change\n" +
			"to one key and a local change to another merge cleanly even on adjacent lines;\n" +
			"when a key conflicts, the whole file is merged line by line. --text turns this off.\n" +
			"\n" +
			"--skill-aware resolves some conflicts git leaves in Markdown (each one is printed to\n" +
			"stderr as 'skillstore: resolved FILE:LINE RULE', unless -q; review them):\n" +
			"  sections    both sides inserted at one point, one of them whole sections (from a\n" +
			"              heading on): the plain text first, then theirs' sections, then ours'\n" +
			"  insertions  both sides inserted lines at one point, deleting nothing: theirs', then ours'\n" +
			"  words       both changed the same or adjacent lines, in words apart: both applied\n" +
			"              (lines both inserted at one point in them are placed as above)\n" +
			"  lines       one side only added lines before or after what the other rewrote: kept there\n" +
			"An insertion that rewords a line of the other side's, or changes that touch word by\n" +
			"word, stay conflicts with git's markers; a merge git finds clean is git's, unchanged.\n" +
			"\n" +
			"As a git merge driver, in .git/config or ~/.gitconfig:\n" +
			"  [merge \"skill\"]\n" +
			"      name = skillstore SKILL.md merge\n" +
			"      driver = skillstore merge-file -L ours -L base -L theirs %A %O %B\n" +
			"and in .gitattributes:  SKILL.md merge=skill\n" +
			"For the rules above in every Markdown file: '*.md merge=skill' in .gitattributes and\n" +
			"      driver = skillstore merge-file --skill-aware --path %P -L ours -L base -L theirs %A %O %B\n" +
			"\n" +
			"Exit codes: 0 clean merge; 1-127 the number of conflicts (capped at 127, as git);\n" +
			"2 usage error; 255 the files could not be merged (missing, unreadable, binary).",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "stdout", Aliases: []string{"p"}, Usage: "print the result instead of overwriting CURRENT"},
			&cli.BoolFlag{Name: "diff3", Usage: "show the base's lines in conflicts"},
			&cli.BoolFlag{Name: "zdiff3", Usage: "like --diff3, with lines shared by both sides moved out of conflicts"},
			&cli.BoolFlag{Name: "ours", Usage: "resolve conflicts with CURRENT's side"},
			&cli.BoolFlag{Name: "theirs", Usage: "resolve conflicts with OTHER's side"},
			&cli.BoolFlag{Name: "union", Usage: "resolve conflicts with both sides' lines"},
			&cli.IntFlag{Name: "marker-size", Value: merge.DefaultMarkerSize, Usage: "length of the conflict markers"},
			&cli.GenericFlag{Name: "L", Value: labels, Usage: "label for CURRENT, then BASE, then OTHER (repeat; default: the file names)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing on stderr for --skill-aware resolutions (conflicts are never warned about)"},
			&cli.BoolFlag{Name: "text", Usage: "merge line by line even when the files have a frontmatter"},
			&cli.BoolFlag{Name: "skill-aware", Usage: "resolve Markdown conflicts by the sections, insertions and words rules (see above)"},
			&cli.StringFlag{Name: "path", Usage: "the file's name in --skill-aware messages (a merge driver passes %P; default CURRENT)"},
		},
		Action: func(c *cli.Context) error {
			defer func() { *labels = nil }()
			return mergeFile(c, *labels)
		},
		OnUsageError: func(c *cli.Context, err error, isSubcommand bool) error {
			*labels = nil
			return onUsageError(c, err, isSubcommand)
		},
	}
}

func mergeFile(c *cli.Context, labels []string) error {
	e := getEnv(c)
	// merge-file is a one-shot process (a git merge driver runs it once per
	// file): collecting garbage before the heap reaches the limit only costs
	// time. A 100,000-line merge needs about 30 MiB.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(256 << 20))
	opts, files, err := mergeFileOptions(c, labels)
	if err != nil {
		return app.WithHint(err, "run 'skillstore merge-file --help' for usage")
	}
	var data [3][]byte
	for i, name := range files {
		if data[i], err = os.ReadFile(name); err != nil {
			if pe := (*os.PathError)(nil); errors.As(err, &pe) {
				err = pe.Err
			}
			return withCode(exitMergeError, app.WithHint(fmt.Errorf("read %s: %w", name, err), "merge-file takes three existing files: CURRENT BASE OTHER"))
		}
	}
	mergeFn := merge.SkillMD
	switch {
	case c.Bool("text") && opts.SkillAware:
		mergeFn = merge.Markdown
	case c.Bool("text"):
		mergeFn = merge.Text
	}
	res, err := mergeFn(data[1], data[0], data[2], opts)
	var binErr *merge.BinaryError
	if errors.As(err, &binErr) {
		name := files[map[string]int{"ours": 0, "base": 1, "theirs": 2}[binErr.Version]]
		return withCode(exitMergeError, app.WithHint(fmt.Errorf("cannot merge binary file %s", name),
			"merge it by hand, or keep one side (git checkout --ours/--theirs)"))
	}
	if err != nil {
		return withCode(exitMergeError, err)
	}
	e.log.Debug("merge-file", "current", files[0], "conflicts", len(res.Conflicts), "frontmatter", res.Frontmatter, "resolutions", len(res.Resolutions))
	if !c.Bool("quiet") {
		name := files[0]
		if p := c.String("path"); p != "" {
			name = p
		}
		for _, r := range res.Resolutions {
			cliout.Printf(e.stderr, "skillstore: resolved %s:%s\n", name, r)
		}
	}
	if c.Bool("stdout") {
		if _, err := cliout.Raw(e.stdout).Write(res.Merged); err != nil {
			return withCode(exitMergeError, fmt.Errorf("write result: %w", err))
		}
	} else if err := overwrite(files[0], res.Merged); err != nil {
		return withCode(exitMergeError, err)
	}
	if n := len(res.Conflicts); n > 0 {
		return silentExit(min(n, maxConflictExit))
	}
	return nil
}

// mergeFileOptions checks the arguments and turns the flags into options.
func mergeFileOptions(c *cli.Context, labels []string) (merge.Options, []string, error) {
	opts := merge.Options{Style: merge.Plain, MarkerSize: c.Int("marker-size"), SkillAware: c.Bool("skill-aware")}
	if c.NArg() != 3 {
		return opts, nil, app.UsageErrorf("merge-file needs 3 files (CURRENT BASE OTHER), got %d", c.NArg())
	}
	files := c.Args().Slice()
	if c.Bool("diff3") && c.Bool("zdiff3") {
		return opts, nil, app.UsageErrorf("--diff3 and --zdiff3 cannot be used together")
	}
	switch {
	case c.Bool("diff3"):
		opts.Style = merge.Diff3
	case c.Bool("zdiff3"):
		opts.Style = merge.ZDiff3
	}
	favors := 0
	for flag, favor := range map[string]merge.Favor{"ours": merge.FavorOurs, "theirs": merge.FavorTheirs, "union": merge.FavorUnion} {
		if c.Bool(flag) {
			favors++
			opts.Favor = favor
		}
	}
	if favors > 1 {
		return opts, nil, app.UsageErrorf("--ours, --theirs and --union cannot be used together")
	}
	if opts.MarkerSize <= 0 {
		return opts, nil, app.UsageErrorf("--marker-size must be positive, got %d", opts.MarkerSize)
	}
	labels = slices.Clone(labels)
	if len(labels) > 3 {
		return opts, nil, app.UsageErrorf("too many labels: -L is given at most 3 times (CURRENT, BASE, OTHER)")
	}
	for len(labels) < 3 { // git labels the rest with their file names
		labels = append(labels, files[len(labels)])
	}
	opts.Labels = merge.Labels{Ours: labels[0], Base: labels[1], Theirs: labels[2]}
	return opts, files, nil
}

// overwrite replaces the file at name (following a symlink to the file it
// names) with data atomically, keeping its permissions.
func overwrite(name string, data []byte) error {
	target, err := filepath.EvalSymlinks(name)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	info, err := os.Stat(target)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return atomicfile.WriteFile(target, data, info.Mode().Perm())
}
