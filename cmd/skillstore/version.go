package main

import (
	"runtime/debug"
	"sync"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/urfave/cli/v2"
)

// version and commit are set by make release:
//
//	go build -ldflags "-X main.version=v1.2.0 -X main.commit=0123456789ab"
//
// A build without them (go build or go install ./cmd/skillstore from a
// clone, go install of a tagged module) says what Go recorded in the
// binary instead (see versionText).
var (
	version string
	commit  string
)

// versionText is what --version prints after the program's name:
// "VERSION (commit COMMIT)". What make release set wins. Otherwise the
// version is the module's as Go recorded it ("dev" for a build from a
// clone that Go gave none, "(devel)"), and the commit is vcs.revision,
// shortened to 12 digits, with "+dirty" when vcs.modified says the clone
// had changes; "unknown" when Go recorded none (go install of a module
// downloaded from a proxy, go run).
func versionText(version, commit string, info *debug.BuildInfo) string {
	if version == "" && info != nil {
		version = info.Main.Version
	}
	if version == "" || version == "(devel)" {
		version = "dev"
	}
	if commit == "" && info != nil {
		var rev, modified string
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" && modified == "true" {
			rev += "+dirty"
		}
		commit = rev
	}
	if commit == "" {
		commit = "unknown"
	}
	return version + " (commit " + commit + ")"
}

// buildVersion is versionText of this binary.
func buildVersion() string {
	info, _ := debug.ReadBuildInfo()
	return versionText(version, commit, info)
}

// printVersion is the --version output: "skillstore VERSION (commit
// COMMIT)", where urfave/cli would print "skillstore version VERSION".
func printVersion(c *cli.Context) {
	cliout.Println(c.App.Writer, c.App.Name+" "+c.App.Version)
}

// useVersionPrinter makes urfave/cli print --version with printVersion.
// Its printer is a variable of the package, set once for the process
// (tests build many apps, some at once).
var useVersionPrinter = sync.OnceFunc(func() { cli.VersionPrinter = printVersion })
