package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// update rewrites the golden outputs in testdata/script/*.txtar:
// go test ./cmd/skillstore -update
var update = flag.Bool("update", false, "rewrite testscript golden outputs")

func TestMain(m *testing.M) {
	// Under -race every process sleeps 1s at exit (GORACE atexit_sleep_ms
	// defaults to 1000) so late race reports can print. Scenarios and the
	// reliability tests start hundreds of skillstore processes, which inherit
	// GORACE, so make it no sleep unless the caller chose a value (the
	// Makefile sets the same). Races are still detected and reported.
	if os.Getenv("GORACE") == "" {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	testscript.Main(m, map[string]func(){
		"skillstore": func() { os.Exit(scriptMain(os.Args)) },
	})
}

// TestScripts runs the end-to-end scenarios in testdata/script; each
// sync in them is compared with the check run just before it
// (checksync_script_test.go).
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Setup: func(e *testscript.Env) error {
			if err := setupScript(e); err != nil {
				return err
			}
			return setupCheckSync(e)
		},
		Cmds: scriptCmds,
		Condition: func(cond string) (bool, error) {
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// setupScript makes every scenario hermetic: its own HOME, XDG directories,
// store and git identity, and no system or global git configuration.
func setupScript(e *testscript.Env) error {
	home := filepath.Join(e.WorkDir, "home")
	for _, d := range []string{home, filepath.Join(home, ".config"), filepath.Join(home, ".local", "share"), filepath.Join(home, ".cache")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	e.Setenv("HOME", home)
	e.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	e.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	e.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	e.Setenv("SKILLSTORE_DIR", filepath.Join(e.WorkDir, "store"))
	e.Setenv("SKILLSTORE_PATH", "")
	e.Setenv("SKILLSTORE_SYSTEM_PATH", "")
	// The machine's own /etc/skillstore/policy never reaches a scenario;
	// one that tests the system scope writes $WORK/etc/skillstore/policy.
	e.Setenv("SKILLSTORE_SYSTEM_POLICY", filepath.Join(e.WorkDir, "etc", "skillstore", "policy"))
	e.Setenv("NO_COLOR", "1")
	// A message's wrap points move with the length of $WORK, so the
	// scenarios match messages whole; report_width.txtar tests wrapping.
	e.Setenv("SKILLSTORE_WIDTH", "0")
	e.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	e.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	e.Setenv("GIT_AUTHOR_NAME", "Test Author")
	e.Setenv("GIT_AUTHOR_EMAIL", "author@example.com")
	e.Setenv("GIT_COMMITTER_NAME", "Test Author")
	e.Setenv("GIT_COMMITTER_EMAIL", "author@example.com")
	e.Setenv("TZ", "UTC")
	// GitHub addresses (owner/repo, https://github.com/...) resolve under
	// $WORK/github, where scenarios build bare repositories: no scenario
	// reaches the network.
	e.Setenv("SKILLSTORE_GITHUB_URL", "file://"+filepath.Join(e.WorkDir, "github"))
	return nil
}

// scriptCmds are the custom testscript commands. Each is registered from
// its own file's init with addScriptCmd so files can be added independently.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){}

func addScriptCmd(name string, fn func(ts *testscript.TestScript, neg bool, args []string)) {
	scriptCmds[name] = fn
}
