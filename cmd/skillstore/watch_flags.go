package main

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/skillstore/skillstore/reload/watch"
)

// watchFlags are watch's options, parsed by hand so that everything after
// --exec is the command line.
type watchFlags struct {
	args      []string
	skills    []string
	debounce  time.Duration
	maxWait   time.Duration
	poll      bool
	events    string
	noAudit   bool
	maxEvents int
	pidFile   string
	exec      []string
	help      bool
}

func parseWatchFlags(args []string) (watchFlags, error) {
	f := watchFlags{debounce: watch.DefaultDebounce}
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
		case "no-audit":
			f.noAudit = true
		case "skill":
			var g string
			if g, err = value(); err == nil {
				if _, perr := path.Match(g, ""); perr != nil || g == "" {
					err = fmt.Errorf("bad pattern %q", g)
				}
				f.skills = append(f.skills, g)
			}
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
		case "max-wait":
			var s string
			if s, err = value(); err == nil {
				f.maxWait, err = time.ParseDuration(s)
				if err == nil && f.maxWait <= 0 {
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
