package gitfetch

import (
	"context"
	"os"
	"os/exec"
	"strings"
)

// Command returns a git helper process (git credential, git upload-pack,
// git receive-pack) run in dir, a folder skillstore owns (the store),
// never in the caller's working folder: git reads the configuration of
// the repository it is started in, and a hostile repository's
// `credential.helper = !cmd` would run as soon as a helper is asked.
// GIT_DIR names no repository, and the variables that choose another
// repository or add configuration (GIT_DIR, GIT_WORK_TREE,
// GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT and its keys, ...) are dropped,
// so git reads only the user's global and system configuration
// (GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM and GIT_CONFIG_NOSYSTEM are kept:
// they are how a user points git at those). git never prompts on the
// terminal. upload-pack and receive-pack still serve the repository
// named by their argument, with its own configuration, as git itself
// does.
func Command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", args...)
	if dir == "" {
		dir = os.TempDir()
	}
	cmd.Dir = dir
	cmd.Env = helperEnv(os.Environ())
	return cmd
}

// droppedVars are the git variables a helper never inherits: they point
// git at a repository, or add configuration outside the user's global
// and system files.
var droppedVars = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE",
	"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE",
	"GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_PREFIX",
	"GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_PROTOCOL",
	"GIT_QUARANTINE_PATH", "GIT_TERMINAL_PROMPT",
}

// helperEnv is env (as os.Environ gives it) for a git helper process:
// see [Command].
func helperEnv(env []string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if dropped(name) {
			continue
		}
		out = append(out, kv)
	}
	// /dev/null is no repository: git runs as outside any.
	return append(out, "GIT_DIR="+os.DevNull, "GIT_TERMINAL_PROMPT=0")
}

func dropped(name string) bool {
	for _, d := range droppedVars {
		if name == d {
			return true
		}
	}
	return strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_")
}
