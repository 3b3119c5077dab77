// Package adopt takes over skills that other installers put in agents'
// folders: it reads their records (npx skills lock files, Claude Code's
// installed_plugins.json and known_marketplaces.json, the provenance gh
// skill writes into SKILL.md, the agents' skill folders), links each
// skill to the plugin it came from when one can be named, and records the
// rest as managed skills, keeping local edits on top. The CLI's
// 'skillstore adopt' is Run.
package adopt
