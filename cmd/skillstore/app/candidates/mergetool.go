package candidates

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
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
func configuredMergetool(ctx context.Context, name string) (mergetool, error) {
	if name == "" {
		name, _ = app.GitOutput(ctx, "config", "--get", "merge.tool")
	}
	if name == "" {
		return mergetool{}, app.WithHint(errors.New("no merge tool: git config merge.tool is unset"),
			"configure one: git config --global merge.tool NAME; git config --global mergetool.NAME.cmd 'TOOL \"$LOCAL\" \"$BASE\" \"$REMOTE\" -o \"$MERGED\"'",
			"or give --tool NAME, or use 'skillstore candidates edit'")
	}
	cmd, _ := app.GitOutput(ctx, "config", "--get", "mergetool."+name+".cmd")
	trust, _ := app.GitOutput(ctx, "config", "--type=bool", "--get", "mergetool."+name+".trustExitCode")
	return mergetool{name: name, cmd: cmd, trustExit: trust == "true"}, nil
}

// run resolves one conflicted file of the work folder: it writes the base,
// local and remote versions of the file under sides, then runs the tool.
func (t mergetool) run(ctx context.Context, g app.Global, w *workFolder, sides, path string) error {
	env := map[string]string{"MERGED": filepath.Join(w.dir, filepath.FromSlash(path))}
	if fi, err := os.Lstat(env["MERGED"]); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		// A symlink's conflict is its target: no tool writes through it.
		cliout.Printf(g.Stdout, "%s: a symlink; resolve it by hand (left unresolved)\n", path)
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
	cliout.Printf(g.Stdout, "%s: running %s\n", path, t.name)
	if t.cmd == "" {
		return t.runBuiltin(ctx, g, w, sides, path)
	}
	cmd := shellCommand(ctx, g, t.cmd)
	cmd.Dir = w.dir
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && t.trustExit:
		cliout.Printf(g.Stdout, "%s: %s exited %d: left unresolved\n", path, t.name, exit.ExitCode())
		return w.unresolved("mergetool", []string{path})
	case err != nil && !errors.As(err, &exit):
		return fmt.Errorf("merge tool %s: %w", t.name, err)
	}
	return nil
}

// shellCommand runs script with sh, with args as "$@", as git runs editors
// and merge tools (so EDITOR="code --wait" works), on the command's own
// streams and environment.
func shellCommand(ctx context.Context, g app.Global, script string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", script, "sh"}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = g.Stdin, g.Stdout, g.Stderr
	cmd.Env = os.Environ()
	return cmd
}

// runBuiltin has git mergetool run one of git's built-in tools, which
// have no cmd in the configuration: git knows how to call each. It builds
// what git mergetool works on, a scratch repository whose index holds the
// file's three stages (base, local, remote) and whose work tree holds the
// file with markers, runs 'git mergetool --tool NAME' there, and copies the
// result back into the work folder.
func (t mergetool) runBuiltin(ctx context.Context, g app.Global, w *workFolder, sides, path string) error {
	repo := filepath.Join(sides, "repo")
	if _, err := os.Stat(filepath.Join(repo, ".git")); err != nil {
		if _, err := gitIn(ctx, "", nil, "init", "-q", repo); err != nil {
			return err
		}
	}
	var index strings.Builder
	for stage, data := range [][]byte{fileData(w.files.Base, path), fileData(w.files.Ours, path), fileData(w.files.Theirs, path)} {
		if data == nil {
			continue // a side without the file has no stage, as in git (added on both sides: no base)
		}
		id, err := gitIn(ctx, repo, data, "hash-object", "-w", "--stdin")
		if err != nil {
			return err
		}
		fmt.Fprintf(&index, "100644 %s %d\t%s\n", id, stage+1, path)
	}
	if _, err := gitIn(ctx, repo, []byte(index.String()), "update-index", "--index-info"); err != nil {
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
	cmd := exec.CommandContext(ctx, "git", "-C", repo, "mergetool", "--no-prompt", "--tool="+t.name, "--", path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = g.Stdin, g.Stdout, g.Stderr
	if err := cmd.Run(); err != nil {
		cliout.Printf(g.Stdout, "%s: git mergetool --tool=%s failed (%v): left unresolved\n", path, t.name, err)
		return w.unresolved("mergetool", []string{path})
	}
	if data, err = os.ReadFile(inRepo); err != nil {
		return err
	}
	return os.WriteFile(merged, data, 0o644)
}

// gitIn runs git in dir ("" for the working directory) with stdin and
// returns its trimmed output; its error carries git's own message.
func gitIn(ctx context.Context, dir string, stdin []byte, args ...string) (string, error) {
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}
