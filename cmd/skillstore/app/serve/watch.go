package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/reload/watch"
	"github.com/skillstore/skillstore/store"
)

// auditFileName is the default audit trail, in the store's own folder.
const auditFileName = "audit.jsonl"

// WatchOptions are watch's.
type WatchOptions struct {
	app.Global
	// Args are the targets (by name) and folders to watch; every target
	// when none.
	Args []string
	// Skills narrows every watch to the skills whose folder names match
	// one of these globs.
	Skills []string
	// Debounce is the quiet time before a change settles; MaxWait the
	// longest a change is held while the folder keeps changing (0: the
	// default, or Debounce if longer).
	Debounce, MaxWait time.Duration
	// Poll polls with stat instead of inotify.
	Poll bool
	// Events is a file to append JSON events to ("-": stdout).
	Events string
	// NoAudit leaves the store's audit file alone.
	NoAudit bool
	// MaxEvents stops watching after that many events (0: never).
	MaxEvents int
	// PidFile is written with the process id once watching has begun.
	PidFile string
	// Exec is the command run for every change, never through a shell.
	Exec []string
}

// Watch watches skill folders and reports (and runs Exec for) every
// change to a skill, until ctx ends or MaxEvents events.
func Watch(ctx context.Context, opts WatchOptions) error {
	roots, err := watchRoots(ctx, opts.Global, opts.Args, skillFilter(opts.Skills))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	out := opts.Stdout
	var log *watch.EventLog
	switch opts.Events {
	case "":
	case "-":
		log, out = watch.NewEventLog(cliout.Raw(opts.Stdout)), io.Discard
	default:
		file, err := os.OpenFile(opts.Events, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("open events file: %w", err)
		}
		defer file.Close()
		log = watch.NewEventLog(file)
	}
	var audit *watch.AuditFile
	if !opts.NoAudit {
		audit = defaultAuditFile(ctx, opts.Global)
	}
	auditFailed := false
	count := 0
	wopts := watch.WatchOptions{
		Debounce: opts.Debounce,
		MaxWait:  opts.MaxWait,
		Poll:     opts.Poll,
		Logger:   opts.Log,
		OnEvent: func(ev watch.Event) {
			if log != nil {
				if err := log.Write(ev); err != nil {
					opts.Log.Warn("cannot write event", "err", err)
				}
			}
			if audit != nil && !auditFailed {
				if err := audit.Write(ev); err != nil {
					// Auditing must never stop the reloads: say so once.
					auditFailed = true
					cliout.Printf(opts.Stderr, "skillstore: warning: cannot write the audit file %s, events are no longer audited there: %v\n", audit.Path(), err)
				}
			}
			cliout.Reportf(out, "    ", "%s", cliout.Quoted(eventLine(ev)))
			count++
			if opts.MaxEvents > 0 && count >= opts.MaxEvents {
				cancel()
			}
		},
	}
	if len(opts.Exec) > 0 {
		childOut := cliout.Raw(opts.Stdout)
		if opts.Events == "-" {
			childOut = cliout.Raw(opts.Stderr)
		}
		wopts.OnReload = execHook(opts.Exec, childOut, opts.Stderr)
	}
	w, err := watch.NewRootsWatcher(roots, wopts)
	if err != nil {
		return err
	}
	mode := "inotify"
	if w.Polling() {
		mode = "polling"
	}
	maxWait := opts.MaxWait
	if maxWait == 0 {
		maxWait = max(watch.DefaultMaxWait, opts.Debounce)
	}
	dirs := make([]string, len(roots))
	for i, r := range roots {
		dirs[i] = r.Dir
	}
	cliout.Printf(opts.Stderr, "skillstore: watching %s (%s, debounce %s, max-wait %s)\n", strings.Join(dirs, ", "), mode, opts.Debounce, maxWait)
	if audit != nil {
		cliout.Printf(opts.Stderr, "skillstore: auditing to %s\n", audit.Path())
	}
	if opts.PidFile != "" {
		if err := atomicfile.WriteFile(opts.PidFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
			return fmt.Errorf("write pid file: %w", err)
		}
		defer os.Remove(opts.PidFile)
	}
	return w.Run(ctx)
}

// defaultAuditFile is the store's audit file, or nil when there is no
// store (watching plain folders needs none).
func defaultAuditFile(ctx context.Context, g app.Global) *watch.AuditFile {
	dir, err := g.StoreDir()
	if err != nil {
		return nil
	}
	s, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		return nil
	}
	return watch.NewAuditFile(s.LocalPath(auditFileName), watch.DefaultAuditMaxSize)
}

// watchRoots resolves watch's arguments: a target name or a folder. With no
// arguments, every target. A target is watched with its patterns and only
// for the folders export wrote; a folder is watched whole. want (the
// --skill patterns) narrows every root.
func watchRoots(ctx context.Context, g app.Global, args []string, want func(string) bool) ([]watch.Root, error) {
	var s *store.Store
	openStore := func() (*store.Store, error) {
		if s != nil {
			return s, nil
		}
		var err error
		s, err = g.OpenStore(ctx)
		return s, err
	}
	targetRoot := func(t target.Target) (watch.Root, error) {
		dir, err := targetWatchDir(t)
		return watch.Root{Dir: dir, Want: both(t.WantsFolder(), want), Exported: true}, err
	}
	if len(args) == 0 {
		st, err := openStore()
		if err != nil {
			return nil, err
		}
		targets, err := target.List(ctx, st, nil)
		if err != nil {
			return nil, err
		}
		if len(targets) == 0 {
			return nil, app.WithHint(errors.New("nothing to watch: no targets"), "name a folder, or add a target with 'skillstore target add NAME DIR'")
		}
		var roots []watch.Root
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
	var roots []watch.Root
	for _, a := range args {
		if target.CheckName(a) == nil && !strings.ContainsRune(a, os.PathSeparator) {
			if _, err := os.Stat(a); err != nil {
				st, err := openStore()
				if err != nil {
					return nil, err
				}
				targets, err := target.List(ctx, st, []string{a})
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
			return nil, app.WithHint(fmt.Errorf("cannot watch %s: %w", a, err), "give a target name or an existing folder")
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("cannot watch %s: not a folder", a)
		}
		roots = append(roots, watch.Root{Dir: a, Want: want})
	}
	return roots, nil
}

// targetWatchDir is a target's folder, which must exist to be watched.
func targetWatchDir(t target.Target) (string, error) {
	if t.IsMarketplace() {
		h := target.MarketplaceSteps(t.Kind, t.Dir, t.MarketplaceName())
		return "", app.WithHint(fmt.Errorf("cannot watch target %s: it is a %s marketplace, not a skills folder (watch follows skills folders)", t.Name, h.Agent),
			"after 'skillstore export "+t.Name+"', "+h.Update)
	}
	if _, err := os.Stat(t.Dir); err != nil {
		return "", app.WithHint(fmt.Errorf("cannot watch target %s: %w", t.Name, err), "run 'skillstore export "+t.Name+"' to create it")
	}
	return t.Dir, nil
}

// eventLine is the human line printed for an event: one line, the skill's
// folder name, each path and the error quoted apart (cliout.Quote).
func eventLine(ev watch.Event) string {
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
// one path per line, each quoted as git quotes a path when it must be (a
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
func execHook(argv []string, stdout, stderr io.Writer) watch.ReloadFunc {
	return func(ctx context.Context, ev watch.Event) error {
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

// skillFilter is the --skill patterns as a filter; nil when none is given.
func skillFilter(globs []string) func(string) bool {
	if len(globs) == 0 {
		return nil
	}
	return func(skill string) bool {
		for _, g := range globs {
			if ok, _ := path.Match(g, skill); ok {
				return true
			}
		}
		return false
	}
}

// both is a filter wanting what a and b both want (nil wants everything).
func both(a, b func(string) bool) func(string) bool {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(skill string) bool { return a(skill) && b(skill) }
}
