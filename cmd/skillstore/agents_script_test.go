package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	addScriptCmd("isolatepath", cmdIsolatePath)
	addScriptCmd("mkskills", cmdMkSkills)
}

// cmdIsolatePath makes $PATH the folders given plus one holding only
// links to skillstore and git, so that target detect finds the agents'
// commands a scenario puts there and none installed on this machine:
// isolatepath DIR...
func cmdIsolatePath(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: isolatepath DIR...")
	}
	own := ts.MkAbs(".isolated-bin")
	ts.Check(os.MkdirAll(own, 0o755))
	for _, name := range []string{"skillstore", "git"} {
		p, err := lookPath(ts.Getenv("PATH"), name)
		if err != nil {
			ts.Fatalf("isolatepath: %v", err)
		}
		link := filepath.Join(own, filepath.Base(p))
		if _, err := os.Lstat(link); err != nil {
			ts.Check(os.Symlink(p, link))
		}
	}
	dirs := []string{own}
	for _, a := range args {
		dirs = append(dirs, ts.MkAbs(a))
	}
	ts.Setenv("PATH", strings.Join(dirs, string(os.PathListSeparator)))
}

// lookPath finds command in the folders of path (exec.LookPath reads the
// test process's $PATH, not the scenario's).
func lookPath(path, command string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		for _, ext := range []string{"", ".exe"} {
			p := filepath.Join(dir, command+ext)
			if info, err := os.Stat(p); err == nil && !info.IsDir() {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("%s: %w", command, exec.ErrNotFound)
}

// cmdMkSkills writes N skills into DIR, PREFIX-000 ... each with a
// description of LEN characters (words, as a person writes them):
// mkskills DIR PREFIX N LEN.
func cmdMkSkills(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: mkskills DIR PREFIX N LEN")
	}
	n, err := strconv.Atoi(args[2])
	ts.Check(err)
	size, err := strconv.Atoi(args[3])
	ts.Check(err)
	words := strings.Fields("use when the user asks to review deploy test debug plan document migrate profile release verify")
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%s-%03d", args[1], i)
		var desc strings.Builder
		for j := 0; desc.Len() < size; j++ {
			if j > 0 {
				desc.WriteByte(' ')
			}
			desc.WriteString(words[(i+j)%len(words)])
		}
		text := desc.String()[:size]
		if strings.HasSuffix(text, " ") { // YAML would drop it
			text = text[:size-1] + "s"
		}
		dir := filepath.Join(ts.MkAbs(args[0]), name)
		ts.Check(os.MkdirAll(dir, 0o755))
		ts.Check(os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: "+text+"\n---\nBody of "+name+".\n"), 0o644))
	}
}
