package store

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"time"

	gitconfig "github.com/go-git/go-git/v5/config"
)

// Identity is who makes the changes, found the way git finds the author of
// a commit made in the store: each of name and email from
// $GIT_AUTHOR_NAME/$GIT_AUTHOR_EMAIL, else from git's user.name/user.email.
// Known says both were found there (or given as Options.Actor), so the
// identity names a person rather than a guess from the login and host
// names.
type Identity struct {
	Signature
	Known bool
}

// Identity is the store's identity (Store.Identity), for code that records
// changes on someone's behalf inside a transaction.
func (tx *Tx) Identity() Identity { return tx.s.Identity() }

// gitConfigTimeout bounds the `git config` lookups: a wedged git must not
// hold a command up.
const gitConfigTimeout = 5 * time.Second

// ResolveIdentity finds the author identity for commits in the store at
// dir. user.name and user.email are read with the git CLI when it is on
// PATH (`git --git-dir=DIR config --get-regexp`, one process, about 3.5 ms)
// so that everything git honours counts: $GIT_CONFIG_GLOBAL, includes,
// conditional includes, the system file and the store's own config. Without git, the global files are parsed
// ($GIT_CONFIG_GLOBAL, else $XDG_CONFIG_HOME/git/config then ~/.gitconfig)
// plus the store's config, later files winning as in git; includes are not
// followed then. What is still missing is made from the login and host
// names, as before (Known false).
func ResolveIdentity(dir string) Identity {
	name, email := os.Getenv("GIT_AUTHOR_NAME"), os.Getenv("GIT_AUTHOR_EMAIL")
	if name == "" || email == "" {
		cfgName, cfgEmail := gitUserConfig(dir)
		if name == "" {
			name = cfgName
		}
		if email == "" {
			email = cfgEmail
		}
	}
	id := Identity{Known: name != "" && email != ""}
	if name == "" {
		if u, err := user.Current(); err == nil && u.Username != "" {
			name = u.Username
		} else {
			name = "skillstore"
		}
	}
	if email == "" {
		host, _ := os.Hostname()
		if host == "" {
			host = "localhost"
		}
		email = name + "@" + host
	}
	id.Name, id.Email = name, email
	return id
}

// gitUserConfig returns user.name and user.email as git sees them for the
// repository at dir ("" for what is not set).
func gitUserConfig(dir string) (name, email string) {
	if _, err := exec.LookPath("git"); err == nil {
		return gitConfigUser(dir)
	}
	return parseUserConfig(dir)
}

// gitConfigUser asks git for both keys in one process (a command pays for
// each process it starts); the last value of a key wins, as in git.
func gitConfigUser(dir string) (name, email string) {
	ctx, cancel := context.WithTimeout(context.Background(), gitConfigTimeout)
	defer cancel()
	args := []string{"config", "--get-regexp", `^user\.(name|email)$`}
	if dir != "" {
		args = append([]string{"--git-dir=" + dir}, args...)
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	// GIT_DIR from the caller's environment would point git elsewhere.
	cmd.Env = append(os.Environ(), "GIT_DIR=")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return "", "" // exit 1: neither is set; anything else: treat as not set
	}
	for _, line := range strings.Split(out.String(), "\n") {
		key, value, _ := strings.Cut(line, " ")
		switch strings.ToLower(key) {
		case "user.name":
			name = strings.TrimSpace(value)
		case "user.email":
			email = strings.TrimSpace(value)
		}
	}
	return name, email
}

// parseUserConfig reads the [user] section of the global git config files
// and of the store's own config, in git's order of precedence.
func parseUserConfig(dir string) (name, email string) {
	var files []string
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if home, err := os.UserHomeDir(); err == nil {
			if xdg == "" {
				xdg = filepath.Join(home, ".config")
			}
			files = append(files, filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig"))
		} else if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
	}
	if dir != "" {
		files = append(files, filepath.Join(dir, "config"))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		cfg, err := gitconfig.ReadConfig(bytes.NewReader(data))
		if err != nil {
			continue
		}
		if cfg.User.Name != "" {
			name = cfg.User.Name
		}
		if cfg.User.Email != "" {
			email = cfg.User.Email
		}
	}
	return name, email
}
