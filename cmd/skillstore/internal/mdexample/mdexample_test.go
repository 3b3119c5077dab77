package mdexample

import (
	"reflect"
	"strings"
	"testing"
)

const page = "# Quick start\n" +
	"\n" +
	"<!-- runnable -->\n" +
	"```sh\n" +
	"skillstore init\n" +
	"skillstore list\n" +
	"```\n" +
	"\n" +
	"```sh\n" +
	"skillstore not-run\n" +
	"```\n" +
	"<!-- runnable exit=4 setup=upstream-change -->\n" +
	"````bash\n" +
	"skillstore sync\n" +
	"```\n" +
	"````\n" +
	"See [the guide](guide/README.md#review-a-candidate) and `[not](a-link.md)`.\n" +
	"## Review a candidate\n" +
	"## `skillstore sync`, from cron\n" +
	"## Review a candidate\n"

func TestExamples(t *testing.T) {
	got, err := Examples([]byte(page), []string{"upstream-change"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Example{
		{Line: 4, Script: "skillstore init\nskillstore list\n"},
		{Line: 13, Script: "skillstore sync\n```\n", Exit: 4, Setup: "upstream-change"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Examples = %#v\nwant %#v", got, want)
	}
}

func TestExamplesRefusesMislaidMarkers(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"<!-- runnable -->\n\n```sh\nx\n```\n", "line 1: runnable marker: the next line must open a sh or bash code block"},
		{"<!-- runnable -->\n```console\n$ x\n```\n", "must open a sh or bash code block, not \"```console\""},
		{"text\n<!-- runnable exit=four -->\n```sh\nx\n```\n", "line 2: exit=four is not an exit status"},
		{"<!-- runnable: yes -->\n```sh\nx\n```\n", "line 1: bad runnable marker"},
		{"<!-- runnable exit=300 -->\n```sh\nx\n```\n", "exit=300 is not an exit status"},
		{"<!-- runnable setup=network -->\n```sh\nx\n```\n", "setup=network is not one of upstream-change"},
		{"<!-- runnable timeout=3 -->\n```sh\nx\n```\n", "unknown attribute \"timeout\""},
		{"<!-- runnable -->\n```sh\nx\n", "is never closed"},
		{"<!-- runnable -->", "no code block follows"},
	} {
		_, err := Examples([]byte(tc.src), []string{"upstream-change"})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Examples(%q) = %v, want an error holding %q", tc.src, err, tc.want)
		}
	}
}

func TestLinksAndAnchors(t *testing.T) {
	links := Links([]byte(page))
	if want := []Link{{Line: 17, Target: "guide/README.md#review-a-candidate"}}; !reflect.DeepEqual(links, want) {
		t.Errorf("Links = %v, want %v (nothing from code blocks or code spans)", links, want)
	}
	anchors := Anchors([]byte(page))
	for _, id := range []string{"quick-start", "review-a-candidate", "skillstore-sync-from-cron", "review-a-candidate-1"} {
		if !anchors[id] {
			t.Errorf("Anchors lacks %q: %v", id, anchors)
		}
	}
	if anchors["skillstore-not-run"] {
		t.Errorf("a line in a code block was read as a heading: %v", anchors)
	}
}

func TestWorkflows(t *testing.T) {
	src := "Run it in CI:\n" +
		"\n" +
		"<!-- workflow name=ci-install -->\n" +
		"```yaml\n" +
		"- uses: actions/checkout@v4\n" +
		"- name: restore the skills\n" +
		"  run: skillstore install --frozen\n" +
		"```\n" +
		"```yaml\n" +
		"- run: not marked\n" +
		"```\n"
	got, err := Workflows([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Workflow{{Name: "ci-install", Line: 4, Steps: []Step{
		{Uses: "actions/checkout@v4"},
		{Name: "restore the skills", Run: "skillstore install --frozen"},
	}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Workflows = %#v\nwant %#v", got, want)
	}
	for _, tc := range []struct{ src, want string }{
		{"<!-- workflow -->\n```yaml\n- run: x\n```\n", "line 1: bad workflow marker"},
		{"<!-- workflow name=a b -->\n```yaml\n- run: x\n```\n", "bad workflow marker"},
		{"<!-- workflow name=a -->\n```sh\nx\n```\n", "must open a yaml or yml code block"},
		{"<!-- workflow name=a -->\n```yaml\nsteps: []\n```\n", "line 2: workflow a: not a list of steps"},
		{"<!-- workflow name=a -->\n```yaml\n- run: x\n  env: {A: b}\n```\n", "not a list of steps"},
		{"<!-- workflow name=a -->\n```yaml\n- run: x\n  uses: y\n```\n", "step 1 needs exactly one of uses and run"},
		{"<!-- workflow name=a -->\n```yaml\n- run: x\n", "is never closed"},
	} {
		_, err := Workflows([]byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Workflows(%q) = %v, want an error holding %q", tc.src, err, tc.want)
		}
	}
}
