// Package folderscan reads skill folders and local plugin folders from disk
// quickly and safely. [Scan] is the one reader of a skill folder: add,
// sync's local plugins, export's check of an agent's copy (reload.ReadDir)
// and adopt all read a folder through it, so the one ignore rule,
// skillfs.Ignored, and git's rules for modes and symlinks apply to every
// read alike. It takes the size limits (skillfs.Limits) and an optional
// [StatCache] (stat data to blob ids, like git's index). A local plugin
// folder is read as a pluginfmt.PluginFS ([PluginFS]) that answers
// listings from the stat cache.
//
// Both are on sync's hot path: for a plugin of many skills, reading the
// folders is most of what an unchanged sync does.
package folderscan
