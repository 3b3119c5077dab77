package main

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestPermuteArgs(t *testing.T) {
	app := &cli.App{
		Flags: []cli.Flag{&cli.StringFlag{Name: "store"}, &cli.BoolFlag{Name: "debug"}},
		Commands: []*cli.Command{
			{Name: "add", Flags: []cli.Flag{&cli.StringFlag{Name: "reason"}, &cli.BoolFlag{Name: "strict"}}},
			{Name: "plugin", Subcommands: []*cli.Command{
				{Name: "add", Flags: []cli.Flag{&cli.StringFlag{Name: "id", Aliases: []string{"i"}}}},
			}},
			{Name: "watch", SkipFlagParsing: true},
		},
	}
	tests := []struct{ in, want string }{
		{"ss add DIR --reason why", "ss add --reason why DIR"},
		{"ss add DIR --reason=why --strict DIR2", "ss add --reason=why --strict DIR DIR2"},
		{"ss --store S add DIR --strict", "ss --store S add --strict DIR"},
		{"ss --debug add DIR", "ss --debug add DIR"},
		{"ss plugin add SRC -i ID", "ss plugin add -i ID SRC"},
		{"ss add DIR -- --reason", "ss add DIR -- --reason"},
		{"ss add DIR --unknown", "ss add --unknown DIR"},
		{"ss add - --strict", "ss add --strict -"},
		{"ss watch DIR --exec echo --x", "ss watch DIR --exec echo --x"},
		{"ss nosuch DIR --reason x", "ss nosuch DIR --reason x"},
		{"ss add DIR --help", "ss add --help"},
		{"ss plugin add SRC -h", "ss plugin add --help"},
	}
	for _, tt := range tests {
		got := strings.Join(permuteArgs(app, strings.Fields(tt.in)), " ")
		if got != tt.want {
			t.Errorf("permuteArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestRunFlagsAfterArguments runs the real app: a flag written after the
// arguments reaches the command.
func TestRunFlagsAfterArguments(t *testing.T) {
	var out strings.Builder
	code := run([]string{"skillstore", "completion", "bash", "--help"}, strings.NewReader(""), &out, io.Discard)
	if code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if !strings.Contains(out.String(), "print a shell completion script") {
		t.Fatalf("--help after the argument was not read as a flag: %q", out.String())
	}
	if !slices.Contains(strings.Fields(out.String()), "bash|zsh|fish") {
		t.Fatalf("help does not show the arguments: %q", out.String())
	}
}

// TestCommandMakers checks the table a run picks its command from: each
// maker's name is its command's, once.
func TestCommandMakers(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range commandMakers() {
		cmd := m.make()
		if cmd.Name != m.name {
			t.Errorf("commandMakers: %q makes the command %q", m.name, cmd.Name)
		}
		if len(cmd.Aliases) > 0 {
			t.Errorf("command %q has aliases %q: commandsFor finds a command by its name alone", cmd.Name, cmd.Aliases)
		}
		if seen[m.name] {
			t.Errorf("commandMakers: %q twice", m.name)
		}
		seen[m.name] = true
	}
}

// TestCommandsFor checks which commands a run builds: the one it names,
// none for --version, every command where help or a hint may list them.
func TestCommandsFor(t *testing.T) {
	all := len(commandMakers())
	tests := []struct {
		args string
		want []string // nil: every command
	}{
		{"ss list", []string{"list"}},
		{"ss --store S --debug plugin add SRC", []string{"plugin"}},
		{"ss --store=S --width 0 sync", []string{"sync"}},
		{"ss --store list add DIR", []string{"add"}},
		{"ss --version", []string{}},
		{"ss -v --debug", []string{}},
		{"ss --version --help", nil},
		{"ss", nil},
		{"ss --help", nil},
		{"ss nosuch", nil},
		{"ss help plugin", nil},
		{"ss __complete plu", nil},
		{"ss --nosuch list", nil},
		{"ss -- list", nil},
	}
	for _, tt := range tests {
		app := newApp(&env{}, strings.Fields(tt.args))
		var got []string
		for _, c := range app.Commands {
			got = append(got, c.Name)
		}
		if tt.want == nil {
			if len(got) != all {
				t.Errorf("%q builds %d commands (%q), want all %d", tt.args, len(got), got, all)
			}
			continue
		}
		if !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
			t.Errorf("%q builds %q, want %q", tt.args, got, tt.want)
		}
	}
}
