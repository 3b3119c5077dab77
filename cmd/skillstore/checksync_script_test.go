package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/skillstore/skillstore/cmd/skillstore/app"
)

// Check says what sync will do (issue 25): in every scenario TestScripts
// runs, each `skillstore sync` first runs `skillstore check --json` with
// the same arguments, in the same process, then the sync itself, exactly
// as the scenario asked (its output and exit code are the scenario's to
// check). The two are compared on what sync reports: per skill its name
// and case (classification, versions, whether a candidate is made, its
// conflicts, risk and error), per captured target edit its outcome, per
// exported folder its action, the candidates left waiting, and the exit
// code. A scenario fails at its end, listing every sync check mispredicted.
//
// A scenario whose world changes between the two (a git server made to
// hang, then released) turns the comparison off with
// `env SKILLSTORE_TEST_CHECKSYNC=`, saying why.

// checkSyncEnv names the file where the syncs of one scenario record how
// check and sync compared; empty turns the comparison off.
const checkSyncEnv = "SKILLSTORE_TEST_CHECKSYNC"

// checkSyncRecord is one sync's comparison.
type checkSyncRecord struct {
	Args     []string `json:"args"`
	Mismatch string   `json:"mismatch,omitempty"`
}

// setupCheckSync turns the comparison on for a scenario and fails the
// scenario at its end if check mispredicted any of its syncs.
func setupCheckSync(e *testscript.Env) error {
	log := filepath.Join(e.WorkDir, ".checksync.jsonl")
	e.Setenv(checkSyncEnv, log)
	e.Defer(func() {
		data, err := os.ReadFile(log)
		if err != nil {
			return // no sync ran
		}
		var bad []string
		for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var r checkSyncRecord
			if err := json.Unmarshal(line, &r); err != nil {
				e.T().Fatal(fmt.Sprintf("%s: line %d: %v", log, i+1, err))
			}
			if r.Mismatch != "" {
				bad = append(bad, fmt.Sprintf("sync #%d (%s): %s", i+1, strings.Join(r.Args[1:], " "), r.Mismatch))
			}
		}
		if len(bad) > 0 {
			e.T().Fatal("check did not say what sync then did:\n" + strings.Join(bad, "\n"))
		}
	})
	return nil
}

// scriptMain is the skillstore the scenarios run: run, except that a real
// sync runs check first when the comparison is on.
func scriptMain(args []string) int {
	log := os.Getenv(checkSyncEnv)
	i := commandIndex(args)
	if log == "" || i < 0 || args[i] != "sync" || slices.ContainsFunc(args[i+1:], func(a string) bool {
		return a == "--dry-run" || a == "-n" || a == "--help" || a == "-h"
	}) {
		return run(args, os.Stdin, os.Stdout, os.Stderr)
	}
	checkArgs := slices.Concat(args[:i], []string{"check", "--json"}, args[i+1:])
	var checkOut, checkErr bytes.Buffer
	checkCode := run(checkArgs, strings.NewReader(""), &checkOut, &checkErr)

	var done *app.SyncRun
	code := runEnv(args, &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, syncDone: func(r *app.SyncRun) { done = r }})

	rec := checkSyncRecord{Args: args}
	if checkCode != code {
		rec.Mismatch = fmt.Sprintf("check exits %d, sync %d (check's stderr: %q)", checkCode, code, checkErr.String())
	} else if done != nil {
		syncJSON, err := json.Marshal(done)
		if err == nil {
			rec.Mismatch, err = compareCheckSync(checkOut.Bytes(), syncJSON)
		}
		if err != nil {
			rec.Mismatch = err.Error()
		}
	}
	data, _ := json.Marshal(rec)
	if f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
		f.Write(append(data, '\n'))
		f.Close()
	}
	return code
}

// commandIndex is the index in args of the command word, after the
// global flags (-1: none).
func commandIndex(args []string) int {
	app := newApp(&env{}, nil)
	for i := 1; i < len(args); i++ {
		if !isFlagToken(args[i]) {
			return i
		}
		if takesValue(app.Flags, args[i]) {
			i++
		}
	}
	return -1
}

// The reports as the comparison reads them: the fields of check --json
// and sync --json that say what sync does, read by their JSON names.
type (
	reportedSkill struct {
		Name           string   `json:"name"` // check only
		Action         string   `json:"action"`
		Skill          string   `json:"skill"`
		Classification string   `json:"classification"`
		OldVersion     int      `json:"old_version"`
		NewVersion     int      `json:"new_version"`
		Candidate      string   `json:"candidate"`
		Superseded     string   `json:"superseded"`
		Conflicts      []string `json:"conflicts"`
		Risk           string   `json:"risk"`
		Error          string   `json:"error"`
		Paths          []string `json:"paths"`
	}
	reportedPlugin struct {
		Plugin  string          `json:"plugin"`
		Skipped string          `json:"skipped"`
		Error   string          `json:"error"`
		Skills  []reportedSkill `json:"skills"`
		Parts   *reportedSkill  `json:"parts"`
	}
	reportedCapture struct {
		Target    string   `json:"target"`
		Skill     string   `json:"skill"`
		Outcome   string   `json:"outcome"`
		Version   string   `json:"version"`
		Conflicts []string `json:"conflicts"`
		Error     string   `json:"error"`
	}
	reportedExport struct {
		Target  string `json:"target"`
		Error   string `json:"error"`
		Results []struct {
			Skill  string `json:"skill"`
			Folder string `json:"folder"`
			Action string `json:"action"`
			Error  string `json:"error"`
		} `json:"results"`
	}
	syncReportJSON struct {
		Plugins           []reportedPlugin  `json:"plugins"`
		CandidatesWaiting int               `json:"candidates_waiting"`
		Captured          []reportedCapture `json:"captured"`
		Exported          []reportedExport  `json:"exported"`
	}
)

// compareCheckSync compares check --json with sync --json, line by line
// of what sync did; it returns the difference ("" when none).
func compareCheckSync(checkJSON, syncJSON []byte) (string, error) {
	var check, sync syncReportJSON
	if err := json.Unmarshal(checkJSON, &check); err != nil {
		return "", fmt.Errorf("check --json does not parse: %v: %s", err, checkJSON)
	}
	if err := json.Unmarshal(syncJSON, &sync); err != nil {
		return "", fmt.Errorf("sync --json does not parse: %v", err)
	}
	want, got := checkLines(check), syncLines(sync)
	if slices.Equal(want, got) {
		return "", nil
	}
	return fmt.Sprintf("\n  check said:\n    %s\n  sync did:\n    %s", strings.Join(want, "\n    "), strings.Join(got, "\n    ")), nil
}

// checkLines are check's lines: check lists, under the names sync
// prints, only the skills sync would report.
func checkLines(r syncReportJSON) []string {
	out := commonLines(r)
	for _, p := range r.Plugins {
		out = append(out, pluginLine(p))
		for _, sk := range p.Skills {
			cand := sk.Candidate // one that waits already
			if sk.Action == "candidate" || sk.Action == "conflict" {
				cand = "a new one"
			}
			out = append(out, skillLine(sk.Name, sk, cand))
		}
	}
	return out
}

// syncLines are sync's lines: every skill it reports changed, then the
// plugin's parts, named PLUGIN:SKILL.
func syncLines(r syncReportJSON) []string {
	out := commonLines(r)
	for _, p := range r.Plugins {
		out = append(out, pluginLine(p))
		skills := p.Skills
		if p.Parts != nil {
			skills = append(skills, *p.Parts)
		}
		for _, sk := range skills {
			if sk.Classification == "unchanged" && sk.Error == "" && sk.Superseded == "" {
				continue
			}
			name := p.Plugin + ":" + sk.Skill
			if strings.HasSuffix(sk.Skill, ":_plugin") {
				name = sk.Skill
			}
			cand := sk.Candidate // one that waits already
			if cand != "" && sk.Classification != "candidate-pending" {
				cand = "a new one"
			}
			out = append(out, skillLine(name, sk, cand))
		}
	}
	return out
}

func skillLine(name string, sk reportedSkill, candidate string) string {
	return fmt.Sprintf("skill %s: %s v%d -> v%d, candidate %q, conflicts %q, risk %q, superseded %v, paths %q, error %q",
		name, sk.Classification, sk.OldVersion, sk.NewVersion, candidate, sk.Conflicts, sk.Risk, sk.Superseded != "", sk.Paths, sk.Error)
}

func pluginLine(p reportedPlugin) string {
	return fmt.Sprintf("plugin %s: skipped %q, error %q", p.Plugin, p.Skipped, p.Error)
}

// commonLines are the lines both reports have in the same form: the
// captures, the exports and the candidates left waiting.
func commonLines(r syncReportJSON) []string {
	var out []string
	for _, c := range r.Captured {
		out = append(out, fmt.Sprintf("capture %s/%s: %s %s, conflicts %q, error %q", c.Target, c.Skill, c.Outcome, c.Version, c.Conflicts, c.Error))
	}
	for _, te := range r.Exported {
		out = append(out, fmt.Sprintf("export %s: error %q", te.Target, te.Error))
		for _, x := range te.Results {
			out = append(out, fmt.Sprintf("export %s/%s (%s): %s, error %q", te.Target, x.Skill, x.Folder, x.Action, x.Error))
		}
	}
	return append(out, fmt.Sprintf("candidates waiting: %d", r.CandidatesWaiting))
}
