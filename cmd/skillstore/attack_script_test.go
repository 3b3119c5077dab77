package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// Script commands that build hostile inputs for the attack scenarios.
func init() {
	addScriptCmd("mkfifo", cmdMkFIFO)
	addScriptCmd("gitwidetree", cmdGitWideTree)
	addScriptCmd("gitdeeptree", cmdGitDeepTree)
	addScriptCmd("mkletters", cmdMkLetters)
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

// gitdeeptree REPO DIR DEPTH NAME stages, in the git repository REPO, one
// file f at the end of a chain of DEPTH folders, each named NAME, inside
// DIR (DIR/NAME/NAME/.../f; commit it with git commit). NAME may be
// written C*N for N times the text C ("x*250"). The tree is made by one
// git fast-import: no folder of the chain is written to disk.
func cmdGitDeepTree(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: gitdeeptree REPO DIR DEPTH NAME")
	}
	repo, dir, name := ts.MkAbs(args[0]), strings.Trim(args[1], "/"), args[3]
	depth, err := strconv.Atoi(args[2])
	ts.Check(err)
	if text, times, ok := strings.Cut(name, "*"); ok {
		n, err := strconv.Atoi(times)
		ts.Check(err)
		name = strings.Repeat(text, n)
	}
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
	chain := strings.Repeat(name+"/", depth) + "f"
	git(fmt.Sprintf("commit refs/gitdeeptree\ncommitter t <t@t> 0 +0000\ndata 0\nM 100644 inline %s\ndata 2\nx\n\n", chain), "fast-import", "--quiet")
	tree := git("", "rev-parse", "refs/gitdeeptree^{tree}")
	git("", "update-ref", "-d", "refs/gitdeeptree")
	git("", "read-tree", "--prefix="+dir+"/", tree)
}

// mkletters FILE NAME LINES SEED writes a SKILL.md for skill NAME whose
// body is LINES lines of one random lowercase letter each, drawn from
// SEED: two such files of different seeds hold the same lines in another
// order, the worst case of a line diff (500,000 lines stay under the
// 1 MiB cap of a SKILL.md).
func cmdMkLetters(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: mkletters FILE NAME LINES SEED")
	}
	n, err := strconv.Atoi(args[2])
	ts.Check(err)
	seed, err := strconv.ParseUint(args[3], 10, 64)
	ts.Check(err)
	r := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: A skill of many short lines.\n---\n", args[1])
	for range n {
		b.WriteByte(byte('a' + r.IntN(26)))
		b.WriteByte('\n')
	}
	path := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(path), 0o755))
	ts.Check(os.WriteFile(path, []byte(b.String()), 0o644))
}
