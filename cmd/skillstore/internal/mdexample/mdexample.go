// Package mdexample reads what the documentation's tests check in a
// Markdown file: the shell examples marked runnable, which a test runs
// against the built binary, the CI snippets marked workflow (Workflows),
// which a test runs as a CI runner would, and the links, whose targets
// must exist.
//
// An example is runnable when the line right before its fence is the
// marker comment, which a rendered page does not show:
//
//	<!-- runnable -->
//	```sh
//	skillstore init
//	```
//
// The marker may carry attributes: exit=N (the status the block must end
// with; default 0; the block runs with `set -e`, so an earlier failing
// command ends it with another status) and setup=NAME (a step the test
// harness takes before the block, such as making an upstream change).
package mdexample

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Example is one runnable shell block.
type Example struct {
	Line   int    // the line of its opening fence, from 1
	Script string // the block's text
	Exit   int    // the exit status it must end with
	Setup  string // the harness step to take first, or ""
}

var marker = regexp.MustCompile(`^<!--\s*runnable((?:\s+[a-z]+=[A-Za-z0-9-]+)*)\s*-->\s*$`)

// Examples returns the runnable examples of a Markdown file, in order.
// A marker that is not followed by a sh or bash fence, or that names an
// attribute, or a setup not in setups, is an error naming its line: a
// mislaid marker must not leave an example silently unchecked.
func Examples(src []byte, setups []string) ([]Example, error) {
	lines := strings.Split(string(src), "\n")
	var out []Example
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(line, "<!--") || !strings.Contains(line, "runnable") {
			continue
		}
		m := marker.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("line %d: bad runnable marker %q: write <!-- runnable [exit=N] [setup=NAME] -->", i+1, line)
		}
		ex := Example{Line: i + 2}
		if err := parseAttrs(&ex, m[1], setups); err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		body, end, err := fence(lines, i+1, "sh", "bash")
		if err != nil {
			return nil, fmt.Errorf("line %d: runnable marker: %w", i+1, err)
		}
		ex.Script = body
		out = append(out, ex)
		i = end
	}
	return out, nil
}

func parseAttrs(ex *Example, attrs string, setups []string) error {
	for _, kv := range strings.Fields(attrs) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "exit":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 255 {
				return fmt.Errorf("exit=%s is not an exit status", v)
			}
			ex.Exit = n
		case "setup":
			if !slices.Contains(setups, v) {
				return fmt.Errorf("setup=%s is not one of %s", v, strings.Join(setups, ", "))
			}
			ex.Setup = v
		default:
			return fmt.Errorf("unknown attribute %q (exit=N, setup=NAME)", k)
		}
	}
	return nil
}

// fence reads the fence of one of the languages langs that starts at
// lines[i] and returns its body and the index of its closing line.
func fence(lines []string, i int, langs ...string) (string, int, error) {
	if i >= len(lines) {
		return "", i, fmt.Errorf("no code block follows")
	}
	open := strings.TrimSpace(lines[i])
	info := strings.TrimLeft(open, "`")
	ticks := len(open) - len(info)
	if ticks < 3 || !slices.Contains(langs, info) {
		return "", i, fmt.Errorf("the next line must open a %s code block, not %q", strings.Join(langs, " or "), open)
	}
	for j := i + 1; j < len(lines); j++ {
		if strings.TrimSpace(lines[j]) == strings.Repeat("`", ticks) {
			return strings.Join(lines[i+1:j], "\n") + "\n", j, nil
		}
	}
	return "", i, fmt.Errorf("the code block opened on line %d is never closed", i+1)
}
