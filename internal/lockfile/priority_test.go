package lockfile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestReaderLoopHelper is not a test: TestWaitingWriterGoesBeforeNewReaders
// runs it in other processes. It takes the shared side, holds it 20 ms
// (a read), drops it and starts again at once, until the stop file exists.
func TestReaderLoopHelper(t *testing.T) {
	path := os.Getenv("LOCKFILE_READER_LOOP")
	if path == "" {
		t.Skip("helper process only")
	}
	first := true
	for rounds := 0; ; rounds++ {
		if _, err := os.Stat(path + ".stop"); err == nil {
			fmt.Printf("rounds %d\n", rounds)
			os.Exit(0)
		}
		l, err := Acquire(context.Background(), path, Shared, time.Minute)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		if first {
			fmt.Println("reading")
			first = false
		}
		time.Sleep(20 * time.Millisecond)
		l.Release()
	}
}

// TestWaitingWriterGoesBeforeNewReaders starts six processes that read in
// a loop, so that at every moment some reader holds the shared side. A
// writer with a 3 s lock timeout must still get the lock (before the gate,
// it gave up: the readers' overlapping holds never left the lock free).
func TestWaitingWriterGoesBeforeNewReaders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	var readers []*exec.Cmd
	for range 6 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestReaderLoopHelper$")
		cmd.Env = append(os.Environ(), "LOCKFILE_READER_LOOP="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || line != "reading\n" {
			t.Fatalf("reader: %q, %v", line, err)
		}
		readers = append(readers, cmd)
	}
	time.Sleep(200 * time.Millisecond) // the loops overlap
	for i := range 3 {
		w, err := Acquire(context.Background(), path, Exclusive, 3*time.Second)
		if err != nil {
			t.Fatalf("writer %d starved by six reader loops: %v", i, err)
		}
		w.Release()
		// The readers get their turn again.
		r, err := Acquire(context.Background(), path, Shared, 3*time.Second)
		if err != nil {
			t.Fatalf("reader after writer %d: %v", i, err)
		}
		r.Release()
	}
	if err := os.WriteFile(path+".stop", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range readers {
		if err := cmd.Wait(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			t.Errorf("reader loop: %v", err)
		}
	}
}
