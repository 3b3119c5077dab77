package store

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5"
)

// TestResolveIdentity checks git's order: $GIT_AUTHOR_NAME/EMAIL, then
// user.name/user.email (read by the git CLI, and by the parser when git is
// not on PATH), then the login-based default, which is not Known.
func TestResolveIdentity(t *testing.T) {
	home := t.TempDir()
	global := filepath.Join(home, ".gitconfig")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_AUTHOR_NAME", "")
	t.Setenv("GIT_AUTHOR_EMAIL", "")
	dir := t.TempDir()
	if _, err := git.PlainInit(dir, true); err != nil {
		t.Fatal(err)
	}

	if id := ResolveIdentity(dir); id.Known || id.Name == "" || id.Email == "" {
		t.Errorf("no identity anywhere: %+v, want a default that is not Known", id)
	}

	cfg := "# a comment\n[core]\n\tbare = true\n[user]\n\tname = \"Grace Hopper\"\n\temail = grace@example.com\n"
	if err := os.WriteFile(global, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	want := Signature{Name: "Grace Hopper", Email: "grace@example.com"}
	if _, err := exec.LookPath("git"); err == nil {
		if id := ResolveIdentity(dir); !id.Known || id.Signature != want {
			t.Errorf("with git: %+v, want %+v", id, want)
		}
	}
	if name, email := parseUserConfig(dir); name != want.Name || email != want.Email {
		t.Errorf("parser: %q <%q>, want %+v", name, email, want)
	}
	t.Run("without git on PATH", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		if id := ResolveIdentity(dir); !id.Known || id.Signature != want {
			t.Errorf("%+v, want %+v", id, want)
		}
	})

	// The store's own config wins over the global one, as in git.
	f, err := os.OpenFile(filepath.Join(dir, "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("[user]\n\temail = team@example.com\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if name, email := parseUserConfig(dir); name != "Grace Hopper" || email != "team@example.com" {
		t.Errorf("parser with the store's config: %q <%q>", name, email)
	}

	t.Setenv("GIT_AUTHOR_NAME", "Env Name")
	t.Setenv("GIT_AUTHOR_EMAIL", "env@example.com")
	if id := ResolveIdentity(dir); !id.Known || id.Name != "Env Name" || id.Email != "env@example.com" {
		t.Errorf("environment: %+v", id)
	}
	// Each field falls back on its own, as git does.
	t.Setenv("GIT_AUTHOR_EMAIL", "")
	if id := ResolveIdentity(dir); !id.Known || id.Name != "Env Name" || id.Email != "team@example.com" {
		t.Errorf("name from the environment, email from config: %+v", id)
	}
}

// BenchmarkResolveIdentity measures what finding the author costs a
// command that writes (read-only commands never resolve it): the git CLI
// (one `git config` process) against parsing the files directly, which
// is used when git is not on PATH.
func BenchmarkResolveIdentity(b *testing.B) {
	home := b.TempDir()
	global := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(global, []byte("[user]\n\tname = Bench\n\temail = bench@example.com\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Setenv("HOME", home)
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	b.Setenv("GIT_CONFIG_GLOBAL", global)
	b.Setenv("GIT_AUTHOR_NAME", "")
	b.Setenv("GIT_AUTHOR_EMAIL", "")
	dir := b.TempDir()
	if _, err := git.PlainInit(dir, true); err != nil {
		b.Fatal(err)
	}
	b.Run("git-cli", func(b *testing.B) {
		if _, err := exec.LookPath("git"); err != nil {
			b.Skip("no git on PATH")
		}
		for b.Loop() {
			if !ResolveIdentity(dir).Known {
				b.Fatal("not found")
			}
		}
	})
	b.Run("parser", func(b *testing.B) {
		for b.Loop() {
			if name, _ := parseUserConfig(dir); name != "Bench" {
				b.Fatal("not found")
			}
		}
	})
}
