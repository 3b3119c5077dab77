package reload

import (
	"errors"
	"io/fs"
)

// bookkeepingIgnore keeps a target's bookkeeping folder out of git: a
// ".gitignore" holding "*" inside the folder makes git ignore everything
// in it, that file included, so a target inside a project's work tree
// (<project>/.claude/skills) never shows .skillstore/ in the project's
// git status, wherever the folder is and without touching the project's
// own ignore files.
const bookkeepingIgnore = "# written by skillstore: its bookkeeping is not part of the project\n*\n"

// ignore writes the bookkeeping folder's .gitignore once. Whatever
// already has that name is left as it is, a link included.
func (b *book) ignore() error {
	if _, err := b.dir.Mode(".gitignore"); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return b.dir.WriteFile(".gitignore", []byte(bookkeepingIgnore), 0o644)
}
