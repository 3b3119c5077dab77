package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	addScriptCmd("mcpraw", mcpRaw)
}

// bigPlaceholder in an mcpraw line stands for N bytes of 'x', so a
// scenario can send a line of megabytes without holding it.
var bigPlaceholder = regexp.MustCompile(`\{\{x(\d+)\}\}`)

// mcpRaw starts 'skillstore mcp' on $SKILLSTORE_DIR and writes the lines
// of FILE to its stdin as a client that misbehaves would, byte for byte:
// a line starting "> " is sent (without the marker) and one reply line is
// awaited (10 s at most), a line starting "- " is sent and nothing awaited.
// {{xN}} in a line stands for N bytes of 'x'. Each reply is printed as it
// came; then stdin is closed and "exit N" printed with the server's exit
// code, so a scenario checks both that it answered and that it lived.
//
//	mcpraw FILE
func mcpRaw(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mcpraw FILE")
	}
	script := ts.ReadFile(args[0])
	bin, err := exec.LookPath("skillstore")
	ts.Check(err)
	cmd := exec.Command(bin, "--store", ts.Getenv("SKILLSTORE_DIR"), "mcp")
	cmd.Env = os.Environ()
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "TZ", "NO_COLOR"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	cmd.Stderr = ts.Stderr()
	stdin, err := cmd.StdinPipe()
	ts.Check(err)
	stdout, err := cmd.StdoutPipe()
	ts.Check(err)
	ts.Check(cmd.Start())
	replies := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for sc.Scan() {
			replies <- sc.Text()
		}
		close(replies)
	}()
	for _, line := range strings.Split(strings.TrimRight(script, "\n"), "\n") {
		mark, body, ok := strings.Cut(line, " ")
		if !ok || (mark != ">" && mark != "-") {
			ts.Fatalf("mcpraw %s: line %q does not start with '> ' or '- '", args[0], line)
		}
		if err := writeExpanded(stdin, body); err != nil {
			ts.Fatalf("mcpraw: write: %v", err)
		}
		if mark == "-" {
			continue
		}
		select {
		case r, ok := <-replies:
			if !ok {
				ts.Fatalf("mcpraw: the server closed its output instead of answering %.80q", body)
			}
			fmt.Fprintln(ts.Stdout(), r)
		case <-time.After(10 * time.Second):
			ts.Fatalf("mcpraw: no reply within 10s to %.80q", body)
		}
	}
	stdin.Close()
	for r := range replies {
		fmt.Fprintln(ts.Stdout(), r)
	}
	code := 0
	if err := cmd.Wait(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			ts.Fatalf("mcpraw: %v", err)
		}
		code = ee.ExitCode()
	}
	fmt.Fprintf(ts.Stdout(), "exit %d\n", code)
}

// writeExpanded writes line and a newline, expanding each {{xN}}.
func writeExpanded(w io.Writer, line string) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	rest := line
	for {
		loc := bigPlaceholder.FindStringSubmatchIndex(rest)
		if loc == nil {
			break
		}
		bw.WriteString(rest[:loc[0]])
		n, _ := strconv.Atoi(rest[loc[2]:loc[3]])
		chunk := strings.Repeat("x", 4096)
		for ; n >= len(chunk); n -= len(chunk) {
			bw.WriteString(chunk)
		}
		bw.WriteString(chunk[:n])
		rest = rest[loc[1]:]
	}
	bw.WriteString(rest)
	bw.WriteString("\n")
	return bw.Flush()
}
