// Package folderscan reads skill folders and local plugin folders from disk
// quickly and safely: the scan of one skill folder with the [StatCache]
// (stat data to blob ids, like git's index) and the size limits
// (skillfs.Limits), and a plugin folder as a pluginfmt.PluginFS that answers listings from the
// stat cache. The one ignore rule, skillfs.Ignored, applies to every scan.
//
// Both are on sync's hot path: for a plugin of many skills, reading the
// folders is most of what an unchanged sync does.
package folderscan
