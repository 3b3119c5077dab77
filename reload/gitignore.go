package reload

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// bookkeepingIgnore keeps a target's bookkeeping folder out of git: a
// ".gitignore" holding "*" inside the folder makes git ignore everything
// in it, that file included, so a target inside a project's work tree
// (<project>/.claude/skills) never shows .skillstore/ in the project's
// git status, wherever the folder is and without touching the project's
// own ignore files.
const bookkeepingIgnore = "# written by skillstore: its bookkeeping is not part of the project\n*\n"

// ignoreBookkeeping writes the bookkeeping folder's .gitignore once.
func ignoreBookkeeping(target string) error {
	p := filepath.Join(bookkeeping(target), ".gitignore")
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.WriteFile(p, []byte(bookkeepingIgnore), 0o644)
}
