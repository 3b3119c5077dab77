// Package discover finds and understands agent skills on disk: it parses
// SKILL.md files (YAML frontmatter plus a Markdown body), validates them
// against the Agent Skills specification, and walks layered skill roots
// (cli, env, project, user, system) with shadowing by name. It uses no git.
package discover
