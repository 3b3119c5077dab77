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
	"time"

	"github.com/skillstore/skillstore/reload/target"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
)

const watchUsage = "[TARGET|DIR...] [--debounce 200ms] [--poll] [--events FILE] [--max-events N] [--pid-file FILE] [--exec CMD ARG...]"

func watchCommand() *cli.Command {
	return &cli.Command{
		Name:      "watch",
		Category:  "targets",
		Usage:     "watch skill folders and run a command when a skill changes",
		ArgsUsage: watchUsage,
		Description: "Watches skill folders: the targets named (all targets when none is given) or\n" +
			"folders (a folder of skill folders, or one skill folder). Each change to a\n" +
			"skill is debounced until the skill is quiet for --debounce, classified hot\n" +
			"(only SKILL.md text changed) or cold (anything else), and reported once:\n" +
			"a line on stdout and, with --events FILE ('-' for stdout), one JSON line with\n" +
			"time, id, skill, dir, class, paths, old_tree, new_tree, outcome and error.\n\n" +
			"--exec runs CMD with ARGs (directly, never through a shell; it must come last,\n" +
			"everything after it is the command) once per change, with these variables set:\n" +
			"  SKILLSTORE_SKILL      the skill's folder name\n" +
			"  SKILLSTORE_SKILL_DIR  the skill folder\n" +
			"  SKILLSTORE_CLASS      hot or cold\n" +
			"  SKILLSTORE_CHANGED    the changed paths, one per line\n" +
			"  SKILLSTORE_OLD_TREE, SKILLSTORE_NEW_TREE  git tree ids (empty when absent)\n" +
			"  SKILLSTORE_EVENT_ID   the event's id\n" +
			"A command that fails makes the event a failure; watching goes on.\n\n" +
			"Watching uses inotify on folders and falls back to stat polling (--poll, or by\n" +
			"itself when inotify is unavailable or its limits are reached). Editors' swap,\n" +
			"backup and temporary files are ignored. It stops on SIGINT or SIGTERM, or\n" +
			"after --max-events events. --pid-file FILE is written once watching has begun.\n\n" +
			"Flags:\n" +
			"  --debounce DURATION  quiet time before a change settles (default 200ms)\n" +
			"  --poll               poll with stat instead of inotify\n" +
			"  --events FILE        append JSON audit events to FILE ('-' for stdout)\n" +
			"  --max-events N       stop after N events\n" +
			"  --pid-file FILE      write the process id to FILE when watching has begun\n" +
			"  --exec CMD ARG...    run CMD ARG... for every change\n\n" +
			"Exit codes: 0 stopped (signal or --max-events), 1 cannot watch, 2 usage error.",
		SkipFlagParsing: true,
		Action:          runWatch,
	}
}

// watchFlags are watch's options, parsed by hand so that everything after
// --exec is the command line.
type watchFlags struct {
	args      []string
	debounce  time.Duration
	poll      bool
	events    string
	maxEvents int
	pidFile   string
	exec      []string
	help      bool
}

func parseWatchFlags(args []string) (watchFlags, error) {
	f := watchFlags{debounce: reload.DefaultDebounce}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			f.args = append(f.args, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			f.args = append(f.args, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		value := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("flag needs an argument: -%s", name)
			}
			i++
			return args[i], nil
		}
		var err error
		switch name {
		case "h", "help":
			f.help = true
		case "poll":
			f.poll = true
		case "exec":
			if hasVal {
				return f, errors.New("write --exec CMD ARG..., not --exec=CMD")
			}
			f.exec = args[i+1:]
			if len(f.exec) == 0 {
				return f, errors.New("--exec needs a command")
			}
			return f, nil
		case "debounce":
			var s string
			if s, err = value(); err == nil {
				f.debounce, err = time.ParseDuration(s)
				if err == nil && f.debounce <= 0 {
					err = errors.New("must be positive")
				}
			}
		case "events":
			f.events, err = value()
		case "pid-file":
			f.pidFile, err = value()
		case "max-events":
			var s string
			if s, err = value(); err == nil {
				f.maxEvents, err = strconv.Atoi(s)
				if err == nil && f.maxEvents < 1 {
					err = errors.New("must be at least 1")
				}
			}
		default:
			return f, fmt.Errorf("flag provided but not defined: -%s", name)
		}
		if err != nil {
			return f, fmt.Errorf("invalid value for --%s: %w", name, err)
		}
	}
	return f, nil
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
	roots, err := watchRoots(c, f.args)
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
		log, out = reload.NewEventLog(e.stdout), io.Discard
	default:
		file, err := os.OpenFile(f.events, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("open events file: %w", err)
		}
		defer file.Close()
		log = reload.NewEventLog(file)
	}
	count := 0
	opts := reload.WatchOptions{
		Debounce: f.debounce,
		Poll:     f.poll,
		Logger:   e.log,
		OnEvent: func(ev reload.Event) {
			if log != nil {
				if err := log.Write(ev); err != nil {
					e.log.Warn("cannot write event", "err", err)
				}
			}
			fmt.Fprintln(out, eventLine(ev))
			count++
			if f.maxEvents > 0 && count >= f.maxEvents {
				cancel()
			}
		},
	}
	if len(f.exec) > 0 {
		childOut := e.stdout
		if f.events == "-" {
			childOut = e.stderr
		}
		opts.OnReload = execHook(f.exec, childOut, e.stderr)
	}
	w, err := reload.NewWatcher(roots, opts)
	if err != nil {
		return err
	}
	mode := "inotify"
	if w.Polling() {
		mode = "polling"
	}
	fmt.Fprintf(e.stderr, "skillstore: watching %s (%s, debounce %s)\n", strings.Join(roots, ", "), mode, f.debounce)
	if f.pidFile != "" {
		if err := atomicfile.WriteFile(f.pidFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
			return fmt.Errorf("write pid file: %w", err)
		}
		defer os.Remove(f.pidFile)
	}
	return w.Run(ctx)
}

// watchRoots resolves watch's arguments: a target name or a folder. With no
// arguments, every target.
func watchRoots(c *cli.Context, args []string) ([]string, error) {
	var s *store.Store
	openStore := func() (*store.Store, error) {
		if s != nil {
			return s, nil
		}
		var err error
		s, err = openStore(c)
		return s, err
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
		var dirs []string
		for _, t := range targets {
			dir, err := targetWatchDir(t)
			if err != nil {
				return nil, err
			}
			dirs = append(dirs, dir)
		}
		return dirs, nil
	}
	var dirs []string
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
				dir, err := targetWatchDir(targets[0])
				if err != nil {
					return nil, err
				}
				dirs = append(dirs, dir)
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
		dirs = append(dirs, a)
	}
	return dirs, nil
}

// targetWatchDir is a target's folder, which must exist to be watched.
func targetWatchDir(t target.Target) (string, error) {
	if _, err := os.Stat(t.Dir); err != nil {
		return "", withHint(fmt.Errorf("cannot watch target %s: %w", t.Name, err), "run 'skillstore export "+t.Name+"' to create it")
	}
	return t.Dir, nil
}

// eventLine is the human line printed for an event.
func eventLine(ev reload.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", ev.Skill, ev.Class)
	if ev.Class == "" {
		b.WriteString("unreadable")
	}
	if len(ev.Paths) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(ev.Paths, ", "))
	}
	fmt.Fprintf(&b, ": %s", ev.Outcome)
	if ev.Error != "" {
		fmt.Fprintf(&b, ": %s", ev.Error)
	}
	return b.String()
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
			"SKILLSTORE_CLASS="+string(ev.Class),
			"SKILLSTORE_CHANGED="+strings.Join(ev.Paths, "\n"),
			"SKILLSTORE_OLD_TREE="+ev.OldTree.String(),
			"SKILLSTORE_NEW_TREE="+ev.NewTree.String(),
			"SKILLSTORE_EVENT_ID="+ev.ID,
			"SKILLSTORE_EVENT="+string(data),
		)
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %w", argv[0], err)
		}
		return nil
	}
}
