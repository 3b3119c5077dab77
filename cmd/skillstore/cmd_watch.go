package main

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/app/serve"
	"github.com/skillstore/skillstore/reload/watch"
)

// watch: its flags, read by hand (everything after --exec is the command
// to run), and serve.Watch.

const watchUsage = "[TARGET|DIR...] [--skill NAME]... [--debounce 200ms] [--max-wait 2s] [--poll] [--events FILE] [--no-audit] [--max-events N] [--pid-file FILE] [--exec CMD ARG...]"

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
			"                        or a backslash is quoted as git quotes it (\"a\\nb\"),\n" +
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
			"Exit codes: 0 stopped (signal or --max-events), 1 cannot watch, 2 usage error,\n" +
			"3 store lock busy (at start).",
		SkipFlagParsing: true,
		Action:          runWatch,
	}
}

func runWatch(c *cli.Context) error {
	f, help, err := parseWatchFlags(c.Args().Slice())
	if err != nil {
		return app.WithHint(app.UsageErrorf("%v", err), "run 'skillstore watch --help' for usage")
	}
	if help {
		return cli.ShowCommandHelp(c.Lineage()[1], "watch")
	}
	f.Global = global(c)
	return serve.Watch(c.Context, f)
}

// parseWatchFlags reads watch's arguments and flags into its options,
// by hand so that everything after --exec is the command line; help is
// set by --help.
func parseWatchFlags(args []string) (f serve.WatchOptions, help bool, err error) {
	f.Debounce = watch.DefaultDebounce
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			f.Args = append(f.Args, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			f.Args = append(f.Args, a)
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
		switch name {
		case "h", "help":
			help = true
		case "poll":
			f.Poll = true
		case "no-audit":
			f.NoAudit = true
		case "skill":
			var g string
			if g, err = value(); err == nil {
				if _, perr := path.Match(g, ""); perr != nil || g == "" {
					err = fmt.Errorf("bad pattern %q", g)
				}
				f.Skills = append(f.Skills, g)
			}
		case "exec":
			if hasVal {
				return f, false, errors.New("write --exec CMD ARG..., not --exec=CMD")
			}
			f.Exec = args[i+1:]
			if len(f.Exec) == 0 {
				return f, false, errors.New("--exec needs a command")
			}
			return f, help, nil
		case "debounce":
			var s string
			if s, err = value(); err == nil {
				f.Debounce, err = time.ParseDuration(s)
				if err == nil && f.Debounce <= 0 {
					err = errors.New("must be positive")
				}
			}
		case "max-wait":
			var s string
			if s, err = value(); err == nil {
				f.MaxWait, err = time.ParseDuration(s)
				if err == nil && f.MaxWait <= 0 {
					err = errors.New("must be positive")
				}
			}
		case "events":
			f.Events, err = value()
		case "pid-file":
			f.PidFile, err = value()
		case "max-events":
			var s string
			if s, err = value(); err == nil {
				f.MaxEvents, err = strconv.Atoi(s)
				if err == nil && f.MaxEvents < 1 {
					err = errors.New("must be at least 1")
				}
			}
		default:
			return f, false, fmt.Errorf("flag provided but not defined: -%s", name)
		}
		if err != nil {
			return f, false, fmt.Errorf("invalid value for --%s: %w", name, err)
		}
	}
	return f, help, nil
}
