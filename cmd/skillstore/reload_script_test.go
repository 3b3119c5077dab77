package main

import (
	"os"
	"regexp"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	addScriptCmd("waitfile", cmdWaitFile)
}

// cmdWaitFile waits until FILE exists and, if given, its content matches
// REGEXP: a bound on how long a background watcher may take, not a timing
// assertion.
//
//	waitfile FILE [REGEXP]
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfile FILE [REGEXP]")
	}
	var re *regexp.Regexp
	if len(args) == 2 {
		var err error
		re, err = regexp.Compile(args[1])
		ts.Check(err)
	}
	path := ts.MkAbs(args[0])
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil && (re == nil || re.Match(data)) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	ts.Fatalf("waitfile: %s did not appear (or match) within 30s", args[0])
}
