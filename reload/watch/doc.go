// Package watch watches agents' skill folders so that a running agent
// reloads what changed: a [Watcher] watches them with inotify (or stat
// polling), debounces each skill (bounded by [WatchOptions].MaxWait),
// checks that its SKILL.md loads (discover's lenient rules), and calls a
// [ReloadFunc] once per settled change of a skill that loads or is
// removed, reporting each as an [Event] (the audit record, written as JSON
// lines by [EventLog], or to a rotated [AuditFile]). A [Root] narrows what
// is watched in a folder: the skills a target wants, and only those
// reload.Export created there.
//
// It reads a skill folder as export does (reload.ReadDir) and classifies a
// change with reload.Classify; it never reads the store.
package watch
