package refdoc

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// tinyApp is a program of two commands in the shape of skillstore's: a
// leaf with flags, and a group with one subcommand.
func tinyApp() *cli.App {
	return &cli.App{
		Name:  "skillstore",
		Usage: "a store",
		Flags: []cli.Flag{&cli.StringFlag{Name: "store", Usage: "store directory", EnvVars: []string{"SKILLSTORE_DIR"}}},
		Commands: []*cli.Command{
			{
				Name: "sync", Category: "plugins", Usage: "bring updates in", ArgsUsage: "[PLUGIN...]",
				Description: "Classify each skill against refs/upstream/<plugin>/<skill>:\n" +
					"  unchanged     nothing to do\n" +
					"  three-way     a *candidate*\n" +
					"- not a list, and [not] a link.\n\n" +
					"Exit codes: 0 done.",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "write nothing"},
					&cli.StringFlag{Name: "allow-risk", Usage: "highest risk", Value: "high"},
					&cli.StringSliceFlag{Name: "skill", Usage: "only `NAME`"},
					&cli.BoolFlag{Name: "secret", Hidden: true},
					cli.HelpFlag,
				},
			},
			{
				Name: "plugin", Category: "plugins", Usage: "vendor plugins",
				Subcommands: []*cli.Command{{Name: "add", Usage: "add a plugin", ArgsUsage: "SOURCE", Description: ".starts with a dot"}},
			},
			{Name: "complete", Hidden: true},
		},
	}
}

func render(t *testing.T, app *cli.App) map[string]string {
	t.Helper()
	pages, err := Markdown(FromApp(app), MarkdownOptions{Intro: "See the guide."})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range pages {
		out[p.File] = string(p.Content)
	}
	return out
}

func TestMarkdownPages(t *testing.T) {
	pages := render(t, tinyApp())
	if len(pages) != 4 {
		t.Fatalf("pages %v, want README.md, sync.md, plugin.md, plugin-add.md (the hidden command left out)", keys(pages))
	}
	sync := pages["sync.md"]
	for _, want := range []string{
		"# skillstore sync\n\nbring updates in\n",
		"```text\nskillstore sync [options] [PLUGIN...]\n```",
		`refs/upstream/\<plugin\>/\<skill\>:`,                                    // not an HTML tag
		"```text\nunchanged     nothing to do\nthree-way     a *candidate*\n```", // columns kept, indentation removed
		"\n\\- not a list, and \\[not\\] a link.\n",
		"- `--dry-run, -n`: write nothing\n",
		"- `--allow-risk value`: highest risk (default: \"high\")\n",
		"- `--skill NAME [ --skill NAME ]`: only NAME\n",
		"[global options](README.md#global-options)",
	} {
		if !strings.Contains(sync, want) {
			t.Errorf("sync.md lacks %q:\n%s", want, sync)
		}
	}
	for _, unwanted := range []string{"secret", "(default: false)", "--help, -h"} {
		if strings.Contains(sync, unwanted) {
			t.Errorf("sync.md holds %q:\n%s", unwanted, sync)
		}
	}
	if !strings.Contains(pages["plugin.md"], "| [`skillstore plugin add`](plugin-add.md) | add a plugin |") {
		t.Errorf("plugin.md does not list its subcommand:\n%s", pages["plugin.md"])
	}
	index := pages["README.md"]
	for _, want := range []string{"See the guide.", "### plugins", "| [`skillstore plugin add`](plugin-add.md) |", "- `--store value`: store directory \\[$SKILLSTORE\\_DIR\\]"} {
		if !strings.Contains(index, want) {
			t.Errorf("index lacks %q:\n%s", want, index)
		}
	}
}

func TestCompareNamesWhatDiffers(t *testing.T) {
	pages, _ := Markdown(FromApp(tinyApp()), MarkdownOptions{})
	have := map[string][]byte{}
	for _, p := range pages {
		have[p.File] = p.Content
	}
	have["notes.md"] = []byte("# my own notes\n")
	if problems := Compare(pages, have); len(problems) != 0 {
		t.Fatalf("pages just generated differ: %v", problems)
	}

	// A flag added to the command, a subcommand added, a command
	// removed, and a page whose prose was edited by hand.
	app := tinyApp()
	app.Commands[0].Flags = append(app.Commands[0].Flags, &cli.BoolFlag{Name: "review", Usage: "review all"})
	app.Commands[1].Subcommands = append(app.Commands[1].Subcommands, &cli.Command{Name: "rm", Usage: "forget a plugin"})
	app.Commands = append(app.Commands, &cli.Command{Name: "gc", Usage: "pack"})
	have["plugin-add.md"] = []byte(strings.Replace(string(have["plugin-add.md"]), "add a plugin", "adds a plugin", 1))
	have["old.md"] = []byte(Header + "\n# skillstore old\n")
	pages, _ = Markdown(FromApp(app), MarkdownOptions{})
	got := strings.Join(Compare(pages, have), "\n")
	for _, want := range []string{
		"sync.md ('skillstore sync'): flag --review is in the help but not documented",
		"plugin.md ('skillstore plugin'): command 'skillstore plugin rm' is in the help but not listed",
		"'skillstore plugin rm' has no page plugin-rm.md",
		"'skillstore gc' has no page gc.md",
		"plugin-add.md ('skillstore plugin add'): line 5 differs from the help:\n\tpage: \"adds a plugin\"\n\thelp: \"add a plugin\"",
		"old.md documents a command the help no longer has",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Compare's report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "notes.md") {
		t.Errorf("a hand-written file was reported:\n%s", got)
	}

	// A flag removed from the command while the page still lists it.
	app = tinyApp()
	app.Commands[0].Flags = app.Commands[0].Flags[1:]
	pages, _ = Markdown(FromApp(app), MarkdownOptions{})
	if got := strings.Join(Compare(pages, have), "\n"); !strings.Contains(got, "sync.md ('skillstore sync'): documents flag --dry-run, which the command no longer has") {
		t.Errorf("a removed flag was not named:\n%s", got)
	}
}

func TestMarkdownRefusesTwoCommandsOnOnePage(t *testing.T) {
	app := tinyApp()
	app.Commands = append(app.Commands, &cli.Command{Name: "plugin-add"})
	if _, err := Markdown(FromApp(app), MarkdownOptions{}); err == nil || !strings.Contains(err.Error(), "plugin-add.md") {
		t.Fatalf("err = %v, want both commands named with plugin-add.md", err)
	}
}

func TestManPages(t *testing.T) {
	pages := Man(FromApp(tinyApp()))
	byName := map[string]string{}
	for _, p := range pages {
		byName[p.File] = string(p.Content)
	}
	add := byName["skillstore-plugin-add.1"]
	for _, want := range []string{
		".TH SKILLSTORE-PLUGIN-ADD 1",
		"skillstore\\-plugin\\-add \\- add a plugin",
		"\n\\&.starts with a dot\n", // not a roff request
		"\\fBskillstore\\-plugin\\fR(1)",
	} {
		if !strings.Contains(add, want) {
			t.Errorf("skillstore-plugin-add.1 lacks %q:\n%s", want, add)
		}
	}
	if sync := byName["skillstore-sync.1"]; !strings.Contains(sync, ".TP\n\\fB\\-\\-dry\\-run, \\-n\\fR\nwrite nothing\n") {
		t.Errorf("skillstore-sync.1 lacks its flag:\n%s", sync)
	}
	if len(pages) != 4 {
		t.Errorf("man pages %v, want 4", keys(byName))
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
