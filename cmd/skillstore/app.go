package main

import (
	"io"
	"log/slog"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
)

// env is what every command needs from the process: its streams and logger.
// It is built once per run and reached from a command with getEnv.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	log    *slog.Logger
	// syncDone, when set, is given every run of sync's pipeline (sync,
	// check, plugin resume) once it is complete: a test seam, for the
	// scenario harness that checks that check says what sync then does.
	syncDone func(*app.SyncRun)
}

// commandMakers lists every command by name, in the order of the help's
// categories. Each group is defined in its own file, cmd_GROUP.go; this
// list is the one place that says which exist. whole marks the commands
// that read the others (help, completion's words): a run of one of them
// builds every command.
func commandMakers() []commandMaker {
	return []commandMaker{
		// store
		{name: "init", make: initCommand},
		{name: "add", make: addCommand}, {name: "import", make: importCommand}, {name: "adopt", make: adoptCommand},
		{name: "list", make: listCommand}, {name: "search", make: searchCommand},
		{name: "show", make: showCommand}, {name: "log", make: logCommand}, {name: "cat", make: catCommand},
		{name: "diff", make: diffCommand}, {name: "checkout", make: checkoutCommand},
		{name: "rollback", make: rollbackCommand},
		{name: "disable", make: func() *cli.Command { return statusChangeCommand("disable", store.StatusDisabled) }},
		{name: "enable", make: func() *cli.Command { return statusChangeCommand("enable", store.StatusActive) }},
		{name: "rm", make: rmCommand},
		{name: "verify", make: verifyCommand}, {name: "gc", make: gcCommand}, {name: "audit", make: auditCommand},
		// plugins
		{name: "plugin", make: pluginCommand}, {name: "find", make: findIndexCommand}, {name: "sync", make: syncCommand},
		{name: "check", make: checkCommand}, {name: "candidates", make: candidatesCommand}, {name: "ui", make: uiCommand},
		// targets
		{name: "target", make: targetCommand}, {name: "tag", make: tagCommand}, {name: "export", make: exportCommand},
		{name: "status", make: statusCommand}, {name: "capture", make: captureCommand}, {name: "watch", make: watchCommand},
		{name: "mcp", make: mcpCommand},
		{name: "lock", make: lockCommand}, {name: "install", make: installCommand},
		// remotes
		{name: "remote", make: remoteCommand}, {name: "clone", make: cloneCommand}, {name: "push", make: pushCommand},
		{name: "pull", make: pullCommand},
		// skills on disk
		{name: "validate", make: validateCommand}, {name: "discover", make: discoverCommand}, {name: "doctor", make: doctorCommand},
		{name: "prompt", make: promptCommand}, {name: "new", make: newCommand},
		// tools
		{name: "merge-file", make: mergeFileCommand}, {name: "completion", make: completionCommand},
		{name: "help", make: helpCommand, whole: true}, {name: "__complete", make: completeCommand, whole: true},
	}
}

// commandMaker builds the top-level command called name (TestCommandMakers
// checks that the name is the command's).
type commandMaker struct {
	name  string
	make  func() *cli.Command
	whole bool
}

// commands builds every command.
func commands() []*cli.Command {
	makers := commandMakers()
	cmds := make([]*cli.Command, len(makers))
	for i, m := range makers {
		cmds[i] = m.make()
	}
	return cmds
}

// commandsFor builds the commands a run of args needs. A run that names a
// command (after global flags it knows) needs that command alone: building
// the tree of every command, their help texts and flags, was a tenth of the
// start-up of each. --version alone needs none. Anything else (no command,
// an unknown one, help, completion's words, a flag the app does not know)
// builds every command, for the help, the suggestions and the hints.
func commandsFor(app *cli.App, args []string) []*cli.Command {
	version, help := false, false
	i := 1
	for ; i < len(args) && isFlagToken(args[i]); i++ {
		name, _, _ := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		switch {
		case name == "version" || name == "v":
			version = true
		case name == "help" || name == "h":
			help = true
		case !hasFlag(app.Flags, name):
			return commands()
		case takesValue(app.Flags, args[i]):
			i++
		}
	}
	if i >= len(args) {
		if version && !help {
			return nil
		}
		return commands()
	}
	for _, m := range commandMakers() {
		if m.name == args[i] && !m.whole {
			return []*cli.Command{m.make()}
		}
	}
	return commands()
}

func hasFlag(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return true
		}
	}
	return false
}

// run executes the CLI and returns the process exit code. Streams are
// injected so the testscript harness and tests never touch os.Std*.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runEnv(args, &env{stdin: stdin, stdout: stdout, stderr: stderr})
}

// runEnv is run with the process's streams (and test seams) in e.
func runEnv(args []string, e *env) int {
	ctx, stop, signalled := signalContext(e.stderr)
	defer stop()
	// The width until the flags are read (the app's own --help and flag
	// errors come first): the variable's, else the default.
	width := cliout.ReportWidth
	if n, err := strconv.Atoi(os.Getenv("SKILLSTORE_WIDTH")); err == nil && n >= 0 {
		width = n
	}
	out, errOut := cliout.NewWriter(e.stdout), cliout.NewReportWriter(e.stderr, width)
	out.SetWidth(width)
	defer out.Flush()
	defer errOut.Flush()
	e.stdout, e.stderr, e.log = out, errOut, slog.New(slog.DiscardHandler)
	cliApp := newApp(e, args)
	err := cliApp.RunContext(ctx, permuteArgs(cliApp, args))
	if sig := signalled(); sig != nil && err != nil {
		// The cancelled step's own error ("context canceled", a pack cut
		// short) is a consequence: the cause is the signal.
		return interrupted(errOut, sig)
	}
	return report(errOut, err)
}

// newApp is the app with the commands a run of args needs (commandsFor);
// nil args: every command.
func newApp(e *env, args []string) *cli.App {
	useVersionPrinter()
	useHelpPrinter()
	cliApp := &cli.App{
		Name:    "skillstore",
		Usage:   "a git-backed, versioned store for agent skills",
		Version: buildVersion(),
		// Set so that urfave/cli does not stat the executable on every run
		// for a build time no help text shows.
		Compiled: time.Unix(0, 0),
		Description: "skillstore keeps every version of every agent skill (a folder with a SKILL.md)\n" +
			"as a commit in a git repository, vendors upstream plugins, merges their updates\n" +
			"with local edits, and exports the published skills into agents' folders.",
		Reader:          e.stdin,
		Writer:          e.stdout,
		ErrWriter:       e.stderr,
		Suggest:         true,
		HideHelpCommand: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "store", Usage: "store directory", EnvVars: []string{"SKILLSTORE_DIR"}, DefaultText: "$XDG_DATA_HOME/skillstore"},
			&cli.DurationFlag{Name: "lock-timeout", Usage: "how long to wait for the store lock", Value: 30 * time.Second, EnvVars: []string{"SKILLSTORE_LOCK_TIMEOUT"}},
			&cli.DurationFlag{Name: "fetch-timeout", Usage: "connect and idle deadline of each git fetch (sync, plugin add, pull, clone): a server silent that long fails its plugin (or the pull), the others sync", Value: store.DefaultFetchTimeout, EnvVars: []string{"SKILLSTORE_FETCH_TIMEOUT"}},
			&cli.IntFlag{Name: "fetch-jobs", Usage: "git sources fetched at once (sync, plugin add); 0: 8 per ssh host, 24 per git:// host, 4 local, 64 in all", EnvVars: []string{"SKILLSTORE_FETCH_JOBS"}},
			&cli.BoolFlag{Name: "debug", Usage: "log debug information to stderr"},
			&cli.IntFlag{Name: "width", Usage: "wrap messages for people (warnings, errors, hints, findings) at this many characters (by default also at a narrower terminal's width); 0 keeps each on one line, for logs and scripts that read a line at a time", Value: cliout.ReportWidth, EnvVars: []string{"SKILLSTORE_WIDTH"}},
			// urfave adds --help only when it adds its own help command;
			// skillstore has its own (help.go).
			cli.HelpFlag,
		},
		Metadata: map[string]any{"env": e},
		Before: func(c *cli.Context) error {
			// The width first: the errors below wrap at it.
			if c.Int("width") < 0 {
				return app.UsageErrorf("--width %d is negative: give the longest line of a message, or 0 to keep each on one line", c.Int("width"))
			}
			width := c.Int("width")
			if tw, ok := cliout.TermWidth(e.stderr); ok && !c.IsSet("width") && cliout.IsTerminal(e.stderr) {
				width = min(width, max(tw, 40)) // a narrower terminal's own width
			}
			for _, w := range []io.Writer{e.stdout, e.stderr} {
				if cw, ok := w.(*cliout.Writer); ok {
					cw.SetWidth(width)
				}
			}
			if c.IsSet("store") && c.String("store") == "" {
				return app.UsageErrorf("--store is empty: give the store directory, or leave the flag out for the default")
			}
			if c.Duration("lock-timeout") < 0 {
				return app.UsageErrorf("--lock-timeout %s is negative: give how long to wait for the store lock, e.g. 30s", c.Duration("lock-timeout"))
			}
			if c.Duration("fetch-timeout") <= 0 {
				return app.UsageErrorf("--fetch-timeout %s is not positive: give how long a git server may stay silent, e.g. 30s", c.Duration("fetch-timeout"))
			}
			if c.Int("fetch-jobs") < 0 {
				return app.UsageErrorf("--fetch-jobs %d is negative: give how many git sources to fetch at once, or 0 for the defaults", c.Int("fetch-jobs"))
			}
			if c.Bool("debug") {
				e.log = slog.New(slog.NewTextHandler(cliout.Raw(e.stderr), &slog.HandlerOptions{Level: slog.LevelDebug})) // a record per line, whole
			}
			return nil
		},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return unknownCommandError("skillstore", c.Args().First(), c.App.Commands)
			}
			return cli.ShowAppHelp(c)
		},
		ExitErrHandler: func(*cli.Context, error) {}, // run reports errors and picks the exit code
	}
	if args == nil {
		cliApp.Commands = commands()
	} else {
		cliApp.Commands = commandsFor(cliApp, args)
	}
	sort.SliceStable(cliApp.Commands, func(i, j int) bool {
		if cliApp.Commands[i].Category != cliApp.Commands[j].Category {
			return cliApp.Commands[i].Category < cliApp.Commands[j].Category
		}
		return cliApp.Commands[i].Name < cliApp.Commands[j].Name
	})
	cliApp.OnUsageError = onUsageError
	setUsageErrors(cliApp.Commands)
	guardSubcommands(cliApp.Commands, "skillstore")
	return cliApp
}

// onUsageError turns flag parsing errors into usage errors (exit 2) instead of
// urfave's default of printing the whole help text. The hint names the
// command whose flag was wrong, and the flag it may have meant.
func onUsageError(c *cli.Context, err error, _ bool) error {
	return app.WithHint(app.UsageErrorf("%v", err), flagHints(c, err)...)
}

func setUsageErrors(cmds []*cli.Command) {
	for _, cmd := range cmds {
		if cmd.OnUsageError == nil {
			cmd.OnUsageError = onUsageError
		}
		setUsageErrors(cmd.Subcommands)
	}
}

// getEnv returns the process environment of the running command.
func getEnv(c *cli.Context) *env {
	return c.App.Metadata["env"].(*env)
}

// global is what every workflow takes from the process and the global
// flags, read once.
func global(c *cli.Context) app.Global {
	e := getEnv(c)
	return app.Global{
		Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr, Log: e.log,
		Store:        c.String("store"),
		LockTimeout:  c.Duration("lock-timeout"),
		FetchTimeout: c.Duration("fetch-timeout"),
		FetchJobs:    c.Int("fetch-jobs"),
		PrintError:   func(err error) { report(e.stderr, err) },
		SyncDone:     e.syncDone,
	}
}

// permuteArgs moves the flags that follow a command's arguments in front of
// them, so "skillstore add DIR --reason TEXT" means what it says: urfave/cli
// v2 stops reading flags at the first argument. It uses the command's own
// flag definitions to know which flags take a value; everything after "--"
// stays an argument, and commands that parse their own argv
// (SkipFlagParsing) are left alone.
func permuteArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	i := 1
	// Global flags before the command.
	for i < len(args) && isFlagToken(args[i]) {
		out = append(out, args[i])
		if takesValue(app.Flags, args[i]) && i+1 < len(args) {
			i++
			out = append(out, args[i])
		}
		i++
	}
	// The command path: a command, then subcommands while names match.
	cmds := app.Commands
	var cmd *cli.Command
	for i < len(args) {
		next := findCommand(cmds, args[i])
		if next == nil {
			break
		}
		cmd, cmds = next, next.Subcommands
		out = append(out, args[i])
		i++
	}
	if cmd == nil || cmd.SkipFlagParsing {
		return append(out, args[i:]...)
	}
	var flags, positional []string
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i:]...)
			break
		}
		if !isFlagToken(a) {
			positional = append(positional, a)
			continue
		}
		if a == "--help" || a == "-h" {
			// urfave reads "--help ARG" as help on a topic named ARG.
			return append(out, "--help")
		}
		flags = append(flags, a)
		if takesValue(cmd.Flags, a) && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	out = append(out, flags...)
	return append(out, positional...)
}

func isFlagToken(a string) bool { return len(a) > 1 && a[0] == '-' && a != "--" }

// takesValue reports whether the flag token names a flag of flags that reads
// its value from the next argument (not a bool flag, no "=value" attached).
func takesValue(flags []cli.Flag, token string) bool {
	name, _, hasValue := strings.Cut(strings.TrimLeft(token, "-"), "=")
	if hasValue {
		return false
	}
	for _, f := range flags {
		if !slices.Contains(f.Names(), name) {
			continue
		}
		if _, isBool := f.(*cli.BoolFlag); isBool {
			return false
		}
		return true
	}
	return false
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}
