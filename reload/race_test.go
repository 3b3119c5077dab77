package reload

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// The edit-race test runs its editor in a separate process (this test
// binary re-executed with appenderEnv set to the file to edit), the way a
// person's editor or a script appends to SKILL.md while export runs.
const appenderEnv = "SKILLSTORE_RELOAD_TEST_APPENDER"

// appenderMain appends one numbered line to file about every 2 ms (open
// with O_APPEND, write, close), in bursts of five with a pause of up to
// 40 ms between bursts so that some exports find the folder clean, until
// the stop file appears. It prints the number of every append whose open,
// write and close all succeeded: the edits the editor saw acknowledged.
func appenderMain(spec string) int {
	file, stop, _ := strings.Cut(spec, "|")
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for n := 1; ; n++ {
		if _, err := os.Stat(stop); err == nil {
			return 0
		}
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
		if err == nil {
			_, err = fmt.Fprintf(f, "edit-%d\n", n)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err == nil {
			fmt.Fprintln(out, n)
		}
		time.Sleep(2 * time.Millisecond)
		if n%5 == 0 {
			time.Sleep(time.Duration(rand.IntN(40)) * time.Millisecond)
		}
	}
}

var editRE = regexp.MustCompile(`(?m)^edit-(\d+)$`)

// editsIn adds the edit numbers found in data to seen.
func editsIn(data []byte, seen map[int]bool) {
	for _, m := range editRE.FindAllSubmatch(data, -1) {
		n, _ := strconv.Atoi(string(m[1]))
		seen[n] = true
	}
}

// TestExportKeepsEditsThatRaceIt exports a new version of a skill round
// after round while another process appends to its SKILL.md every ~2 ms.
// Between rounds the folder is "captured" (read, and adopted as export's
// own), as capture does. Every acknowledged append must afterwards be in
// something capture stored, in the folder, or in a raced edit that
// Status reports: zero lost.
func TestExportKeepsEditsThatRaceIt(t *testing.T) {
	if testing.Short() {
		t.Skip("race test runs for a few seconds")
	}
	ctx := context.Background()
	target := t.TempDir()
	dir := filepath.Join(target, "deploy")
	version := func(i int) Skill {
		return Skill{Name: "deploy", Files: skillFiles(fmt.Sprintf("version %d\n", i), "v")}
	}
	export(t, target, version(0))

	stop := filepath.Join(t.TempDir(), "stop")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), appenderEnv+"="+filepath.Join(dir, "SKILL.md")+"|"+stop)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := make(chan []int, 1)
	go func() {
		var ns []int
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			n, _ := strconv.Atoi(sc.Text())
			ns = append(ns, n)
		}
		acked <- ns
	}()

	stored := map[int]bool{} // edits that a capture read and kept
	capture := func() {
		// A few tries: while the editor writes faster than a capture reads
		// (under the race detector) the folder just stays modified.
		for range 3 {
			files, err := ReadDir(dir)
			if err != nil {
				t.Fatalf("read %s: %v", dir, err)
			}
			if md, ok := skillfs.Find(files, "SKILL.md"); ok {
				editsIn(md.Data, stored)
			}
			err = Adopt(ctx, target, "deploy", files, 0)
			if err == nil || !errors.Is(err, ErrFolderChanged) {
				if err != nil {
					t.Fatalf("adopt: %v", err)
				}
				return
			}
		}
	}
	switched, undone := 0, 0
	// The work is bounded by rounds and by wall time (a slow machine, the
	// race detector), never asserted on.
	budget := time.Now().Add(20 * time.Second)
	for round := 1; round <= 600 && (switched < 100 || undone < 40) && time.Now().Before(budget); round++ {
		capture()
		rep, err := Export(ctx, target, []Skill{version(round)}, ExportOptions{})
		if err != nil {
			t.Fatalf("round %d: export: %v", round, err)
		}
		switch rep.Results[0].Action {
		case ActionHot:
			switched++
		case ActionLocallyModified:
			if len(rep.Results[0].Paths) == 0 { // edited during the switch
				undone++
			}
		}
	}
	if err := os.WriteFile(stop, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ns := <-acked
	if err := cmd.Wait(); err != nil {
		t.Fatalf("appender: %v", err)
	}

	found := map[int]bool{}
	for n := range stored {
		found[n] = true
	}
	data, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	editsIn(data, found)
	sts, err := Status(ctx, target, 0)
	if err != nil {
		t.Fatal(err)
	}
	raced := 0
	for _, st := range sts {
		if st.State != StateRaced {
			continue
		}
		raced++
		data, err := os.ReadFile(filepath.Join(st.Dir, "SKILL.md"))
		if err != nil {
			t.Fatal(err)
		}
		editsIn(data, found)
	}
	var lost []int
	for _, n := range ns {
		if !found[n] {
			lost = append(lost, n)
		}
	}
	t.Logf("%d acknowledged edits, %d switches, %d exports backed off, %d raced edits kept", len(ns), switched, undone, raced)
	if len(lost) > 0 {
		t.Fatalf("%d acknowledged edits lost: %v", len(lost), lost)
	}
	if switched == 0 {
		t.Fatal("no export replaced the folder: the race was not exercised")
	}
}
