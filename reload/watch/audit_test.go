package watch

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func readAuditLines(t *testing.T, path string) []Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []Event
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("%s: line %q: %v", path, sc.Text(), err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// TestAuditFileRotates appends 200 events to a file rotated at 2 KiB: the
// two files stay within the bound, no third file appears, and together
// they hold the latest events in order.
func TestAuditFileRotates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	const maxSize = 2048
	a := NewAuditFile(path, maxSize)
	for i := range 200 {
		ev := Event{ID: "run-" + strconv.Itoa(i), Type: EventReload, Skill: "deploy", Paths: []string{"SKILL.md"}, Files: []string{"deploy/SKILL.md"}}
		if err := a.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{path, path + ".1"} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if info.Size() > maxSize {
			t.Errorf("%s is %d bytes, more than %d", p, info.Size(), maxSize)
		}
	}
	if _, err := os.Stat(path + ".2"); !os.IsNotExist(err) {
		t.Errorf("a third file exists: %v", err)
	}
	evs := append(readAuditLines(t, path+".1"), readAuditLines(t, path)...)
	if len(evs) < 10 {
		t.Fatalf("only %d events kept", len(evs))
	}
	first, _ := strconv.Atoi(strings.TrimPrefix(evs[0].ID, "run-"))
	for i, ev := range evs {
		if want := fmt.Sprintf("run-%d", first+i); ev.ID != want {
			t.Fatalf("event %d is %s, want %s", i, ev.ID, want)
		}
	}
	if evs[len(evs)-1].ID != "run-199" {
		t.Errorf("last event = %s", evs[len(evs)-1].ID)
	}
}

// TestAuditFileSharedByWriters appends from two AuditFiles on one path
// (as two watch processes do) concurrently: every line is whole, none is
// lost across rotations beyond the two files kept.
func TestAuditFileSharedByWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	var wg sync.WaitGroup
	for w := range 2 {
		a := NewAuditFile(path, 1<<16)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				if err := a.Write(Event{ID: fmt.Sprintf("w%d-%d", w, i), Skill: strings.Repeat("s", 50)}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	evs := readAuditLines(t, path)
	if _, err := os.Stat(path + ".1"); err == nil {
		evs = append(readAuditLines(t, path+".1"), evs...)
	}
	if len(evs) != 200 {
		t.Errorf("%d events, want 200", len(evs))
	}
}
