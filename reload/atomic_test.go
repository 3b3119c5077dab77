package reload

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// The atomicity test runs its readers in a separate process (this test
// binary re-executed with readerEnv set), the way an agent reads a skill
// while skillstore exports into its folder.
const readerEnv = "SKILLSTORE_RELOAD_TEST_READER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(readerEnv); dir != "" {
		os.Exit(readerMain(dir, os.Stdout, os.Stderr))
	}
	if target := os.Getenv(exporterEnv); target != "" {
		os.Exit(exporterMain(target))
	}
	if file := os.Getenv(appenderEnv); file != "" {
		os.Exit(appenderMain(file))
	}
	os.Exit(m.Run())
}

var tokenRE = regexp.MustCompile(`version-token-(\w+)`)

func token(data []byte) string {
	m := tokenRE.FindSubmatch(data)
	if m == nil {
		return ""
	}
	return string(m[1])
}

// readerMain reads the skill folder dir in a loop until the file dir+".stop"
// appears: each round opens the folder once and reads SKILL.md and the
// script through that handle (one version must be seen whole), and reads
// SKILL.md by path (it must never be missing). Any error or mix ends it with
// status 1; on success it prints the number of rounds.
func readerMain(dir string, stdout, stderr *os.File) int {
	fmt.Fprintln(stdout, "ready")
	rounds := 0
	for {
		if _, err := os.Stat(dir + ".stop"); err == nil {
			fmt.Fprintf(stdout, "rounds %d\n", rounds)
			return 0
		}
		if err := readOnce(dir); err != nil {
			fmt.Fprintf(stderr, "round %d: %v\n", rounds, err)
			return 1
		}
		rounds++
	}
}

func readOnce(dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	skill, err := root.ReadFile("SKILL.md")
	if err != nil {
		return err
	}
	script, err := root.ReadFile("scripts/run.sh")
	if err != nil {
		return err
	}
	if a, b := token(skill), token(script); a == "" || a != b {
		return fmt.Errorf("mixed versions: SKILL.md has %q, scripts/run.sh has %q", a, b)
	}
	byPath, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		return err
	}
	if token(byPath) == "" {
		return fmt.Errorf("SKILL.md read by path is incomplete: %q", byPath)
	}
	return nil
}

func versionedSkill(tok string) Skill {
	files := skillFiles("version-token-"+tok+"\n"+strings.Repeat("instructions\n", 200), "version-token-"+tok)
	if tok == "b" {
		// B also adds a file, so the switch is a cold one with a new entry.
		files = append(files, skillfs.File{Path: "references/extra.md", Data: []byte("extra\n")})
	}
	return Skill{Name: "deploy", Files: files}
}

// TestExportIsAtomicForReaders runs 200 exports alternating two versions of
// a skill whose SKILL.md and script carry a matching token, while reader
// processes read both files in a loop: they must never see a mix of
// versions, a missing file or any error.
func TestExportIsAtomicForReaders(t *testing.T) {
	target := t.TempDir()
	ctx := context.Background()
	if _, err := Export(ctx, target, []Skill{versionedSkill("a")}, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(target, "deploy")
	const readers = 2
	type proc struct {
		cmd  *exec.Cmd
		out  bytes.Buffer
		err  bytes.Buffer
		read chan struct{} // closed when stdout is drained
	}
	procs := make([]*proc, readers)
	for i := range procs {
		p := &proc{cmd: exec.Command(os.Args[0], "-test.run=^$"), read: make(chan struct{})}
		p.cmd.Env = append(os.Environ(), readerEnv+"="+dir)
		p.cmd.Stderr = &p.err
		stdout, err := p.cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		if !sc.Scan() || sc.Text() != "ready" {
			t.Fatalf("reader did not start: %s", p.err.String())
		}
		go func() {
			defer close(p.read)
			for sc.Scan() {
				p.out.WriteString(sc.Text() + "\n")
			}
		}()
		procs[i] = p
	}
	stop := func() {
		os.WriteFile(dir+".stop", nil, 0o644)
	}
	defer stop()

	for i := range 200 {
		tok := "a"
		if i%2 == 0 {
			tok = "b"
		}
		rep, err := Export(ctx, target, []Skill{versionedSkill(tok)}, ExportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if a := rep.Results[0].Action; a != ActionCold || !rep.Atomic {
			t.Fatalf("export %d: %s atomic=%v", i, a, rep.Atomic)
		}
	}
	stop()
	for i, p := range procs {
		done := make(chan error, 1)
		go func() {
			<-p.read
			done <- p.cmd.Wait()
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("reader %d failed: %v\n%s", i, err, p.err.String())
			}
		case <-time.After(time.Minute):
			p.cmd.Process.Kill()
			t.Fatalf("reader %d did not stop", i)
		}
		var rounds int
		if _, err := fmt.Sscanf(p.out.String(), "rounds %d", &rounds); err != nil || rounds == 0 {
			t.Errorf("reader %d read nothing: %q", i, p.out.String())
		}
		t.Logf("reader %d: %d rounds during 200 exports", i, rounds)
	}
}
