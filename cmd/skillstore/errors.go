package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/internal/problem"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/pluginsync"
	"github.com/skillstore/skillstore/store/remote"
	"github.com/skillstore/skillstore/store/safety"
)

// Exit codes shared by every command. The table in docs/conventions.md
// says which command exits with which, and when (TestExitCodes checks it
// against the binary); each command's --help ends with its own.
const (
	exitOK    = 0 // success
	exitError = 1 // the command failed; the error says why
	exitUsage = 2 // bad flags or arguments
	exitBusy  = 3 // the store lock could not be taken within --lock-timeout
	// exitReview means sync finished and candidates are waiting for review.
	exitReview = 4
)

// An error a command returns reaches report, which prints it once, to
// stderr, as "skillstore: error: ...", followed by its hints: the error
// table's, then those the error carries (app.Error, made by
// app.UsageErrorf and app.WithHint wherever the mistake is found, here or
// in a workflow).

// codeError ends the command with code, over the error table's: merge-file
// exits 255 when it cannot merge, as git merge-file does.
type codeError struct {
	code int
	err  error
}

func (e *codeError) Error() string { return e.err.Error() }
func (e *codeError) Unwrap() error { return e.err }

// withCode sets the exit code carried by err.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &codeError{code: code, err: err}
}

// silentExit ends the command with code and no message: the command has
// already reported what happened (merge-file's count of conflicts).
type silentExit int

func (s silentExit) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// errorRule gives the exit code and hints for the errors it matches. The
// table below is the one place that says what an error from a package
// means to a person at the terminal; report consults it for every error a
// command returns (commands add hints of their own with withHint).
type errorRule struct {
	match func(error) bool
	code  int
	// silent ends the command with code and no message: the command
	// printed its report already.
	silent bool
	// message, when set, rewrites the error's text.
	message func(error) string
	hint    func(error) string
}

// is matches errors wrapping target.
func is(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

// as matches errors that wrap an E.
func as[E error]() func(error) bool {
	return func(err error) bool {
		var e E
		return errors.As(err, &e)
	}
}

// asE returns the E that err wraps (as matched it).
func asE[E error](err error) E {
	var e E
	errors.As(err, &e)
	return e
}

func hint(text string) func(error) string { return func(error) string { return text } }

var errorRules = []errorRule{
	// A report printed already says what happened.
	{match: is(app.ErrReported), code: exitError, silent: true},
	{match: is(app.ErrReview), code: exitReview, silent: true},

	// The store lock.
	{match: is(store.ErrLockBusy), code: exitBusy,
		message: func(err error) string { return "store is busy: " + err.Error() },
		hint:    hint("wait for that command to finish, or raise --lock-timeout")},

	// Skills and versions.
	{match: as[*store.AmbiguousSkillError](), hint: func(err error) string {
		return "use one of: " + strings.Join(asE[*store.AmbiguousSkillError](err).Typeable(), ", ")
	}},
	{match: as[*store.UnknownPluginSkillError](), hint: hint("a qualified name is PLUGIN:NAME; run 'skillstore plugin list' to see the plugins")},
	{match: as[*store.PluginLacksSkillError](), hint: func(err error) string {
		e := asE[*store.PluginLacksSkillError](err)
		return fmt.Sprintf("run 'skillstore list' to see the skills (plugin %s's are named %s:NAME)", e.Plugin, e.Plugin)
	}},
	{match: as[*store.UnknownSkillError](), hint: hint("run 'skillstore list --all' to see the skills in the store")},
	{match: as[*store.UnknownVersionError](), hint: func(err error) string {
		return fmt.Sprintf("run 'skillstore log %s' to see its versions", asE[*store.UnknownVersionError](err).Skill)
	}},
	{match: as[*store.AmbiguousVersionError](), hint: hint("give more digits of the commit, or name the version as vN")},
	{match: as[*safety.RiskRefusedError](), hint: func(err error) string {
		return "nothing was written; review the findings, and if you trust them rerun with --allow-risk " + asE[*safety.RiskRefusedError](err).Risk.String()
	}},
	{match: as[*safety.RejectedError](), hint: hint("nothing was written; remove or replace the files listed and add again")},
	{match: as[*store.InvalidSkillError](), hint: hint("nothing was written; fix SKILL.md (see 'skillstore validate') and add again")},
	{match: as[*store.CorruptRefError](), hint: hint("run 'skillstore verify' to see everything that is wrong")},
	{match: is(store.ErrObjectNotFound), hint: hint("the store lost an object; run 'skillstore verify' to see everything that is wrong")},
	{match: as[*store.OverlapError](), hint: hint("check out into a folder outside the store")},
	{match: as[*plugins.SkillExistsError](), hint: hint("a managed skill NAME and a plugin's PLUGIN:NAME are different skills; remove or rename the one in the way first")},

	// Plugins.
	{match: is(pluginsync.ErrStrict), hint: hint("without --strict the rest of the plugin goes in, and only those parts are left out, each named")},
	{match: is(plugins.ErrNothingToAccept), hint: hint("nothing holds it back: 'skillstore sync' takes it in as it is")},
	{match: is(store.ErrUnknownPlugin), hint: hint("run 'skillstore plugin list' to see the plugins")},
	{match: as[*plugins.SelectionError](), hint: hint("name skills the source has, or globs such as 'doc*' (quote them); 'skillstore plugin skills PLUGIN' lists a plugin's")},
	{match: as[*plugins.OwnershipError](), hint: hint("adopt or remove the existing skill first, leave it out with --skill '!NAME' (then 'skillstore plugin link PLUGIN NAME' makes a managed copy the plugin's, history kept), or add only another plugin of the source with SOURCE#PLUGIN")},
	{match: is(pluginfmt.ErrRenamed), hint: hint("add the whole marketplace again (SOURCE without #PLUGIN): the plugin takes its new name and keeps its history")},
	{match: func(err error) bool {
		return as[*pluginfmt.EntryError]()(err) && errors.Is(err, transport.ErrRepositoryNotFound)
	}, hint: hint("the marketplace names a repository that cannot be fetched; the other plugins are not affected")},
	{match: func(err error) bool { return as[*pluginfmt.EntryError]()(err) && as[*pluginfmt.Error]()(err) },
		hint: hint("fix that plugin's manifest, or ask its maintainers to; the other plugins of the marketplace are not affected")},
	{match: is(pluginfmt.ErrPathEscapes), hint: hint("a manifest may only name paths inside the plugin's folder")},
	{match: as[*pluginfmt.Error](), hint: hint("fix the manifest, or remove it to use the plain skills/<name>/SKILL.md layout")},
	{match: is(plugins.ErrPluginExists), hint: hint("pick another id with --id, or sync the existing plugin with 'skillstore sync'")},
	{match: as[*plugins.ShorthandError](), hint: func(err error) string {
		e := asE[*plugins.ShorthandError](err)
		return "for a local folder write ./" + e.Arg + "; for GitHub check the owner and the repository's name (" + plugins.GitHubURLEnv + " replaces https://github.com)"
	}},
	{match: is(pluginfmt.ErrNoSkills), hint: hint("if the skills live deeper in the source, name their folder with --path DIR (or SOURCE#DIR/)")},

	// Remotes.
	{match: as[*remote.PushRefusedError](), hint: hint("run 'skillstore pull', accept or resolve the merge candidates it reports, then push again")},
	{match: is(remote.ErrRemoteRejected), hint: hint("if someone pushed meanwhile, run 'skillstore pull' and push again; otherwise check the server's branch protection and hooks")},
	{match: as[*remote.UnsafeRemoteError](), hint: func(err error) string {
		if risk := asE[*remote.UnsafeRemoteError](err).RiskOnly; risk != safety.RiskNone {
			return "nothing was written; review the findings, and if you trust them pull again with --allow-risk " + risk.String()
		}
		return "nothing was written; the history on the server breaks the store's rules (listed above): fix it there, no flag takes it in"
	}},
	{match: as[*remote.BadRefError](), hint: hint("nothing was written; delete or rename those refs on the server ('git push REMOTE :REF'), no flag takes them in")},
	{match: as[*remote.TooManySkillsError](), hint: func(err error) string {
		return fmt.Sprintf("check that the remote is the store you meant; if it is, rerun with --max-new-skills %d", asE[*remote.TooManySkillsError](err).New)
	}},
	{match: as[*remote.RemoteLayoutError](), hint: func(err error) string { return asE[*remote.RemoteLayoutError](err).Hint() }},
	{match: is(remote.ErrNoRemote), hint: hint("add one with 'skillstore remote add origin URL'")},
	{match: is(remote.ErrUnknownRemote), hint: hint("run 'skillstore remote list' to see the remotes")},
	{match: is(remote.ErrRemoteExists), hint: hint("remove it first with 'skillstore remote rm NAME', or pick another name")},
	{match: is(remote.ErrRemoteAuth), hint: hint("configure a git credential helper (git config --global credential.helper ...) or start an ssh agent")},
	{match: func(err error) bool {
		return as[*remote.Error]()(err) && errors.Is(err, transport.ErrRepositoryNotFound)
	},
		hint: hint("check the URL with 'skillstore remote list'; the repository must exist on the server (git init --bare)")},
	{match: is(transport.ErrRepositoryNotFound), hint: hint("check the source's URL (a plugin's: 'skillstore plugin show PLUGIN'); the repository must exist and be readable")},
	{match: as[*gitfetch.URLError](), hint: func(err error) string {
		if asE[*gitfetch.URLError](err).Reason != "" {
			return "nothing was used: write the URL as the server names the repository (no '..' above the top, no encoded '/', '\\' or '%', no query, no host starting with '-')"
		}
		return "nothing was used: give the URL without control characters; a URL written that way is an attack on git's credential helpers, so do not trust where it came from"
	}},
	{match: as[*gitfetch.RedirectError](), hint: hint("ask whoever runs the server where the repository is now, and use that URL if the source policy allows it")},

	// Targets.
	{match: as[*target.UnknownError](), hint: hint("run 'skillstore target list' to see the targets")},
	{match: as[*target.ExistsError](), hint: func(err error) string {
		e := asE[*target.ExistsError](err)
		if e.Other.Name == e.Name {
			return "remove it first with 'skillstore target rm " + e.Name + "'"
		}
		return "two targets cannot share a folder"
	}},
	{match: as[*target.OverBudgetError](), hint: func(err error) string {
		e := asE[*target.OverBudgetError](err)
		return fmt.Sprintf("select fewer skills for it with 'skillstore target set %s --only PATTERN' or '--except PATTERN' (NAME, PLUGIN:NAME, a plugin, @TAG), or raise the max budget (%s)", e.Target, e.Setting)
	}},
}

// explain applies the first rule of errorRules that matches err: the exit
// code (exitError unless the rule says otherwise), the message's lines and
// a hint. A list of problems is one line each; every piece of text from
// the error is quoted (cliout.Quote), so a name in it never adds a line.
func explain(err error) (code int, lines []string, hints []string, silent bool) {
	code, lines = exitError, problem.ExpandLines(err, cliout.Quote)
	for _, r := range errorRules {
		if !r.match(err) {
			continue
		}
		if r.code != 0 {
			code = r.code
		}
		if r.silent {
			return code, nil, nil, true
		}
		if r.message != nil {
			lines = []string{cliout.Quote(r.message(err))}
		}
		if r.hint != nil {
			hints = append(hints, r.hint(err))
		}
		break
	}
	return code, lines, hints, false
}

// report prints err once to stderr and returns the exit code it carries.
func report(stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	var exit silentExit
	if errors.As(err, &exit) {
		return int(exit)
	}
	code, lines, hints, silent := explain(err)
	if silent {
		return code
	}
	var ae *app.Error
	if errors.As(err, &ae) {
		if ae.Usage {
			code = exitUsage
		}
		hints = append(hints, ae.Hints...)
	}
	var ce *codeError
	var ec cli.ExitCoder
	switch {
	case errors.As(err, &ce):
		code = ce.code
	case ae == nil && errors.As(err, &ec):
		code = ec.ExitCode()
	}
	// The lines are quoted already: the newlines between them are ours.
	message := cliout.Quoted(strings.Join(lines, "\n"))
	if cliout.ColorEnabled(stderr) {
		// The colour goes to the terminal as is; the message is escaped
		// and wrapped as stderr's Writer would.
		line := cliout.WrapLine("skillstore: error: "+cliout.Escape(string(message)), cliout.ReportWidthOf(stderr), "    ")
		line = strings.Replace(line, "error:", cliout.SGRRed+"error:"+cliout.SGRReset, 1)
		fmt.Fprintf(cliout.Raw(stderr), "%s\n", line)
	} else {
		cliout.Printf(stderr, "skillstore: error: %s\n", message)
	}
	for _, h := range hints {
		cliout.Printf(stderr, "skillstore: hint: %s\n", h)
	}
	return code
}
