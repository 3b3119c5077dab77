// Package target connects a store to the agents' skills folders it exports
// to. A [Target] is a named folder on this machine (~/.claude/skills,
// .agents/skills, ...) with optional skill-name patterns; its record lives
// in the store's own folder, never in the state that push sends, because a
// folder on one machine means nothing on another ([List], [Add], [Remove]).
//
// [Export] writes the active published skills into targets, one atomic
// folder switch per skill (package reload does the switching); [Status]
// compares what export wrote with what is on disk now; [Capture] records
// the skills a person edited in a target as new versions, so export and
// sync never overwrite them. `skillstore sync` runs Capture, then the
// store's sync, then Export.
package target
