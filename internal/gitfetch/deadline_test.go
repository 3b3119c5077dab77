package gitfetch

import (
	"context"
	"errors"
	"github.com/go-git/go-git/v5/plumbing"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// stallingServer listens on 127.0.0.1 and, for each connection, writes
// advert (possibly nothing) and then never writes again, as a wedged git
// daemon does. It returns the git:// base URL.
func stallingServer(t *testing.T, advert []byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			c.Write(advert)
		}
	}()
	return "git://" + ln.Addr().String()
}

// advertisement is what git upload-pack says first about dir.
func advertisement(t *testing.T, dir string) []byte {
	t.Helper()
	out, err := exec.Command("git", "upload-pack", "--advertise-refs", dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFetchDeadlines(t *testing.T) {
	up, _, second := upstreamRepo(t)
	cases := []struct {
		name   string
		advert []byte
		step   string
	}{
		{name: "silent after connecting", advert: nil, step: "listing refs"},
		{name: "silent after the ref listing", advert: advertisement(t, up), step: "waiting for the pack"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			url := stallingServer(t, tc.advert) + "/repo"
			repo, err := git.PlainInit(filepath.Join(t.TempDir(), "store"), true)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Fetch(context.Background(), repo.Storer, url, "", skillfs.ZeroID, Options{Timeout: 500 * time.Millisecond})
			var te *TimeoutError
			if !errors.As(err, &te) || !errors.Is(err, ErrTimeout) {
				t.Fatalf("error = %v, want a timeout", err)
			}
			if te.Step != tc.step || te.Timeout != 500*time.Millisecond {
				t.Errorf("timeout at %q after %s, want %q", te.Step, te.Timeout, tc.step)
			}
			if !strings.HasPrefix(err.Error(), "fetch "+url) {
				t.Errorf("error %q does not name the URL", err)
			}
		})
	}
	// A source whose commit the store has needs the ref listing only: the
	// same stalling server answers the fetch, since no pack is asked for.
	t.Run("unchanged needs no pack", func(t *testing.T) {
		repo, err := git.PlainInit(filepath.Join(t.TempDir(), "store"), true)
		if err != nil {
			t.Fatal(err)
		}
		first, err := Fetch(context.Background(), repo.Storer, up, "", skillfs.ZeroID, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := writeFetched(repo, first); err != nil {
			t.Fatal(err)
		}
		url := stallingServer(t, advertisement(t, up)) + "/repo"
		got, err := Fetch(context.Background(), repo.Storer, url, "", first.Commit, Options{Timeout: 5 * time.Second})
		if err != nil || got.Commit.String() != second {
			t.Fatalf("fetch of an unchanged source = %s, %v; want %s", got.Commit, err, second)
		}
	})
}

// writeFetched stores what a fetch brought, as the store's transaction does.
func writeFetched(repo *git.Repository, f Fetched) error {
	var werr error
	err := f.objects.newObjects(func(t plumbing.ObjectType, data []byte) {
		o := &plumbing.MemoryObject{}
		o.SetType(t)
		o.Write(data)
		if _, err := repo.Storer.SetEncodedObject(o); err != nil && werr == nil {
			werr = err
		}
	})
	return errors.Join(err, werr)
}
