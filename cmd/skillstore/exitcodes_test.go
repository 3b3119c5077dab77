//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/internal/lockfile"
)

// exitRow is a row of the exit-code table of docs/conventions.md: the codes
// it gives, to every command (all) or to the commands it names.
type exitRow struct {
	line     int
	codes    []int
	all      bool     // "every command"
	commands []string // named in backquotes, as typed after skillstore
}

// readExitTable reads the table under "## Exit codes" in docs/conventions.md.
func readExitTable(t *testing.T) []exitRow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "conventions.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []exitRow
	in := false
	named := regexp.MustCompile("`([^`]+)`")
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## Exit codes"
			continue
		case !in || !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| code |"):
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 3 {
			t.Fatalf("conventions.md:%d: an exit-code row has three cells (code | commands | when): %q", i+1, line)
		}
		row := exitRow{line: i + 1}
		for _, c := range strings.Split(cells[0], ", ") {
			lo, hi, isRange := strings.Cut(c, "–")
			a, err1 := strconv.Atoi(lo)
			b, err2 := strconv.Atoi(hi)
			switch {
			case !isRange && err1 == nil:
				row.codes = append(row.codes, a)
			case isRange && err1 == nil && err2 == nil:
				row.codes = append(row.codes, a, b) // a range is checked at its ends
			default:
				t.Fatalf("conventions.md:%d: code %q is not a number or a range N–M", i+1, c)
			}
		}
		row.all = strings.HasPrefix(cells[1], "every command")
		for _, m := range named.FindAllStringSubmatch(strings.TrimPrefix(cells[1], "every command"), -1) {
			row.commands = append(row.commands, m[1])
		}
		if !row.all && len(row.commands) == 0 {
			t.Fatalf("conventions.md:%d: the row names no command", i+1)
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		t.Fatal("conventions.md: no exit-code table under '## Exit codes'")
	}
	return rows
}

// commandTree is every command and subcommand of the app by path ("plugin
// add"), with its group, as the cmd_*.go files make them (before
// guardSubcommands gives each group an Action that shows its help), and
// whether skillstore help leaves it out.
func commandTree() (paths []string, cmds, parents map[string]*cli.Command, hidden map[string]bool) {
	cmds, parents, hidden = map[string]*cli.Command{}, map[string]*cli.Command{}, map[string]bool{}
	var walk func(prefix string, parent *cli.Command, list []*cli.Command)
	walk = func(prefix string, parent *cli.Command, list []*cli.Command) {
		for _, c := range list {
			p := prefix + c.Name
			paths = append(paths, p)
			cmds[p], parents[p] = c, parent
			hidden[p] = c.Hidden || (parent != nil && hidden[strings.TrimSuffix(prefix, " ")])
			walk(p+" ", c, c.Subcommands)
		}
	}
	walk("", nil, commands())
	slices.Sort(paths)
	return paths, cmds, parents, hidden
}

// exitCodesOf is the text after "Exit codes:" in the command's --help: its
// own, or its group's when it has none (tag add, target list).
func exitCodesOf(c, parent *cli.Command) string {
	for _, cmd := range []*cli.Command{c, parent} {
		if cmd == nil {
			continue
		}
		if _, codes, ok := strings.Cut(cmd.Description, "Exit codes:"); ok {
			return strings.Join(strings.Fields(codes), " ")
		}
	}
	return ""
}

// exitRun is one run of the binary, with the environment of a scenario's.
type exitRun struct {
	args   []string
	stdout string
	stderr string
	code   int
}

// runExit runs the binary in dir ("": the test's working directory) with
// HOME and the XDG folders under home.
func runExit(t *testing.T, home, dir string, args ...string) exitRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, skillstoreBin(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "SKILLSTORE_DIR="+filepath.Join(home, "no-store"),
		"SKILLSTORE_PATH=", "SKILLSTORE_SYSTEM_PATH=", "SKILLSTORE_SYSTEM_POLICY="+filepath.Join(home, "policy"),
		"SKILLSTORE_WIDTH=0", "SKILLSTORE_TEST_CHECKSYNC=", "NO_COLOR=1",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(home, ".gitconfig"), "GH_TOKEN=", "GITHUB_TOKEN=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := exitRun{args: args, stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("skillstore %s: %v", strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		t.Fatalf("skillstore %s did not end within a minute:\n%s%s", strings.Join(args, " "), r.stdout, r.stderr)
	}
	return r
}

func (r exitRun) String() string {
	return fmt.Sprintf("skillstore %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// runArgs are, for the commands that need arguments, arguments that take
// a run as far as the store lock: names need not exist, since a command
// opens the store before it looks one up. Paths are under the test's
// folder ($W).
var runArgs = map[string]string{
	"clone":                "$W/store $W/out/clone",
	"completion":           "bash",
	"init":                 "",
	"mcp token add":        "me",
	"mcp token rm":         "me",
	"merge-file":           "$W/merge-busy/cur1 $W/merge-busy/base $W/merge-busy/oth1",
	"new":                  "beta $W/out/beta",
	"prompt":               "$W/skills",
	"validate":             "$W/skills",
	"add":                  "$W/skills/alpha",
	"candidates accept":    "alpha",
	"candidates checkout":  "alpha $W/out/checkout",
	"candidates diff":      "alpha",
	"candidates edit":      "alpha",
	"candidates mergetool": "--tool true alpha",
	"candidates reject":    "alpha",
	"candidates resolve":   "alpha --from $W/skills/alpha",
	"candidates show":      "alpha",
	"cat":                  "alpha",
	"checkout":             "alpha $W/out/co",
	"diff":                 "alpha",
	"disable":              "alpha",
	"enable":               "alpha",
	"import":               "$W/skills",
	"install":              "--project $W/project",
	"log":                  "alpha",
	"plugin add":           "$W/skills",
	"plugin adopt":         "tools alpha",
	"plugin disable":       "--disable-linked-skills tools",
	"plugin enable":        "tools",
	"plugin link":          "tools alpha",
	"plugin pause":         "tools",
	"plugin resume":        "tools",
	"plugin rm":            "tools",
	"plugin set":           "tools --url $W/skills",
	"plugin show":          "tools",
	"plugin skills":        "tools",
	"plugin trust":         "tools",
	"remote add":           "origin $W/remote.git",
	"remote rm":            "origin",
	"rm":                   "alpha",
	"rollback":             "alpha v1",
	"search":               "word",
	"show":                 "alpha",
	"tag add":              "daily alpha",
	"tag rm":               "daily alpha",
	"target add":           "t $W/out/target",
	"target rm":            "t",
	"target set":           "t --all",
}

// exit4Assertion is an assertion of a scenario that a command exits 4:
// exec sh -c 'skillstore CMD ...; echo "exit $?"' followed by stdout
// 'exit 4', or exec sh -c 'skillstore CMD ...; test $? -eq 4'.
// notRunUnderLock are the commands that TestExitCodes does not run with
// the store lock held to see that they do not exit 3, and why.
var notRunUnderLock = map[string]string{
	"ui":         "serves until stopped",
	"find":       "asks the skill indexes on the network",
	"help":       "prints help",
	"__complete": "prints completions",
}

var (
	shExec   = regexp.MustCompile(`^(?:\[[^\]]*\] )?exec sh -c '(.*)'$`)
	exitLine = regexp.MustCompile(`^(?:\[[^\]]*\] )?stdout '\^?exit (\d+)\$?'$`)
	testExit = regexp.MustCompile(`test \$\? -eq (\d+)`)
)

// scenarioExits scans testdata/script for the exits of each command that a
// scenario asserts through sh (code -> command -> the scenarios).
func scenarioExits(t *testing.T, app *cli.App) map[int]map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "script", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	found := map[int]map[string][]string{}
	note := func(code int, cmd, where string) {
		if found[code] == nil {
			found[code] = map[string][]string{}
		}
		found[code][cmd] = append(found[code][cmd], where)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		script, _, _ := strings.Cut(string(data), "\n-- ")
		pending, pendingAt := "", ""
		sc := bufio.NewScanner(strings.NewReader(script))
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			where := fmt.Sprintf("%s:%d", filepath.Base(f), n)
			if m := shExec.FindStringSubmatch(line); m != nil {
				pending = ""
				cmd := lastSkillstoreCommand(app, m[1])
				if cmd == "" {
					continue
				}
				if c := testExit.FindStringSubmatch(m[1]); c != nil {
					code, _ := strconv.Atoi(c[1])
					note(code, cmd, where)
				} else if strings.Contains(m[1], `echo "exit $?"`) {
					pending, pendingAt = cmd, where
				}
				continue
			}
			if strings.Contains(line, "exec ") && !strings.HasPrefix(line, "#") {
				pending = ""
				continue
			}
			if m := exitLine.FindStringSubmatch(line); m != nil && pending != "" {
				code, _ := strconv.Atoi(m[1])
				note(code, pending, pendingAt)
			}
		}
	}
	return found
}

// lastSkillstoreCommand is the command path of the last skillstore run in
// a shell line ("sync" in 'skillstore --store S sync --json >x; echo ...').
func lastSkillstoreCommand(app *cli.App, sh string) string {
	cmd := ""
	for _, part := range regexp.MustCompile(`;|&&|\|\|`).Split(sh, -1) {
		words := strings.Fields(part)
		if len(words) == 0 || words[0] != "skillstore" {
			continue
		}
		i := 1
		for i < len(words) && isFlagToken(words[i]) {
			if takesValue(app.Flags, words[i]) {
				i++
			}
			i++
		}
		var path []string
		for list := app.Commands; i < len(words); i++ {
			c := findCommand(list, words[i])
			if c == nil {
				break
			}
			path, list = append(path, c.Name), c.Subcommands
		}
		cmd = strings.Join(path, " ")
	}
	return cmd
}

// TestExitCodes checks the exit-code table of docs/conventions.md against
// the binary, command by command: every command of the app is in the table,
// every command the table names exists, and each code the table gives a
// command is checked:
//
//   - 0: the command's --help exits 0;
//   - 1: an error no rule of errors.go matches exits 1 (report), and
//     validate of a broken skill exits 1;
//   - 2: the command with an unknown flag exits 2 with the flag named and
//     the usage hint;
//   - 3: the command, given arguments that reach the store (runArgs), run
//     while this process holds the store lock, exits 3 within
//     --lock-timeout 50ms, naming this process, and every other command
//     (but those of notRunUnderLock) exits with another code; the exit
//     codes of each command's --help say 3 exactly for these commands;
//   - 4: a scenario (testdata/script) asserts the command exits 4, no
//     scenario asserts 4 of a command the table does not name, and the
//     command's --help says 4;
//   - 130, 143: TestInterruptSaysInterrupted interrupts the command with
//     SIGINT, SIGTERM (interruptRuns);
//   - merge-file's 1–127 and 255: one conflict exits 1, three exit 3, a
//     binary file 255.
func TestExitCodes(t *testing.T) {
	rows := readExitTable(t)
	paths, cmds, parents, hidden := commandTree()
	app := newApp(&env{}, nil)
	visible := slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return hidden[p] })

	// code -> the commands the table gives it to.
	claims := map[int]map[string]bool{}
	covered := map[string]bool{}
	for _, r := range rows {
		for _, name := range r.commands {
			if cmds[name] == nil {
				t.Errorf("conventions.md:%d names %q, which is not a command", r.line, name)
			}
		}
		names := r.commands
		if r.all {
			names = append(slices.Clone(visible), r.commands...)
		}
		for _, code := range r.codes {
			if claims[code] == nil {
				claims[code] = map[string]bool{}
			}
			for _, n := range names {
				claims[code][n] = true
				covered[n] = true
			}
		}
	}
	for _, p := range paths {
		if !covered[p] {
			t.Errorf("command %q is in no row of the exit-code table of docs/conventions.md", p)
		}
	}
	for code := range claims {
		switch code {
		case 0, 1, 2, 3, 4, 127, 130, 143, 255:
		default:
			t.Errorf("conventions.md gives exit %d, which TestExitCodes has no check for", code)
		}
	}

	w := t.TempDir()
	home := filepath.Join(w, "home")
	for _, d := range []string{filepath.Join(home, ".config"), filepath.Join(home, ".local", "share"), filepath.Join(home, ".cache"), filepath.Join(w, "out"), filepath.Join(w, "project")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("0 and 2", func(t *testing.T) {
		for _, p := range paths {
			t.Run(p, func(t *testing.T) {
				t.Parallel()
				words := strings.Fields(p)
				if claims[0][p] {
					if r := runExit(t, home, "", append(words, "--help")...); r.code != 0 {
						t.Errorf("the table gives 0 to %q, but --help: %s", p, r)
					}
				}
				r := runExit(t, home, "", append(words, "--no-such-flag")...)
				switch {
				case claims[2][p] && r.code != 2:
					t.Errorf("the table gives 2 to %q, but a bad flag: %s", p, r)
				case claims[2][p] && (!strings.Contains(r.stderr, "skillstore: error: flag provided but not defined: -no-such-flag") ||
					!strings.Contains(r.stderr, "--help' for usage")):
					t.Errorf("a bad flag of %q is not reported as a usage error: %s", p, r)
				case !claims[2][p] && r.code == 2:
					t.Errorf("%q exits 2 on a bad flag, which the table does not say: %s", p, r)
				}
			})
		}
	})

	t.Run("1", func(t *testing.T) {
		if code := report(&bytes.Buffer{}, errors.New("some failure")); code != exitError {
			t.Errorf("an error no rule of errors.go matches exits %d, not 1", code)
		}
		for name := range claims[1] {
			if name != "validate" && !slices.Contains(visible, name) {
				t.Errorf("the table gives 1 to %q, which TestExitCodes has no failing run of", name)
			}
		}
		broken := filepath.Join(w, "broken", "bad")
		if err := os.MkdirAll(broken, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(broken, "SKILL.md"), []byte("---\nname: bad\ndescription: never closed\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := runExit(t, home, "", "validate", broken); claims[1]["validate"] && r.code != 1 {
			t.Errorf("the table gives 1 to validate of a broken skill: %s", r)
		}
	})

	t.Run("3", func(t *testing.T) {
		storeDir := filepath.Join(w, "store")
		if r := runExit(t, home, "", "--store", storeDir, "init"); r.code != 0 {
			t.Fatal(r)
		}
		writeTestSkill(t, filepath.Join(w, "skills", "alpha"), "alpha", "Alpha.")
		for _, f := range []string{"cur1", "base", "oth1"} {
			if err := os.MkdirAll(filepath.Join(w, "merge-busy"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(w, "merge-busy", f), []byte(f+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		lockJSON := `{"version": 1, "plugins": [], "skills": [], "targets": []}` + "\n"
		if err := os.WriteFile(filepath.Join(w, "project", "skillstore-lock.json"), []byte(lockJSON), 0o644); err != nil {
			t.Fatal(err)
		}
		// The help of every command that runs (not a group that only
		// shows its help) says 3 exactly where the table does.
		for _, p := range paths {
			if cmds[p].Action == nil || hidden[p] {
				continue
			}
			says := regexp.MustCompile(`\b3 store`).MatchString(exitCodesOf(cmds[p], parents[p]))
			if says != claims[3][p] {
				t.Errorf("%q: its --help says exit 3 (store busy): %v, the table: %v (%q)", p, says, claims[3][p], exitCodesOf(cmds[p], parents[p]))
			}
		}
		l, err := lockfile.Acquire(context.Background(), filepath.Join(storeDir, "skillstore", "lock"), lockfile.Exclusive, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Release() })
		holder := fmt.Sprintf("locked by pid %d", os.Getpid())
		// Every command that runs, with the lock held: the table's exit 3,
		// naming this process; the others do not wait for the lock.
		t.Run("busy", func(t *testing.T) {
			for _, p := range paths {
				if cmds[p].Action == nil || notRunUnderLock[p] != "" {
					continue
				}
				t.Run(p, func(t *testing.T) {
					t.Parallel()
					args := append([]string{"--store", storeDir, "--lock-timeout", "50ms"}, strings.Fields(p)...)
					args = append(args, strings.Fields(strings.ReplaceAll(runArgs[p], "$W", w))...)
					r := runExit(t, home, w, args...)
					switch {
					case claims[3][p] && r.code != 3:
						t.Errorf("the table gives 3 to %q, but with the store lock held: %s", p, r)
					case claims[3][p] && (!strings.Contains(r.stderr, "skillstore: error: store is busy: ") || !strings.Contains(r.stderr, holder)):
						t.Errorf("%q with the store lock held does not name the holder (%s): %s", p, holder, r)
					case claims[3][p] && strings.TrimSpace(r.stdout) != "":
						t.Errorf("%q with the store lock held reports work on stdout, though it did none: %s", p, r)
					case !claims[3][p] && r.code == 3:
						t.Errorf("%q exits 3 with the store lock held, which the table does not say: %s", p, r)
					}
				})
			}
		})
	})

	t.Run("4", func(t *testing.T) {
		found := scenarioExits(t, app)
		for name := range claims[4] {
			if len(found[4][name]) == 0 {
				t.Errorf("the table gives 4 to %q, but no scenario in testdata/script asserts it", name)
			}
			if !regexp.MustCompile(`\b4 `).MatchString(exitCodesOf(cmds[name], parents[name])) {
				t.Errorf("the table gives 4 to %q, but its --help does not: %q", name, exitCodesOf(cmds[name], parents[name]))
			}
		}
		for name, where := range found[4] {
			if !claims[4][name] {
				t.Errorf("%s asserts that %q exits 4, which the table does not say", where[0], name)
			}
		}
	})

	t.Run("130 and 143", func(t *testing.T) {
		interrupted := map[int]map[string]bool{130: {}, 143: {}}
		for _, r := range interruptRuns {
			interrupted[128+int(r.sig)][r.command] = true
		}
		for _, code := range []int{130, 143} {
			for name := range claims[code] {
				if !interrupted[code][name] {
					t.Errorf("the table gives %d to %q, which TestInterruptSaysInterrupted does not interrupt (interruptRuns)", code, name)
				}
			}
			for name := range interrupted[code] {
				if !claims[code][name] {
					t.Errorf("TestInterruptSaysInterrupted ends %q with %d, which the table does not give it", name, code)
				}
			}
		}
	})

	t.Run("merge-file", func(t *testing.T) {
		for _, code := range []int{127, 255} {
			for name := range claims[code] {
				if name != "merge-file" {
					t.Errorf("the table gives %d to %q: only merge-file has codes of its own", code, name)
				}
			}
		}
		dir := filepath.Join(w, "merge")
		write := func(name, data string) string {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}
		// Lines apart enough that each change is a conflict of its own.
		lines := func(changed map[int]string) string {
			var b strings.Builder
			for i := range 30 {
				if c, ok := changed[i]; ok {
					b.WriteString(c + "\n")
				} else {
					fmt.Fprintf(&b, "line %d\n", i)
				}
			}
			return b.String()
		}
		base := write("base", lines(nil))
		one := runExit(t, home, "", "merge-file", "-p", write("cur1", lines(map[int]string{0: "A"})), base, write("oth1", lines(map[int]string{0: "Z"})))
		three := runExit(t, home, "", "merge-file", "-p", write("cur3", lines(map[int]string{0: "A", 14: "B", 29: "C"})), base,
			write("oth3", lines(map[int]string{0: "Z", 14: "Y", 29: "X"})))
		binary := runExit(t, home, "", "merge-file", "-p", write("bin", "a\x00b\n"), base, write("oth", "a\n"))
		if one.code != 1 || three.code != 3 {
			t.Errorf("merge-file exits with the number of conflicts: one: %s\nthree: %s", one, three)
		}
		if claims[255]["merge-file"] && binary.code != 255 {
			t.Errorf("the table gives 255 to merge-file of a binary file: %s", binary)
		}
	})
}
