// Package mcpserver serves a store's published skills to agents over the
// Model Context Protocol, so an agent finds and loads any of thousands of
// skills on demand at the context cost of three small tools, instead of
// listing every installed skill's name and description up front.
//
// The server reads a [Catalog] (the store, read under its shared lock for the
// moment of each call, so a running server never holds up sync or export):
//
//   - find_skills: words in, the best matching skills out (qualified name,
//     description, version), ranked over names, descriptions and bodies by
//     an in-memory [Index] rebuilt only for the skills that changed;
//   - load_skill: one skill's SKILL.md at its published version, with the
//     list of its other files;
//   - read_skill_file: one of those files.
//
// Each published skill's SKILL.md is also a resource, skill:///NAME/SKILL.md
// (NAME is the qualified name, PLUGIN:SKILL for a plugin's skill), and any
// file of it skill:///NAME/PATH; when the published set changes, the next
// call sees it and subscribed clients get notifications/resources/list_changed.
// Every load is appended to an audit log (one JSON [Load] per line): which
// client loaded which version of which skill, when.
package mcpserver
