package mcpserver

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A log that grew past what it may hold (written by something else) is
// read from its newest part: the records there are kept, the cut line is
// counted as bad, and nothing fails.
func TestReadLoadsOversizedLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loads.jsonl")
	const maxSize = 1 << 10
	a := NewAuditLog(path, maxSize)
	if err := a.Append(Load{Time: time.Unix(1, 0), Client: "old", Skill: "tidy", Version: 1}); err != nil {
		t.Fatal(err)
	}
	// A line far larger than the log may grow, then a real record.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"skill":"junk","client":"` + strings.Repeat("x", 200<<10) + "\"}\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.WriteFile(path+".1", []byte{}, 0o644); err != nil {
		t.Fatal(err)
	}
	appendRaw(t, path, `{"time":"1970-01-01T00:00:02Z","client":"new","skill":"tidy","version":2}`)
	loads, bad, err := ReadLoads(path, maxSize)
	if err != nil {
		t.Fatalf("ReadLoads: %v", err)
	}
	if len(loads) != 1 || loads[0].Client != "new" || bad != 1 {
		first := ""
		if len(loads) > 0 {
			first = loads[0].Client
		}
		t.Fatalf("%d loads (first client %.20q), bad %d; want the newest record and one cut line", len(loads), first, bad)
	}
}

func appendRaw(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int // length of the result
	}{
		{"claude-code", 11},
		{strings.Repeat("a", MaxClientField), MaxClientField},
		{strings.Repeat("a", MaxClientField+1), MaxClientField},
		{strings.Repeat("é", 200), MaxClientField},
		{"a" + strings.Repeat("é", 200), MaxClientField - 1}, // cut before a 2-byte character
	} {
		got := clip(tc.in)
		if len(got) != tc.want {
			t.Errorf("clip(%.20q...) is %d bytes, want %d", tc.in, len(got), tc.want)
		}
		if len(tc.in) > MaxClientField && !strings.HasSuffix(got, clipMark) {
			t.Errorf("clip(%.20q...) = %.20q... without the mark", tc.in, got)
		}
		if !strings.HasPrefix(tc.in, strings.TrimSuffix(got, clipMark)) {
			t.Errorf("clip(%.20q...) is not a prefix of its input", tc.in)
		}
	}
}

func TestReadLine(t *testing.T) {
	in := "short\n" + strings.Repeat("y", 100) + "\nafter\nlast"
	br := bufio.NewReaderSize(strings.NewReader(in), 16)
	var got []string
	for {
		line, tooLong, err := readLine(br, 50)
		if tooLong {
			got = append(got, "<too long>")
		} else if len(line) > 0 {
			got = append(got, string(line))
		}
		if err != nil {
			break
		}
	}
	if strings.Join(got, "|") != "short|<too long>|after|last" {
		t.Fatalf("lines %q", got)
	}
}
