package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeFileLabelsDoNotLeak runs merge-file twice in one process: the -L
// labels of the first run must not label the second run's conflicts.
func TestMergeFileLabelsDoNotLeak(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"ours": "a\nours\n", "base": "a\nbase\n", "theirs": "a\ntheirs\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := []string{filepath.Join(dir, "ours"), filepath.Join(dir, "base"), filepath.Join(dir, "theirs")}
	mergeFile := func(args ...string) string {
		var stdout, stderr bytes.Buffer
		argv := append(append([]string{"skillstore", "merge-file", "-p"}, args...), files...)
		if code := run(argv, strings.NewReader(""), &stdout, &stderr); code != 1 {
			t.Fatalf("%v: exit %d, want 1 (one conflict): %s", argv, code, stderr.String())
		}
		return stdout.String()
	}
	if out := mergeFile("-L", "mine", "-L", "old", "-L", "new"); !strings.Contains(out, "<<<<<<< mine\n") {
		t.Fatalf("first run not labelled with -L:\n%s", out)
	}
	if out := mergeFile(); !strings.Contains(out, "<<<<<<< "+files[0]+"\n") {
		t.Fatalf("second run must be labelled with the file names:\n%s", out)
	}
}
