package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
)

const watchUsage = "[TARGET|DIR...] [--skill NAME]... [--debounce 200ms] [--max-wait 2s] [--poll] [--events FILE] [--no-audit] [--max-events N] [--pid-file FILE] [--exec CMD ARG...]"

// auditFileName is the default audit trail, in the store's own folder.
const auditFileName = "audit.jsonl"

func watchCommand() *cli.Command {
	return &cli.Command{
		Name:      "watch",
		Category:  "targets",
		Usage:     "watch skill folders and run a command when a skill changes",
		ArgsUsage: watchUsage,
		Description: "Watches skill folders: the targets named (all targets when none is given) or\n" +
			"folders (a folder of skill folders, or one skill folder). In a target only the\n" +
			"skills its --skills patterns want and that export wrote there are watched\n" +
			"(give the folder's path instead of the target's name to watch every folder in\n" +
			"it); --skill NAME (repeatable, globs) narrows any watch to those skills.\n\n" +
			"Each change to a skill is debounced until the skill is quiet for --debounce,\n" +
			"or --max-wait after the change began if the folder keeps changing, classified\n" +
			"hot (only SKILL.md text changed) or cold (anything else), and checked: its\n" +
			"SKILL.md must load (validate's lenient rules). A skill that does not load is a\n" +
			"failure with its diagnostics and runs no command; its next change is classified\n" +
			"against the version that last loaded. Each change is reported once: a line on\n" +
			"stdout (SKILL ACTION CLASS (PATHS): OUTCOME, ACTION added, updated or removed)\n" +
			"and one JSON line with time, id, type (reload), skill, action, dir, class,\n" +
			"paths, files (the paths named with the skill), old_tree, new_tree, outcome,\n" +
			"error and diagnostics, appended to --events FILE ('-' for stdout) and to the\n" +
			"store's audit file, STORE/skillstore/audit.jsonl (when a store exists, unless\n" +
			"--no-audit; rotated to audit.jsonl.1 at 1 MiB, two files kept; if it cannot be\n" +
			"written watch says so once on stderr and goes on).\n\n" +
			"--exec runs CMD with ARGs (directly, never through a shell; it must come last,\n" +
			"everything after it is the command) once per change of a skill that loads, and\n" +
			"once per removed skill (so an agent can unload it), with these variables set:\n" +
			"  SKILLSTORE_SKILL      the skill's folder name\n" +
			"  SKILLSTORE_SKILL_DIR  the skill folder\n" +
			"  SKILLSTORE_ACTION     added, updated or removed\n" +
			"  SKILLSTORE_CLASS      hot or cold (a removal is cold)\n" +
			"  SKILLSTORE_CHANGED    the changed paths, one per line; a path holding a\n" +
			"                        control character (a newline, a tab), a double quote\n" +
			"                        or a backslash is cliout.Quoted as git quotes it (\"a\\nb\"),\n" +
			"                        so each line is one path\n" +
			"  SKILLSTORE_CHANGED_JSON  the changed paths exactly, as a JSON array of strings\n" +
			"  SKILLSTORE_OLD_TREE, SKILLSTORE_NEW_TREE  git tree ids (empty when absent)\n" +
			"  SKILLSTORE_EVENT_ID   the event's id\n" +
			"  SKILLSTORE_EVENT      the event as its JSON line\n" +
			"A command that fails makes the event a failure; watching goes on.\n\n" +
			"Watching uses inotify on folders and falls back to stat polling (--poll, or by\n" +
			"itself when inotify is unavailable or its limits are reached). Editors' swap,\n" +
			"backup and temporary files are ignored. It stops on SIGINT or SIGTERM, or\n" +
			"after --max-events events. --pid-file FILE is written once watching has begun.\n\n" +
			"Flags:\n" +
			"  --skill NAME         watch only skills whose folder name matches the glob\n" +
			"                       NAME (repeatable)\n" +
			"  --debounce DURATION  quiet time before a change settles (default 200ms)\n" +
			"  --max-wait DURATION  report a change at most this long after it began, even\n" +
			"                       if the folder is still changing (default 2s, or the\n" +
			"                       debounce if longer)\n" +
			"  --poll               poll with stat instead of inotify\n" +
			"  --events FILE        append JSON audit events to FILE ('-' for stdout)\n" +
			"  --no-audit           do not append events to the store's audit file\n" +
			"  --max-events N       stop after N events\n" +
			"  --pid-file FILE      write the process id to FILE when watching has begun\n" +
			"  --exec CMD ARG...    run CMD ARG... for every change\n\n" +
			"Exit codes: 0 stopped (signal or --max-events), 1 cannot watch, 2 usage error.",
		SkipFlagParsing: true,
		Action:          runWatch,
	}
}

func runWatch(c *cli.Context) error {
	f, err := parseWatchFlags(c.Args().Slice())
	if err != nil {
		return withHint(usageErrorf("%v", err), "run 'skillstore watch --help' for usage")
	}
	if f.help {
		return cli.ShowCommandHelp(c.Lineage()[1], "watch")
	}
	e := getEnv(c)
	roots, err := watchRoots(c, f.args, skillFilter(f.skills))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(c.Context)
	defer cancel()

	out := e.stdout
	var log *reload.EventLog
	switch f.events {
	case "":
	case "-":
		log, out = reload.NewEventLog(cliout.Raw(e.stdout)), io.Discard
	default:
		file, err := os.OpenFile(f.events, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("open events file: %w", err)
		}
		defer file.Close()
		log = reload.NewEventLog(file)
	}
	var audit *reload.AuditFile
	if !f.noAudit {
		audit = defaultAuditFile(c)
	}
	auditFailed := false
	count := 0
	opts := reload.WatchOptions{
		Debounce: f.debounce,
		MaxWait:  f.maxWait,
		Poll:     f.poll,
		Logger:   e.log,
		OnEvent: func(ev reload.Event) {
			if log != nil {
				if err := log.Write(ev); err != nil {
					e.log.Warn("cannot write event", "err", err)
				}
			}
			if audit != nil && !auditFailed {
				if err := audit.Write(ev); err != nil {
					// Auditing must never stop the reloads: say so once.
					auditFailed = true
					cliout.Printf(e.stderr, "skillstore: warning: cannot write the audit file %s, events are no longer audited there: %v\n", audit.Path(), err)
				}
			}
			cliout.Println(out, eventLine(ev))
			count++
			if f.maxEvents > 0 && count >= f.maxEvents {
				cancel()
			}
		},
	}
	if len(f.exec) > 0 {
		childOut := cliout.Raw(e.stdout)
		if f.events == "-" {
			childOut = cliout.Raw(e.stderr)
		}
		opts.OnReload = execHook(f.exec, childOut, e.stderr)
	}
	w, err := reload.NewRootsWatcher(roots, opts)
	if err != nil {
		return err
	}
	mode := "inotify"
	if w.Polling() {
		mode = "polling"
	}
	maxWait := f.maxWait
	if maxWait == 0 {
		maxWait = max(reload.DefaultMaxWait, f.debounce)
	}
	dirs := make([]string, len(roots))
	for i, r := range roots {
		dirs[i] = r.Dir
	}
	cliout.Printf(e.stderr, "skillstore: watching %s (%s, debounce %s, max-wait %s)\n", strings.Join(dirs, ", "), mode, f.debounce, maxWait)
	if audit != nil {
		cliout.Printf(e.stderr, "skillstore: auditing to %s\n", audit.Path())
	}
	if f.pidFile != "" {
		if err := atomicfile.WriteFile(f.pidFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
			return fmt.Errorf("write pid file: %w", err)
		}
		defer os.Remove(f.pidFile)
	}
	return w.Run(ctx)
}

// defaultAuditFile is the store's audit file, or nil when there is no
// store (watching plain folders needs none).
func defaultAuditFile(c *cli.Context) *reload.AuditFile {
	dir, err := storeDir(c)
	if err != nil {
		return nil
	}
	s, err := store.Open(c.Context, dir, store.Options{})
	if err != nil {
		return nil
	}
	return reload.NewAuditFile(s.LocalPath(auditFileName), reload.DefaultAuditMaxSize)
}

// watchRoots resolves watch's arguments: a target name or a folder. With no
// arguments, every target. A target is watched with its patterns and only
// for the folders export wrote; a folder is watched whole. want (the
// --skill patterns) narrows every root.
func watchRoots(c *cli.Context, args []string, want func(string) bool) ([]reload.Root, error) {
	var s *store.Store
	openStore := func() (*store.Store, error) {
		if s != nil {
			return s, nil
		}
		var err error
		s, err = openStore(c)
		return s, err
	}
	targetRoot := func(t target.Target) (reload.Root, error) {
		dir, err := targetWatchDir(t)
		return reload.Root{Dir: dir, Want: both(t.WantsFolder(), want), Exported: true}, err
	}
	if len(args) == 0 {
		st, err := openStore()
		if err != nil {
			return nil, err
		}
		targets, err := readTargets(c, st, nil)
		if err != nil {
			return nil, err
		}
		if len(targets) == 0 {
			return nil, withHint(errors.New("nothing to watch: no targets"), "name a folder, or add a target with 'skillstore target add NAME DIR'")
		}
		var roots []reload.Root
		for _, t := range targets {
			if t.IsMarketplace() {
				continue // see targetWatchDir
			}
			r, err := targetRoot(t)
			if err != nil {
				return nil, err
			}
			roots = append(roots, r)
		}
		return roots, nil
	}
	var roots []reload.Root
	for _, a := range args {
		if target.CheckName(a) == nil && !strings.ContainsRune(a, os.PathSeparator) {
			if _, err := os.Stat(a); err != nil {
				st, err := openStore()
				if err != nil {
					return nil, err
				}
				targets, err := readTargets(c, st, []string{a})
				if err != nil {
					return nil, err
				}
				r, err := targetRoot(targets[0])
				if err != nil {
					return nil, err
				}
				roots = append(roots, r)
				continue
			}
		}
		info, err := os.Stat(a)
		if err != nil {
			return nil, withHint(fmt.Errorf("cannot watch %s: %w", a, err), "give a target name or an existing folder")
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("cannot watch %s: not a folder", a)
		}
		roots = append(roots, reload.Root{Dir: a, Want: want})
	}
	return roots, nil
}

// targetWatchDir is a target's folder, which must exist to be watched.
func targetWatchDir(t target.Target) (string, error) {
	if t.IsMarketplace() {
		return "", withHint(fmt.Errorf("cannot watch target %s: the agent reads a marketplace's plugins from its own plugin cache, not from %s", t.Name, t.Dir),
			"after 'skillstore export "+t.Name+"', run 'claude plugin marketplace update "+t.MarketplaceName()+"' and 'claude plugin update PLUGIN@"+t.MarketplaceName()+"'")
	}
	if _, err := os.Stat(t.Dir); err != nil {
		return "", withHint(fmt.Errorf("cannot watch target %s: %w", t.Name, err), "run 'skillstore export "+t.Name+"' to create it")
	}
	return t.Dir, nil
}

// eventLine is the human line printed for an event: one line, the skill's
// folder name, each path and the error cliout.Quoted apart (quoteText).
func eventLine(ev reload.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s", cliout.Quote(ev.Skill), ev.Action, ev.Class)
	if ev.Class == "" {
		b.WriteString("unreadable")
	}
	if len(ev.Paths) > 0 {
		paths := make([]string, len(ev.Paths))
		for i, p := range ev.Paths {
			paths[i] = cliout.Quote(p)
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(paths, ", "))
	}
	fmt.Fprintf(&b, ": %s", ev.Outcome)
	if ev.Error != "" {
		fmt.Fprintf(&b, ": %s", cliout.Quote(ev.Error))
	}
	return b.String()
}

// changedEnv is SKILLSTORE_CHANGED and SKILLSTORE_CHANGED_JSON for paths:
// one path per line, each cliout.Quoted as git quotes a path when it must be (a
// name holding a newline is one line, never two), and the exact paths as
// a JSON array.
func changedEnv(paths []string) []string {
	lines := make([]string, len(paths))
	for i, p := range paths {
		lines[i] = skillfs.QuotePath(p)
	}
	exact, _ := json.Marshal(paths)
	if paths == nil {
		exact = []byte("[]")
	}
	return []string{"SKILLSTORE_CHANGED=" + strings.Join(lines, "\n"), "SKILLSTORE_CHANGED_JSON=" + string(exact)}
}

// execHook runs argv for every event, never through a shell, with the
// event in its environment.
func execHook(argv []string, stdout, stderr io.Writer) reload.ReloadFunc {
	return func(ctx context.Context, ev reload.Event) error {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Stdout, cmd.Stderr = stdout, stderr
		data, _ := json.Marshal(ev)
		cmd.Env = append(os.Environ(),
			"SKILLSTORE_SKILL="+ev.Skill,
			"SKILLSTORE_SKILL_DIR="+ev.Dir,
			"SKILLSTORE_ACTION="+string(ev.Action),
			"SKILLSTORE_CLASS="+string(ev.Class),
			"SKILLSTORE_OLD_TREE="+treeEnv(ev.OldTree),
			"SKILLSTORE_NEW_TREE="+treeEnv(ev.NewTree),
			"SKILLSTORE_EVENT_ID="+ev.ID,
			"SKILLSTORE_EVENT="+string(data),
		)
		cmd.Env = append(cmd.Env, changedEnv(ev.Paths)...)
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %w", argv[0], err)
		}
		return nil
	}
}

// treeEnv is a tree id for the command's environment: empty when absent.
func treeEnv(id skillfs.ID) string {
	if id.IsZero() {
		return ""
	}
	return id.String()
}
