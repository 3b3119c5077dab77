package reload

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// exporterEnv makes the test binary an exporter process that dies by
// SIGKILL: at the exchange numbered by killAtEnv (right after it), or
// whenever the test kills it.
const (
	exporterEnv = "SKILLSTORE_RELOAD_TEST_EXPORTER"
	killAtEnv   = "SKILLSTORE_RELOAD_TEST_KILL_AT"
)

func crashSkills(version string) []Skill {
	skills := benchSkills(100, version)
	if version == "v2" {
		for i := range skills {
			// v2 also adds a file, so a folder mixing versions is detectable
			// by its tree.
			skills[i].Files = append(skills[i].Files, skillfs.File{Path: "references/v2.md", Data: []byte("v2\n")})
		}
	}
	return skills
}

// exporterMain exports v1 and v2 of 100 skills into target, alternately,
// until it is killed.
func exporterMain(target string) int {
	if n, err := strconv.Atoi(os.Getenv(killAtEnv)); err == nil {
		count, exchange := 0, exchangeDirs
		exchangeDirs = func(a, b loc) error {
			err := exchange(a, b)
			if count++; count == n {
				killSelf()
			}
			return err
		}
	}
	ctx := context.Background()
	for i := 0; ; i++ {
		version := "v1"
		if i%2 == 1 {
			version = "v2"
		}
		if _, err := Export(ctx, target, crashSkills(version), ExportOptions{Grace: -1}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if i == 0 {
			fmt.Println("ready")
		}
	}
}

// TestExportSurvivesKill kills exporting processes (kill -9) while they
// stage versions and at chosen points while they switch folders, and checks
// after each kill that every skill folder holds one whole version, that
// status sees no local edit (a switch the record does not show yet is
// recognised as export's own), and that the next export completes.
func TestExportSurvivesKill(t *testing.T) {
	v1, v2 := map[string]skillfs.ID{}, map[string]skillfs.ID{}
	for _, s := range crashSkills("v1") {
		v1[s.Name] = mustTree(t, s.Files...).ID
	}
	for _, s := range crashSkills("v2") {
		v2[s.Name] = mustTree(t, s.Files...).ID
	}
	target := t.TempDir()
	ctx := context.Background()
	// 0: killed by the test while staging; n > 0: dies right after the
	// n-th folder exchange (of 100) of its second export.
	for _, killAt := range []int{0, 1, 37, 100} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), exporterEnv+"="+target, killAtEnv+"="+strconv.Itoa(killAt))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ready := bufio.NewScanner(out).Scan()
		if killAt == 0 && ready {
			time.Sleep(30 * time.Millisecond) // into the next export's staging
			cmd.Process.Kill()
		}
		err = cmd.Wait()
		if st, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ready || !ok || st.Signal() != syscall.SIGKILL {
			t.Fatalf("kill at %d: exporter ended with %v, not by SIGKILL", killAt, err)
		}

		pending := 0
		if rec, err := readRecord(target); err == nil {
			for _, e := range rec.Skills {
				if !e.Pending.IsZero() {
					pending++
				}
			}
		}
		if killAt > 0 && pending == 0 {
			t.Errorf("kill at %d: no switch intent recorded", killAt)
		}
		for name := range v1 {
			tree, err := ReadTree(filepath.Join(target, name))
			if err != nil {
				t.Fatalf("kill at %d: %s: %v", killAt, name, err)
			}
			if tree.ID != v1[name] && tree.ID != v2[name] {
				t.Fatalf("kill at %d: %s holds neither version: %v", killAt, name, tree.Entries)
			}
		}
		st, err := Status(ctx, target, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range st {
			if s.State != StateClean {
				t.Fatalf("kill at %d: %s is %s after the kill", killAt, s.Skill, s.State)
			}
		}
	}
	rep, err := Export(ctx, target, crashSkills("v2"), ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Action.Skipped() {
			t.Fatalf("after the kills: %s %s %s", r.Skill, r.Action, r.Error)
		}
	}
	for name, id := range v2 {
		if tree, err := ReadTree(filepath.Join(target, name)); err != nil || tree.ID != id {
			t.Fatalf("%s after the final export: %v %v", name, tree.TreeID(), err)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(target, skillfs.BookkeepingDir, tmpDir)); len(entries) != 0 {
		t.Errorf("staging left after a complete export: %d entries", len(entries))
	}
}
