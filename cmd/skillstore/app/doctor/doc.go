// Package doctor explains which skills agents load and why some do not:
// discovery's findings summarised on a screen, what each target's skills
// cost the agent's listing budget, double loads, and PLUGIN:NAME
// references a flat target cannot resolve; --verbose has the details.
package doctor
