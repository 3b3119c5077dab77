package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/lockfile"
	"github.com/skillstore/skillstore/store"
)

// These tests run the real skillstore binary as separate processes: the
// test binary itself, which testscript.Main (script_test.go) puts in $PATH
// under the name skillstore.

func skillstoreBin(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("skillstore")
	if err != nil {
		t.Fatalf("skillstore not in PATH (testscript.Main sets it up): %v", err)
	}
	return bin
}

func requireGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
}

// runSkillstore runs the binary to completion and returns stdout, stderr and
// the exit code.
func runSkillstore(t testing.TB, storeDir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(skillstoreBin(t), append([]string{"--store", storeDir}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func mustRun(t testing.TB, storeDir string, args ...string) string {
	t.Helper()
	out, errOut, code := runSkillstore(t, storeDir, args...)
	if code != 0 {
		t.Fatalf("skillstore %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func writeTestSkill(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	content := fmt.Sprintf("---\nname: %s\ndescription: Test skill %s.\n---\n%s\n", name, name, body)
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

var recordedLine = regexp.MustCompile(`(?m)^([a-z0-9-]+)@v(\d+) recorded \(commit ([0-9a-f]{12})`)

type reported struct {
	name   string
	number int
	commit string
}

func parseRecorded(out string) []reported {
	var r []reported
	for _, m := range recordedLine.FindAllStringSubmatch(out, -1) {
		var n int
		fmt.Sscan(m[2], &n)
		r = append(r, reported{m[1], n, m[3]})
	}
	return r
}

// checkStoreSound runs git fsck --strict and skillstore verify, and checks
// that every version reported as written is in the store with that commit.
func checkStoreSound(t *testing.T, storeDir string, written []reported) {
	t.Helper()
	git(t, storeDir, "fsck", "--strict", "--no-dangling")
	out, errOut, code := runSkillstore(t, storeDir, "verify")
	if code != 0 {
		t.Fatalf("skillstore verify: exit %d\n%s%s", code, out, errOut)
	}
	s, err := store.Open(context.Background(), storeDir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(context.Background(), func(r *store.Reader) error {
		for _, w := range written {
			v, err := r.Resolve(fmt.Sprintf("%s@v%d", w.name, w.number))
			if err != nil {
				return fmt.Errorf("version %s@v%d was reported written and is lost: %w", w.name, w.number, err)
			}
			if !strings.HasPrefix(v.Commit.String(), w.commit) {
				return fmt.Errorf("%s@v%d is %s, but %s was reported", w.name, w.number, v.Commit, w.commit)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestStoreSurvivesSIGKILL kills real skillstore processes at random
// moments while they add versions (loose objects, one ref), import 40
// skills (a pack and packed-refs), gc (repack, pack refs, delete) and
// disable/enable a skill (state commits), and
// checks after every tenth kill and at the end that git fsck --strict and
// skillstore verify accept the store and that no version a process
// reported as written is lost.
func TestStoreSurvivesSIGKILL(t *testing.T) {
	requireGit(t)
	const kills = 60
	work := t.TempDir()
	storeDir := filepath.Join(work, "store")
	mustRun(t, storeDir, "init")
	single := filepath.Join(work, "single", "crash")
	root := filepath.Join(work, "root")
	for i := 0; i < 40; i++ {
		writeTestSkill(t, filepath.Join(root, fmt.Sprintf("bulk-%02d", i)), fmt.Sprintf("bulk-%02d", i), "start")
	}
	writeTestSkill(t, single, "crash", "start")
	var written []reported
	written = append(written, parseRecorded(mustRun(t, storeDir, "add", single))...)

	// How long each operation takes when not killed bounds the kill delay.
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	ops := []struct {
		name string
		args func(i int) []string
	}{
		{"add", func(i int) []string {
			writeTestSkill(t, single, "crash", fmt.Sprintf("round %d", i))
			return []string{"add", "--reason", fmt.Sprintf("round %d", i), single}
		}},
		{"import", func(i int) []string {
			for j := 0; j < 40; j++ {
				writeTestSkill(t, filepath.Join(root, fmt.Sprintf("bulk-%02d", j)), fmt.Sprintf("bulk-%02d", j), fmt.Sprintf("round %d", i))
			}
			return []string{"import", root}
		}},
		{"gc", func(int) []string { return []string{"gc", "--grace", "0s"} }},
		{"status", func(i int) []string { // a state commit on refs/skillstore/state
			return []string{[]string{"disable", "enable"}[i%2], "--reason", fmt.Sprintf("round %d", i), "crash"}
		}},
	}
	schedule := []int{0, 1, 0, 3, 0, 2, 1, 3} // add, import, add, status, add, gc, import, status
	durations := map[string]time.Duration{}
	for i, op := range ops {
		start := time.Now()
		written = append(written, parseRecorded(mustRun(t, storeDir, op.args(1000+i)...))...)
		durations[op.name] = time.Since(start)
	}

	killed := 0
	for i := 0; killed < kills; i++ {
		op := ops[schedule[i%len(schedule)]]
		cmd := exec.Command(skillstoreBin(t), append([]string{"--store", storeDir}, op.args(i)...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		delay := time.Duration(rng.Int64N(int64(durations[op.name]) * 12 / 10))
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s exited on its own with %v:\n%s", op.name, err, out.String())
			}
		case <-time.After(delay):
			cmd.Process.Signal(syscall.SIGKILL)
			<-done
			killed++
		}
		// Only what the process printed before dying counts as reported.
		written = append(written, parseRecorded(out.String())...)
		if killed%10 == 0 {
			checkStoreSound(t, storeDir, written)
		}
	}
	checkStoreSound(t, storeDir, written)
	t.Logf("%d kills, %d versions reported written and found", killed, len(written))
}

// TestStoreConcurrentProcesses runs several writer processes adding versions
// of one skill and several reader processes listing it at the same time:
// no reader fails, no version is lost, every number is used once.
func TestStoreConcurrentProcesses(t *testing.T) {
	const writers, addsEach, readers = 4, 6, 3
	work := t.TempDir()
	storeDir := filepath.Join(work, "store")
	mustRun(t, storeDir, "init")

	var mu sync.Mutex
	var written []reported
	var failures []string
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dir := filepath.Join(work, fmt.Sprintf("w%d", w), "shared")
			for i := 0; i < addsEach; i++ {
				writeTestSkill(t, dir, "shared", fmt.Sprintf("writer %d add %d", w, i))
				out, errOut, code := runSkillstore(t, storeDir, "--lock-timeout", "2m", "add", dir)
				mu.Lock()
				if code != 0 {
					failures = append(failures, fmt.Sprintf("writer %d: exit %d: %s", w, code, errOut))
				}
				written = append(written, parseRecorded(out)...)
				mu.Unlock()
			}
		}()
	}
	var rwg sync.WaitGroup
	lists := 0
	for r := 0; r < readers; r++ {
		rwg.Add(1)
		go func() {
			defer rwg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				out, errOut, code := runSkillstore(t, storeDir, "--lock-timeout", "2m", "list", "--json")
				mu.Lock()
				lists++
				if code != 0 {
					failures = append(failures, fmt.Sprintf("reader: exit %d: %s", code, errOut))
				} else if !strings.HasPrefix(out, "[") {
					failures = append(failures, "reader: bad output: "+out)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(stop)
	rwg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d failures:\n%s", len(failures), strings.Join(failures, "\n"))
	}
	seen := map[int]bool{}
	for _, w := range written {
		if seen[w.number] {
			t.Errorf("version number v%d reported twice", w.number)
		}
		seen[w.number] = true
	}
	if len(written) != writers*addsEach {
		t.Errorf("%d versions reported, want %d", len(written), writers*addsEach)
	}
	for n := 1; n <= writers*addsEach; n++ {
		if !seen[n] {
			t.Errorf("v%d missing", n)
		}
	}
	log := mustRun(t, storeDir, "log", "shared")
	if got := strings.Count(log, "\n"); got != writers*addsEach {
		t.Errorf("log has %d versions, want %d", got, writers*addsEach)
	}
	if _, err := exec.LookPath("git"); err == nil {
		checkStoreSound(t, storeDir, written)
	}
	t.Logf("%d versions written while %d lists ran", len(written), lists)
}

// TestStoreGitCompatibility reads a store with the real git CLI: fsck, log
// with the trailers, for-each-ref, clone, and diff between two versions.
func TestStoreGitCompatibility(t *testing.T) {
	requireGit(t)
	work := t.TempDir()
	storeDir := filepath.Join(work, "store")
	mustRun(t, storeDir, "init")
	dir := filepath.Join(work, "src", "greet")
	writeTestSkill(t, dir, "greet", "Say hello.")
	mustRun(t, storeDir, "add", "--reason", "first", dir)
	writeTestSkill(t, dir, "greet", "Say hello, then goodbye.")
	os.WriteFile(filepath.Join(dir, "extra.md"), []byte("more\n"), 0o644)
	mustRun(t, storeDir, "add", "--reason", "second", dir)
	mustRun(t, storeDir, "disable", "greet")
	root := filepath.Join(work, "many")
	for i := 0; i < 40; i++ { // enough for a pack and packed-refs
		writeTestSkill(t, filepath.Join(root, fmt.Sprintf("s%02d", i)), fmt.Sprintf("s%02d", i), "x")
	}
	mustRun(t, storeDir, "import", root)

	git(t, storeDir, "fsck", "--strict")
	log := git(t, storeDir, "log", "--format=%H %s%n%b", "refs/heads/skills/greet")
	for _, want := range []string{"greet v2: second", "greet v1: first", "Skill-Version: 2", "Skill-Version: 1", "Merge-Mode: none", "Source: managed", "Risk: none"} {
		if !strings.Contains(log, want) {
			t.Errorf("git log lacks %q:\n%s", want, log)
		}
	}
	if refs := git(t, storeDir, "for-each-ref", "--format=%(refname)"); strings.Count(refs, "refs/heads/skills/") != 41 || !strings.Contains(refs, "refs/skillstore/state") {
		t.Errorf("for-each-ref:\n%s", refs)
	}
	if state := git(t, storeDir, "show", "refs/skillstore/state:skills/greet.json"); !strings.Contains(state, `"status": "disabled"`) {
		t.Errorf("state record: %s", state)
	}

	clone := filepath.Join(work, "clone")
	git(t, work, "clone", "--quiet", storeDir, clone)
	git(t, clone, "fsck", "--strict")
	diff := git(t, clone, "diff", "origin/skills/greet~1", "origin/skills/greet")
	for _, want := range []string{"-Say hello.", "+Say hello, then goodbye.", "new file mode 100644", "+++ b/extra.md"} {
		if !strings.Contains(diff, want) {
			t.Errorf("git diff lacks %q:\n%s", want, diff)
		}
	}
	// The clone's history is the store's, commit for commit.
	if a, b := git(t, storeDir, "rev-parse", "refs/heads/skills/greet"), git(t, clone, "rev-parse", "origin/skills/greet"); a != b {
		t.Errorf("clone head %s != store head %s", b, a)
	}

	// After gc, git still reads everything.
	mustRun(t, storeDir, "gc")
	git(t, storeDir, "fsck", "--strict")
	if got := git(t, storeDir, "show", "refs/heads/skills/greet~1:SKILL.md"); !strings.Contains(got, "Say hello.") {
		t.Errorf("git show after gc: %s", got)
	}
}

// TestStoreLockBusyExitCode holds the store's write lock in this process and
// checks that a command gives up after --lock-timeout with exit 3 and names
// this process.
func TestStoreLockBusyExitCode(t *testing.T) {
	storeDir := filepath.Join(t.TempDir(), "store")
	mustRun(t, storeDir, "init")
	l, err := lockfile.Acquire(context.Background(), filepath.Join(storeDir, "skillstore", "lock"), lockfile.Exclusive, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	_, errOut, code := runSkillstore(t, storeDir, "--lock-timeout", "200ms", "list")
	if code != exitBusy {
		t.Fatalf("exit %d, want %d: %s", code, exitBusy, errOut)
	}
	// The message may wrap (--width): its words are what counts.
	if want := fmt.Sprintf("locked by pid %d", os.Getpid()); !strings.Contains(strings.Join(strings.Fields(errOut), " "), want) {
		t.Errorf("stderr %q does not contain %q", errOut, want)
	}
	if !strings.Contains(errOut, "hint: wait for that command to finish, or raise --lock-timeout") {
		t.Errorf("stderr lacks the hint: %q", errOut)
	}
}
