// Package reload connects published skills to agents: it exports skill trees
// into agents' skill directories atomically, classifies each change as hot
// (SKILL.md text only) or cold (anything structural), and watches folders so
// a running agent reloads what changed.
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
// A [Watcher] watches skill folders with inotify (or stat polling),
// debounces each skill (bounded by [WatchOptions].MaxWait), checks that its
// SKILL.md loads (discover's lenient rules), and calls a [ReloadFunc] once
// per settled change of a skill that loads or is removed, reporting each as
// an [Event] (the audit record, written as JSON lines by [EventLog], or to a
// rotated [AuditFile]). A [Root] narrows what is watched in a folder: the
// skills a target wants, and only those [Export] created there.
//
// The package never reads the store: the CLI hands it skills as files.
package reload
