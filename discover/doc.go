// Package discover finds and understands agent skills on disk: it parses
// SKILL.md files (YAML frontmatter plus a Markdown body), validates them
// against the Agent Skills specification, and walks layered skill roots
// (cli, env, project, user, system) with shadowing by name. It uses no git.
//
// # Parsing and validation
//
// [Parse] splits a SKILL.md into typed [Frontmatter] and body. It accepts a
// UTF-8 byte order mark and CRLF line endings and returns a [*skillmd.ParseError]
// naming the line for everything else: a missing or unterminated frontmatter,
// invalid YAML, frontmatter that is not a mapping, invalid UTF-8, files over
// [MaxFileSize]. YAML aliases are refused outright, so an alias bomb costs a
// parse of its few hundred bytes and nothing more.
//
// [Check] is skillstore's one validation policy: every command that takes a
// skill in or checks one calls it, so what one accepts, all accept. It
// parses and checks a file in one of two [Mode]s. [Strict] applies the
// specification and Anthropic's validators; [Lenient] accepts what the
// agents load: every key Claude Code, Codex, GitHub Copilot, Cursor, Gemini
// CLI or OpenCode documents ([KeyAgents]; agents.go lists them with their
// docs), and it warns only where an agent would skip or cut the skill, or
// ignore part of it, naming the agent (a missing name defaults to the
// folder, an over-long or missing description is a warning). Findings
// are [Diagnostic]s printed as "file:line: severity: message"; its
// [Verdict] says whether the skill is accepted (no errors: warnings never
// refuse). [ValidateFile] is the same check without the verdict.
//
// # Discovery
//
// [Discover] walks the [Root]s of [Options] in priority order (layers cli,
// env, manifest, project, config, user, plugin, system; see [Layer]) with
// a bounded pool of workers. A folder holding SKILL.md is a skill and is
// not walked further, so skills never nest. The walk goes [DefaultMaxDepth]
// folders deep and warns about a skill folder just past the bound. Version
// control, dependency, virtualenv, build and cache folders are skipped, and
// hidden folders too except the skill containers .agents, .claude, .codex,
// .curated, .system and .experimental. Symlinked folders are followed only
// when their target is inside the root, never into a cycle, and a folder
// reached twice is loaded once. [Locate] is the same walk without reading
// SKILL.md, for import, with the folders in canonical-copy order
// ([CopyKind]: repository, installer, agent, other).
//
// A skill's namespace is the folders between its root and its own folder,
// container folders (skills, .curated, ...) left out, so ROOT/acme/ops/deploy
// is acme/ops/deploy; a Claude Code plugin's skills are plugin:skill. A
// skill shadows lower-priority skills with the same qualified name in the
// same agent's view (Root.Agent): Claude Code's and Codex's folders do not
// shadow each other. Skills with identical bodies are reported as
// duplicates. Every skill has a stable ID, a hash of its layer, its root's
// role label and its path below the root, so IDs survive moving a root,
// and results come in a canonical order, so output is deterministic.
//
// A project lists extra skill folders in its [ManifestFile]; Claude Code's
// installed plugins are read from ~/.claude/plugins/installed_plugins.json.
//
// [AgentIssues] explains why Claude Code or Codex would not load a skill,
// and [WritePrompt] prints the <available_skills> block for system prompts.
package discover
