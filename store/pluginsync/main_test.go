package pluginsync

import (
	"os"
	"testing"
)

// TestMain runs the tests or, when a benchmark asks for it through the
// environment, one of its measured processes: the launcher
// (benchLaunch) or the add it measures (intakeChild).
func TestMain(m *testing.M) {
	if out, ok := os.LookupEnv(benchLaunchEnv); ok {
		os.Exit(benchLaunch(out, os.Args[1:]))
	}
	if arg, ok := os.LookupEnv(intakeChildEnv); ok {
		os.Exit(intakeChild(arg))
	}
	os.Exit(m.Run())
}
