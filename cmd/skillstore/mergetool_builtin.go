package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/urfave/cli/v2"
)

// runBuiltin has git mergetool run one of git's built-in tools, which
// have no cmd in the configuration: git knows how to call each. It builds
// what git mergetool works on, a scratch repository whose index holds the
// file's three stages (base, local, remote) and whose work tree holds the
// file with markers, runs 'git mergetool --tool NAME' there, and copies the
// result back into the work folder.
func (t mergetool) runBuiltin(c *cli.Context, w *workFolder, sides, path string) error {
	repo := filepath.Join(sides, "repo")
	if _, err := os.Stat(filepath.Join(repo, ".git")); err != nil {
		if _, err := gitIn(c, "", nil, "init", "-q", repo); err != nil {
			return err
		}
	}
	var index strings.Builder
	for stage, data := range [][]byte{fileData(w.files.Base, path), fileData(w.files.Ours, path), fileData(w.files.Theirs, path)} {
		if data == nil {
			continue // a side without the file has no stage, as in git (added on both sides: no base)
		}
		id, err := gitIn(c, repo, data, "hash-object", "-w", "--stdin")
		if err != nil {
			return err
		}
		fmt.Fprintf(&index, "100644 %s %d\t%s\n", id, stage+1, path)
	}
	if _, err := gitIn(c, repo, []byte(index.String()), "update-index", "--index-info"); err != nil {
		return err
	}
	merged := filepath.Join(w.dir, filepath.FromSlash(path))
	inRepo := filepath.Join(repo, filepath.FromSlash(path))
	data, err := os.ReadFile(merged)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(inRepo), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(inRepo, data, 0o644); err != nil {
		return err
	}
	e := getEnv(c)
	cmd := exec.CommandContext(c.Context, "git", "-C", repo, "mergetool", "--no-prompt", "--tool="+t.name, "--", path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stdout, e.stderr
	if err := cmd.Run(); err != nil {
		cliout.Printf(e.stdout, "%s: git mergetool --tool=%s failed (%v): left unresolved\n", path, t.name, err)
		return w.unresolved("mergetool", []string{path})
	}
	if data, err = os.ReadFile(inRepo); err != nil {
		return err
	}
	return os.WriteFile(merged, data, 0o644)
}

// gitIn runs git in dir ("" for the working directory) with stdin and
// returns its trimmed output; its error carries git's own message.
func gitIn(c *cli.Context, dir string, stdin []byte, args ...string) (string, error) {
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	cmd := exec.CommandContext(c.Context, "git", args...)
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}
