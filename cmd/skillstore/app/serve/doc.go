// Package serve holds the commands that keep running beside agents:
// watch (a settled change in a skill folder runs a hook) and mcp (the
// published skills served over the Model Context Protocol), with the log
// of what agents loaded ('log --loads').
package serve
