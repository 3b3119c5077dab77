package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/urfave/cli/v2"
)

// mergetool is a merge tool as git configures it: merge.tool names it,
// mergetool.<name>.cmd is the shell command, run with BASE, LOCAL, REMOTE
// and MERGED set, and mergetool.<name>.trustExitCode says whether its exit
// code tells success. A tool without a cmd is one of git's built-in tools
// (vimdiff, meld, kdiff3, ...): git mergetool itself runs it (builtin.go).
type mergetool struct {
	name      string
	cmd       string
	trustExit bool
}

// configuredMergetool reads the tool from git's configuration with the
// real git CLI, so every place git reads configuration from counts (the
// global and system files, includes, the repository of the working
// directory, GIT_CONFIG_* variables).
func configuredMergetool(c *cli.Context) (mergetool, error) {
	name := c.String("tool")
	if name == "" {
		name, _ = gitOutput(c, "config", "--get", "merge.tool")
	}
	if name == "" {
		return mergetool{}, withHint(errors.New("no merge tool: git config merge.tool is unset"),
			"configure one: git config --global merge.tool NAME; git config --global mergetool.NAME.cmd 'TOOL \"$LOCAL\" \"$BASE\" \"$REMOTE\" -o \"$MERGED\"'",
			"or give --tool NAME, or use 'skillstore candidates edit'")
	}
	cmd, _ := gitOutput(c, "config", "--get", "mergetool."+name+".cmd")
	trust, _ := gitOutput(c, "config", "--type=bool", "--get", "mergetool."+name+".trustExitCode")
	return mergetool{name: name, cmd: cmd, trustExit: trust == "true"}, nil
}

// run resolves one conflicted file of the work folder: it writes the base,
// local and remote versions of the file under sides, then runs the tool.
func (t mergetool) run(c *cli.Context, w *workFolder, sides, path string) error {
	e := getEnv(c)
	env := map[string]string{"MERGED": filepath.Join(w.dir, filepath.FromSlash(path))}
	if fi, err := os.Lstat(env["MERGED"]); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		// A symlink's conflict is its target: no tool writes through it.
		cliout.Printf(e.stdout, "%s: a symlink; resolve it by hand (left unresolved)\n", path)
		return w.unresolved("mergetool", []string{path})
	}
	for _, side := range []struct {
		name string
		data []byte
	}{
		{"BASE", fileData(w.files.Base, path)}, // empty when the base lacks it, as git does
		{"LOCAL", fileData(w.files.Ours, path)},
		{"REMOTE", fileData(w.files.Theirs, path)},
	} {
		// One folder per side keeps the file's own name and extension,
		// which tools use to pick a syntax.
		p := filepath.Join(sides, side.name, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, side.data, 0o644); err != nil {
			return err
		}
		env[side.name] = p
	}
	cliout.Printf(e.stdout, "%s: running %s\n", path, t.name)
	if t.cmd == "" {
		return t.runBuiltin(c, w, sides, path)
	}
	cmd := shellCommand(c, t.cmd)
	cmd.Dir = w.dir
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && t.trustExit:
		cliout.Printf(e.stdout, "%s: %s exited %d: left unresolved\n", path, t.name, exit.ExitCode())
		return w.unresolved("mergetool", []string{path})
	case err != nil && !errors.As(err, &exit):
		return fmt.Errorf("merge tool %s: %w", t.name, err)
	}
	return nil
}

// shellCommand runs script with sh, with args as "$@", as git runs editors
// and merge tools (so EDITOR="code --wait" works), on the command's own
// streams and environment.
func shellCommand(c *cli.Context, script string, args ...string) *exec.Cmd {
	e := getEnv(c)
	cmd := exec.CommandContext(c.Context, "sh", append([]string{"-c", script, "sh"}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stdout, e.stderr
	cmd.Env = os.Environ()
	return cmd
}

// gitOutput runs the real git CLI and returns its trimmed output.
func gitOutput(c *cli.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(c.Context, "git", args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	return strings.TrimSpace(out.String()), err
}
