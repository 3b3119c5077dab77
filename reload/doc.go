// Package reload connects published skills to agents: it exports skill trees
// into agents' skill directories atomically, classifies each change as hot
// (SKILL.md text only) or cold (anything structural), and watches folders so
// a running agent reloads what changed.
package reload
