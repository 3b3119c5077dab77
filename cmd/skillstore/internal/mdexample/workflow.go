package mdexample

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A guide may show the steps of a CI job (a GitHub Actions snippet) that
// a test runs as written. The marker names the snippet, so a test asks
// for the one it runs:
//
//	<!-- workflow name=ci-install -->
//	```yaml
//	- uses: actions/checkout@v4
//	- run: skillstore install --frozen
//	```
//
// The block is the list of a job's steps, each a `uses` or a `run`
// (with an optional `name`); any other key is an error, so a step the
// test would not run cannot slip in.

// Workflow is one marked list of CI steps.
type Workflow struct {
	Name  string // the marker's name=
	Line  int    // the line of its opening fence, from 1
	Steps []Step
}

// Step is one step of a CI job: an action it uses, or a shell script it
// runs.
type Step struct {
	Name string `yaml:"name"`
	Uses string `yaml:"uses"`
	Run  string `yaml:"run"`
}

// Workflows returns the marked CI snippets of a Markdown file, in order.
// A marker without a name, not followed by a yaml fence, or whose block
// is not a list of steps, is an error naming its line.
func Workflows(src []byte) ([]Workflow, error) {
	lines := strings.Split(string(src), "\n")
	var out []Workflow
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(line, "<!--") || !strings.Contains(line, "workflow") {
			continue
		}
		name, ok := strings.CutPrefix(strings.Join(strings.Fields(strings.TrimSuffix(strings.TrimPrefix(line, "<!--"), "-->")), " "), "workflow name=")
		if !ok || name == "" || strings.ContainsAny(name, " =") || !strings.HasSuffix(line, "-->") {
			return nil, fmt.Errorf("line %d: bad workflow marker %q: write <!-- workflow name=NAME -->", i+1, line)
		}
		body, end, err := fence(lines, i+1, "yaml", "yml")
		if err != nil {
			return nil, fmt.Errorf("line %d: workflow marker: %w", i+1, err)
		}
		w := Workflow{Name: name, Line: i + 2}
		dec := yaml.NewDecoder(bytes.NewReader([]byte(body)))
		dec.KnownFields(true)
		if err := dec.Decode(&w.Steps); err != nil {
			return nil, fmt.Errorf("line %d: workflow %s: not a list of steps: %w", i+2, name, err)
		}
		for k, st := range w.Steps {
			if (st.Uses == "") == (st.Run == "") {
				return nil, fmt.Errorf("line %d: workflow %s: step %d needs exactly one of uses and run", i+2, name, k+1)
			}
		}
		out = append(out, w)
		i = end
	}
	return out, nil
}
