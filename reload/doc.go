// Package reload connects published skills to agents: it exports skill trees
// into agents' skill directories atomically and classifies each change as
// hot (SKILL.md text only) or cold (anything structural). Watching folders
// so that a running agent reloads what changed is package reload/watch.
//
// A skill folder is identified by its [Tree]: its entries and the git tree
// ID git itself would compute for it (no repository needed), so comparing
// two versions is comparing IDs. [Classify] turns two trees into a [Change]
// of class [Hot], [Cold] or [Unchanged].
//
// [Export] writes a set of [Skill] values into a target folder, one folder
// per skill, each switched in one atomic rename, and records in the
// target's hidden .skillstore folder the tree it wrote, so that it touches
// only changed skills, removes only skills it created, and never overwrites
// a folder someone edited since ([ActionLocallyModified]); [Status] lists
// such edits and [Adopt] marks a folder as export's own again once its
// edit is stored. The .skillstore folder can come with a cloned project, so
// it is reached only through the target's directory handle, never following
// a link: a .skillstore, or an entry of it, that is not a plain folder or
// file is refused by name, and a record entry that is not one folder name
// of the target is ignored with a warning (see book.go).
//
// On Windows a folder cannot be swapped with another in one step, so each
// replaced folder is moved aside and the new one moved in (two renames;
// [Report].Atomic is false): a reader sees the old folder, for the moment
// between the two renames none, then the new one, never a mix. Windows
// refuses to move a folder another program holds (a file in it open, a
// shell in it): that skill is reported [ActionFailed] with a
// [safedir.InUseError] saying so, its old folder stays whole where it was,
// the other skills are exported, and the next export switches it. A file
// whose name Windows cannot hold (NUL.md, CON.txt, "a:b") fails its skill
// by name ([skillfs.CheckLocalPath]). Folders there keep no execute bit, so
// what export reads back is compared with the tree it wrote as such a
// folder holds it (diskView): scripts are not taken for a local edit.
// Where the account cannot make symbolic links, a link to a file of the
// skill is written as a copy and any other link left out, each with a
// warning in the [Report].
//
// The package never reads the store: the CLI hands it skills as files.
package reload
