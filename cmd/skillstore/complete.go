package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app/candidates"
	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
	storecandidates "github.com/skillstore/skillstore/store/candidates"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/remote"
)

// argKind is what a command's positional argument names, for completion.
type argKind int

const (
	argNone argKind = iota
	argSkill
	argCandidate
	argPlugin
	argTarget
	argRemote
	argShell
)

// commandArgs says what each positional argument of a command names: the
// last entry repeats for the arguments past the list. Commands not listed
// take paths or free text (the shell completes file names).
var commandArgs = map[string][]argKind{
	"show":                 {argSkill},
	"log":                  {argSkill},
	"cat":                  {argSkill, argNone},
	"diff":                 {argSkill, argNone},
	"checkout":             {argSkill, argNone},
	"rollback":             {argSkill, argNone},
	"disable":              {argSkill},
	"enable":               {argSkill},
	"rm":                   {argSkill},
	"capture":              {argSkill},
	"candidates show":      {argCandidate},
	"candidates diff":      {argCandidate},
	"candidates accept":    {argCandidate},
	"candidates reject":    {argCandidate},
	"candidates resolve":   {argCandidate},
	"candidates checkout":  {argCandidate, argNone},
	"candidates edit":      {argCandidate},
	"candidates mergetool": {argCandidate},
	"plugin show":          {argPlugin},
	"plugin pause":         {argPlugin},
	"plugin resume":        {argPlugin},
	"plugin disable":       {argPlugin},
	"plugin enable":        {argPlugin},
	"plugin rm":            {argPlugin},
	"plugin adopt":         {argPlugin, argSkill},
	"plugin skills":        {argPlugin},
	"plugin set":           {argPlugin, argSkill},
	"sync":                 {argPlugin},
	"check":                {argPlugin},
	"target rm":            {argTarget},
	"target set":           {argTarget},
	"tag add":              {argNone, argSkill},
	"tag rm":               {argNone, argSkill},
	"export":               {argTarget},
	"push":                 {argRemote},
	"pull":                 {argRemote},
	"remote rm":            {argRemote},
	"completion":           {argShell},
}

// flagArgs says what the value of a flag names, by flag name.
var flagArgs = map[string]argKind{"target": argTarget, "skill": argSkill, "into": argSkill}

// completeCommand is the hidden command the shell scripts of 'skillstore
// completion' call: the words typed after "skillstore", the last one the
// word being completed (possibly empty). It prints one candidate per line,
// a tab, and its description when it has one.
func completeCommand() *cli.Command {
	return &cli.Command{
		Name:            "__complete",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			words := c.Args().Slice()
			if len(words) == 0 {
				words = []string{""}
			}
			for _, cand := range completeWords(c, words) {
				// The tab is ours: name and description are quoted apart.
				if name, desc, ok := strings.Cut(cand, "\t"); ok {
					cliout.Printf(getEnv(c).stdout, "%s\t%s\n", name, desc)
				} else {
					cliout.Println(getEnv(c).stdout, cand)
				}
			}
			return nil
		},
	}
}

// completeWords returns the candidates for the last of words.
func completeWords(c *cli.Context, words []string) []string {
	cur, done := words[len(words)-1], words[:len(words)-1]
	cmds, flags := c.App.Commands, c.App.Flags
	var cmd *cli.Command
	path := ""
	storeFlag := ""
	var positional []string
	used := map[string]bool{}
	for i := 0; i < len(done); i++ {
		w := done[i]
		if w == "--" {
			positional = append(positional, done[i+1:]...)
			break
		}
		if isFlagToken(w) {
			name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
			used[name] = true
			if takesValue(flags, w) && i+1 < len(done) {
				if cmd == nil && name == "store" {
					storeFlag = done[i+1]
				}
				i++
			}
			continue
		}
		if len(positional) == 0 {
			if next := findCommand(cmds, w); next != nil {
				cmd, cmds, flags = next, next.Subcommands, next.Flags
				path = strings.TrimSpace(path + " " + next.Name)
				used = map[string]bool{}
				continue
			}
		}
		positional = append(positional, w)
	}
	// The value of a flag that takes one.
	if n := len(done); n > 0 && isFlagToken(done[n-1]) && takesValue(flags, done[n-1]) {
		name := strings.TrimLeft(done[n-1], "-")
		return filterPrefix(namesOf(c, storeFlag, flagArgs[name], cur), cur)
	}
	if strings.HasPrefix(cur, "-") {
		return filterPrefix(flagNames(flags, used), cur)
	}
	if len(cmds) > 0 && len(positional) == 0 {
		return filterPrefix(commandNames(cmds), cur)
	}
	if path == "help" {
		return filterPrefix(helpTopics(c.App.Commands, positional), cur)
	}
	kinds := commandArgs[path]
	if len(kinds) == 0 {
		return nil
	}
	kind := kinds[min(len(positional), len(kinds)-1)]
	return filterPrefix(namesOf(c, storeFlag, kind, cur), cur)
}

// helpTopics lists the subcommands of the command path "help" was given so far.
func helpTopics(cmds []*cli.Command, path []string) []string {
	for _, name := range path {
		cmd := findCommand(cmds, name)
		if cmd == nil {
			return nil
		}
		cmds = cmd.Subcommands
	}
	return commandNames(cmds)
}

func commandNames(cmds []*cli.Command) []string {
	var out []string
	for _, c := range cmds {
		if !c.Hidden {
			out = append(out, c.Name+"\t"+c.Usage)
		}
	}
	return out
}

// flagNames lists --name for every flag not used yet (repeatable flags
// stay offered), with its usage.
func flagNames(flags []cli.Flag, used map[string]bool) []string {
	var out []string
	for _, f := range flags {
		names := f.Names()
		_, repeatable := f.(*cli.StringSliceFlag)
		if !repeatable && slices.ContainsFunc(names, func(n string) bool { return used[n] }) {
			continue
		}
		usage := ""
		if d, ok := f.(cli.DocGenerationFlag); ok {
			usage = d.GetUsage()
		}
		prefix := "--"
		if len(names[0]) == 1 {
			prefix = "-"
		}
		out = append(out, prefix+names[0]+"\t"+usage)
	}
	return append(out, "--help\tshow help")
}

// filterPrefix keeps the candidates whose name (before the tab) starts
// with prefix.
func filterPrefix(cands []string, prefix string) []string {
	var out []string
	for _, c := range cands {
		name, _, _ := strings.Cut(c, "\t")
		if strings.HasPrefix(name, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// namesOf reads the names of kind from the store. Completion must never
// hang a shell: the store lock is waited for a short while only, and any
// error (no store, busy store) completes nothing.
func namesOf(c *cli.Context, storeFlag string, kind argKind, cur string) []string {
	switch kind {
	case argShell:
		return []string{"bash", "fish", "zsh"}
	case argNone:
		return nil
	}
	g := global(c)
	if storeFlag != "" {
		g.Store = storeFlag
	}
	dir, err := g.StoreDir()
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(c.Context, 2*time.Second)
	defer cancel()
	s, err := store.Open(ctx, dir, store.Options{Logger: g.Log, LockTimeout: 500 * time.Millisecond})
	if err != nil {
		return nil
	}
	names, err := storeNames(ctx, s, kind, cur)
	if err != nil {
		return nil
	}
	return names
}

func storeNames(ctx context.Context, s *store.Store, kind argKind, cur string) ([]string, error) {
	var out []string
	switch kind {
	case argSkill:
		if name, _, ok := strings.Cut(cur, "@"); ok {
			return versionCompletions(ctx, s, name)
		}
		skills, err := s.List(ctx, false)
		return skillCompletions(skills), err
	case argCandidate:
		err := s.View(ctx, func(r *store.Reader) error {
			cands, err := storecandidates.List(r)
			for _, cand := range cands {
				out = append(out, cand.Skill+"\t"+candidates.From(cand)+", "+candidates.State(cand))
			}
			return err
		})
		return out, err
	case argPlugin:
		err := s.View(ctx, func(r *store.Reader) error {
			recs, err := plugins.List(r)
			for _, p := range recs {
				out = append(out, p.ID)
			}
			return err
		})
		return out, err
	case argTarget:
		targets, err := target.List(ctx, s, nil)
		for _, t := range targets {
			out = append(out, t.Name+"\t"+t.Dir)
		}
		return out, err
	case argRemote:
		remotes, err := remote.List(ctx, s)
		for _, r := range remotes {
			out = append(out, r.Name+"\t"+r.Redacted())
		}
		return out, err
	}
	return nil, nil
}

// versionCompletions completes NAME@ with the skill's versions, newest first.
func versionCompletions(ctx context.Context, s *store.Store, name string) ([]string, error) {
	resolved, err := s.ResolveSkill(ctx, name)
	if err != nil {
		return nil, err
	}
	versions, err := s.Log(ctx, resolved)
	var out []string
	for _, v := range versions {
		out = append(out, fmt.Sprintf("%s@v%d\t%s", name, v.Number, oneLine(v.Reason)))
	}
	return out, err
}

func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// skillCompletions offers every skill by its store name and, for a
// plugin's skill whose short name no other skill has, by that short name
// too (what ResolveSkill accepts).
func skillCompletions(skills []store.SkillInfo) []string {
	shortCount := map[string]int{}
	for _, sk := range skills {
		_, short := store.SplitName(sk.Name)
		shortCount[short]++
	}
	var out []string
	for _, sk := range skills {
		desc := oneLine(sk.Description)
		out = append(out, sk.Name+"\t"+desc)
		if plugin, short := store.SplitName(sk.Name); plugin != "" && shortCount[short] == 1 && !store.IsPluginParts(sk.Name) {
			out = append(out, short+"\t"+desc+" ("+sk.Name+")")
		}
	}
	return out
}
