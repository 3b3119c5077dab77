// Package refdoc renders skillstore's command reference from the CLI's own
// command definitions (urfave/cli values: name, usage, arguments,
// description, flags, subcommands), so the pages under docs/reference and
// the man pages say exactly what --help says. There is one source for each
// command's text, the help written in cmd/skillstore; this package only
// lays it out.
//
// The layout is its own rather than urfave/cli's ToMarkdown and ToMan:
// those are compiled out of the binary by the build tag urfave_cli_no_docs
// (see the Makefile), write one page for the whole program, and cannot
// say which command or flag a page lacks. The model here (Command, Flag)
// is read with the same flag stringer the help uses, so a flag's text,
// default and environment variable read as in --help.
package refdoc

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// Command is one command of the reference: the program itself (Path
// empty), a group of subcommands, or a leaf.
type Command struct {
	// Path is the program's name, then the command's names below it
	// ("skillstore", "plugin", "add").
	Path        []string
	Usage       string
	ArgsUsage   string
	Description string
	Category    string
	Aliases     []string
	Flags       []Flag
	Subcommands []*Command
}

// Flag is one flag as the help prints it.
type Flag struct {
	// Name is the flag's first name ("dry-run"), by which a drift report
	// names it.
	Name string
	// Synopsis is the names with their placeholder ("--dry-run, -n",
	// "--ref value", "--skill value [ --skill value ]").
	Synopsis string
	// Text is the usage with its default and environment variable, as the
	// help prints them; a boolean flag's "(default: false)" is left out.
	Text string
}

// FromApp reads the program's command tree. Hidden commands and flags,
// and the --help flag every command has, are left out: the help does not
// list the first two, and the reference says once that every command
// takes --help.
func FromApp(app *cli.App) *Command {
	root := &Command{
		Path:        []string{app.Name},
		Usage:       app.Usage,
		ArgsUsage:   app.ArgsUsage,
		Description: app.Description,
		Flags:       readFlags(app.Flags),
	}
	if app.Version != "" && !app.HideVersion {
		root.Flags = append(root.Flags, readFlags([]cli.Flag{cli.VersionFlag})...)
	}
	root.Subcommands = readCommands(root.Path, app.Commands)
	return root
}

func readCommands(parent []string, cmds []*cli.Command) []*Command {
	var out []*Command
	for _, c := range cmds {
		if c.Hidden {
			continue
		}
		path := append(append([]string{}, parent...), c.Name)
		out = append(out, &Command{
			Path:        path,
			Usage:       c.Usage,
			ArgsUsage:   c.ArgsUsage,
			Description: c.Description,
			Category:    c.Category,
			Aliases:     c.Aliases,
			Flags:       readFlags(c.Flags),
			Subcommands: readCommands(path, c.Subcommands),
		})
	}
	return out
}

// readFlags reads each visible flag through cli.FlagStringer, the function
// the help prints flags with, which separates the names from the usage
// with a tab.
func readFlags(flags []cli.Flag) []Flag {
	var out []Flag
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		if f.Names()[0] == cli.HelpFlag.Names()[0] {
			continue
		}
		synopsis, text, _ := strings.Cut(cli.FlagStringer(f), "\t")
		if b, ok := f.(*cli.BoolFlag); ok && !b.Value {
			text = strings.Replace(text, " (default: false)", "", 1)
		}
		out = append(out, Flag{Name: f.Names()[0], Synopsis: synopsis, Text: text})
	}
	return out
}

// Name is the command as typed: "skillstore plugin add".
func (c *Command) Name() string { return strings.Join(c.Path, " ") }

// IsRoot reports whether c is the program itself.
func (c *Command) IsRoot() bool { return len(c.Path) == 1 }

// Walk calls fn for c and every command below it, parents first.
func (c *Command) Walk(fn func(*Command)) {
	fn(c)
	for _, s := range c.Subcommands {
		s.Walk(fn)
	}
}
