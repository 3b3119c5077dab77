// Package skillmd is the one reader of a SKILL.md, the file that makes a
// folder a skill: its name ([FileName]), the frontmatter fence ([Cut]), the
// body after it ([Body]), the YAML between the fences parsed into a mapping
// ([Parse]) and the one rewrite of the frontmatter's name ([SetName],
// [NameEntry]). Every package that looks inside a SKILL.md goes through it,
// so they all agree on where the frontmatter is; package discover adds
// typing and validation on top.
//
// # The fence
//
// A SKILL.md starts with a line "---", then YAML, then a line "---"; the
// rest is the Markdown body. This is the rule Claude Code, Codex and the
// Agent Skills specification follow, and [Cut] applies it exactly:
//
//   - a UTF-8 byte order mark before the opening line is accepted and
//     recorded ([Split.BOM]); Codex does not accept one, which discover
//     warns about;
//   - a fence line may end in CRLF and in spaces or tabs ("--- \r\n");
//     [Split.CRLF] records whether the opening line ends in CRLF, the line
//     break a rewrite uses;
//   - only "---" closes the frontmatter: YAML's document-end marker "..."
//     does not (a frontmatter with "..." but no closing "---" is never
//     closed); inside the frontmatter it ends the YAML document, so
//     nothing between it and the closing fence is read, by [Parse] nor by
//     [NameEntry];
//   - a first line that is not a fence means no frontmatter
//     ([ErrNoFrontmatter]); an opening fence never closed is
//     [ErrUnclosed].
//
// The package does no I/O: bytes in, slices of them (or new bytes) out, so
// package merge, which must stay free of I/O, uses it too.
package skillmd

// FileName is the name of a skill's instructions file, at the top of the
// skill folder (a path relative to it): the file every skill has and the
// only one whose edits an agent reloads without a restart.
const FileName = "SKILL.md"
