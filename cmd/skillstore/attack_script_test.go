package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// Script commands that build hostile inputs for the attack scenarios.
func init() {
	addScriptCmd("mkfifo", cmdMkFIFO)
	addScriptCmd("gitwidetree", cmdGitWideTree)
}

// mkfifo PATH makes a FIFO (named pipe) at PATH: a read of it with no
// writer blocks forever.
func cmdMkFIFO(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo PATH")
	}
	ts.Check(mkfifo(ts.MkAbs(args[0])))
}

// gitwidetree REPO DIR N stages N empty files f000000... in the folder DIR
// of the git repository REPO (commit them with git commit). It uses git's
// plumbing (hash-object, mktree, read-tree): no work tree of N files is
// written, so a tree of 100,000 entries takes a fraction of a second.
func cmdGitWideTree(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: gitwidetree REPO DIR N")
	}
	repo, dir := ts.MkAbs(args[0]), strings.Trim(args[1], "/")
	n, err := strconv.Atoi(args[2])
	ts.Check(err)
	git := func(stdin string, args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+ts.Getenv("GIT_CONFIG_GLOBAL"))
		out, err := cmd.Output()
		if err != nil {
			ts.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	empty := git("", "hash-object", "-w", "--stdin")
	var list strings.Builder
	for i := range n {
		fmt.Fprintf(&list, "100644 blob %s\tf%06d\n", empty, i)
	}
	tree := git(list.String(), "mktree")
	git("", "read-tree", "--prefix="+dir+"/", tree)
}
