package main

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/urfave/cli/v2"
)

// helpCommand is "skillstore help [COMMAND...]": the help of the app, a
// command or a subcommand, the same text as --help prints. An unknown name
// is a usage error with a suggestion, as everywhere else.
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Category:  "setup",
		Usage:     "show the help of skillstore or of a command",
		ArgsUsage: "[COMMAND [SUBCOMMAND]]",
		Description: "skillstore help plugin add prints what 'skillstore plugin add --help' prints.\n\n" +
			"Exit codes: 0 shown, 2 unknown command.",
		Action: func(c *cli.Context) error {
			path := c.Args().Slice()
			cmds := c.App.Commands
			parent := "skillstore"
			for _, name := range path {
				cmd := findCommand(cmds, name)
				if cmd == nil {
					return unknownCommandError(parent, name, cmds)
				}
				cmds, parent = cmd.Subcommands, parent+" "+cmd.Name
			}
			// A fresh app prints the help exactly as --help would, with the
			// command path set up by urfave.
			app := newApp(getEnv(c), nil)
			args := append(append([]string{"skillstore"}, path...), "--help")
			return app.RunContext(c.Context, args)
		},
	}
}

// unknownCommandError is the usage error (exit 2) for a command or
// subcommand name that parent does not have, with the closest names.
func unknownCommandError(parent, name string, cmds []*cli.Command) error {
	err := app.UsageErrorf("unknown command %q", name)
	if parent != "skillstore" {
		err = app.UsageErrorf("'%s' has no subcommand %q", parent, name)
	}
	if s := suggestNames(name, visibleNames(cmds)); len(s) > 0 {
		err = app.WithHint(err, "did you mean "+quoteList(s)+"?")
	}
	return app.WithHint(err, fmt.Sprintf("run '%s --help' for the list of commands", parent))
}

// guardSubcommands gives every command that has subcommands an Action for
// the case where none of them is named: no argument shows the command's
// help, an unknown one is a usage error with a did-you-mean. Without it
// urfave/cli answers a typo with its help topic error, exit 3, which
// skillstore reserves for a busy store. It also hides the "help"
// subcommand urfave adds to every command, leaves included ("skillstore
// show help" would print help instead of showing a skill named help):
// "skillstore help PATH" and "--help" cover it.
func guardSubcommands(cmds []*cli.Command, parent string) {
	for _, cmd := range cmds {
		cmd.HideHelpCommand = true
		if len(cmd.Subcommands) == 0 {
			continue
		}
		full := parent + " " + cmd.Name
		guardSubcommands(cmd.Subcommands, full)
		if cmd.Action != nil {
			continue
		}
		subs := cmd.Subcommands
		cmd.Action = func(c *cli.Context) error {
			if c.Args().Present() {
				return unknownCommandError(full, c.Args().First(), subs)
			}
			return cli.ShowSubcommandHelp(c)
		}
	}
}

func visibleNames(cmds []*cli.Command) []string {
	var names []string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	return names
}

// suggestNames returns the names closest to typed: those it is a prefix
// of, else those within an edit distance of about a third of its length
// (at least 1, at most 3), nearest first; at most three.
func suggestNames(typed string, names []string) []string {
	var prefixed []string
	for _, n := range names {
		if len(typed) >= 2 && strings.HasPrefix(n, typed) {
			prefixed = append(prefixed, n)
		}
	}
	if len(prefixed) > 0 {
		return firstN(prefixed, 3)
	}
	limit := min(max(len(typed)/3, 1), 3)
	var best []string
	for d := 0; d <= limit; d++ {
		for _, n := range names {
			if editDistance(typed, n) == d {
				best = append(best, n)
			}
		}
	}
	return firstN(best, 3)
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// editDistance is the Damerau–Levenshtein distance with adjacent
// transpositions (the optimal string alignment variant): "ad" is one edit
// from "add", "lsit" one from "list".
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// quoteList renders names as 'a', 'b' or 'c'.
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// flagHints are the hints of a flag that did not parse: the flags of the
// same command the typed one may have meant (did-you-mean, by suggestNames),
// and the help of the command as typed.
func flagHints(c *cli.Context, err error) []string {
	var hints []string
	// A one-letter flag is one edit from every other: no guess.
	if typed, ok := unknownFlag(err); ok && len(typed) > 1 {
		if s := suggestNames(typed, commandFlagNames(c)); len(s) > 0 {
			for i, n := range s {
				s[i] = dashes(n) + n
			}
			hints = append(hints, "did you mean "+quoteList(s)+"?")
		} else if g := suggestNames(typed, globalFlagNames(c)); len(g) > 0 && typedCommand(c) != "skillstore" {
			hints = append(hints, fmt.Sprintf("%s%s is a flag of skillstore itself: put it before the command, as in 'skillstore %s%s ... %s'",
				dashes(g[0]), g[0], dashes(g[0]), g[0], commandPath(c)))
		}
	}
	return append(hints, fmt.Sprintf("run '%s --help' for usage", typedCommand(c)))
}

// unknownFlag is the name of the flag the flag package found no
// definition for ("flag provided but not defined: -revew").
func unknownFlag(err error) (string, bool) {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return "", false
	}
	name = strings.TrimLeft(name, "-")
	return name, name != ""
}

// typedCommand is the command c runs as typed: "skillstore plugin add"
// (urfave's FullName of a subcommand leaves its parents out).
func typedCommand(c *cli.Context) string {
	if p := commandPath(c); p != "" {
		return "skillstore " + p
	}
	return "skillstore"
}

// commandFlagNames are the names and aliases of the flags of the command
// c runs (the global flags when it is skillstore itself), hidden ones left
// out.
func commandFlagNames(c *cli.Context) []string {
	flags := c.App.Flags
	if c.Command != nil && c.Command.Name != "" && c.Command.Name != c.App.Name {
		flags = c.Command.Flags
	}
	return visibleFlagNames(flags)
}

// globalFlagNames are the names of skillstore's own flags (--store, ...).
func globalFlagNames(c *cli.Context) []string { return visibleFlagNames(c.App.Flags) }

func visibleFlagNames(flags []cli.Flag) []string {
	var names []string
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		names = append(names, f.Names()...)
	}
	return names
}

// dashes is how a flag is written: -v, --verbose.
func dashes(name string) string {
	if len([]rune(name)) == 1 {
		return "-"
	}
	return "--"
}

// useHelpPrinter makes urfave/cli's help wrap, once, as every message for
// people does: a line longer than the report width (--width) breaks at
// spaces, its further lines under the line's own text column (a flag's or
// a command's description), so no help line runs past it.
var useHelpPrinter = sync.OnceFunc(func() {
	print := cli.HelpPrinterCustom
	cli.HelpPrinter = func(w io.Writer, templ string, data any) {
		var b strings.Builder
		print(&b, templ, data, nil)
		width := cliout.ReportWidthOf(w)
		var out strings.Builder
		for _, line := range strings.SplitAfter(b.String(), "\n") {
			text := strings.TrimSuffix(line, "\n")
			out.WriteString(cliout.WrapLine(text, width, strings.Repeat(" ", helpTextColumn(text, width))))
			out.WriteString(line[len(text):])
		}
		io.WriteString(w, out.String())
	}
})

// helpTextColumn is where the text of a help line starts: after the first
// gap of two spaces or more that follows the line's first word ("--width
// value   wrap ..."), else four columns in from the line's own indent.
func helpTextColumn(line string, width int) int {
	lead := len(line) - len(strings.TrimLeft(line, " "))
	if gap := strings.Index(line[lead:], "  "); gap > 0 {
		col := lead + gap + len(line[lead+gap:]) - len(strings.TrimLeft(line[lead+gap:], " "))
		if col < width-30 {
			return col
		}
	}
	return lead + 4
}
