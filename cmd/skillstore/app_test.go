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
