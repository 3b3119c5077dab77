package store

import (
	"strings"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// A skill's name in the store is its identity: a managed skill is "NAME", a
// plugin's skill is "PLUGIN:NAME" (Claude Code's own naming). Neither part
// may hold ':' or '/', so the split is unambiguous and each part is one ref
// component.

// PluginPartsName is the skill part of the pseudo-skill that holds a
// plugin's files other than its skills (manifest, commands/, agents/,
// hooks/, .mcp.json ...): "PLUGIN:_plugin". A skill name starts with a
// letter or digit, so it can never be a real skill's name, and git accepts
// it as a ref component.
const PluginPartsName = "_plugin"

// QualifiedName is the store name of plugin's skill: "PLUGIN:SKILL", or
// SKILL alone when plugin is "" (a managed skill).
func QualifiedName(plugin, skill string) string {
	if plugin == "" {
		return skill
	}
	return plugin + ":" + skill
}

// SplitName splits a store name into its plugin ("" for a managed skill)
// and the skill's own name.
func SplitName(name string) (plugin, skill string) {
	if p, s, ok := strings.Cut(name, ":"); ok {
		return p, s
	}
	return "", name
}

// OwnName is the skill's own part of a store name: "NAME" for "PLUGIN:NAME"
// and for "NAME". It is the name its SKILL.md gives and its folder's name
// in the plugin, what the validation policy compares against.
func OwnName(name string) string {
	_, skill := SplitName(name)
	return skill
}

// PluginPartsUnit is the store name of plugin's parts: "PLUGIN:_plugin".
func PluginPartsUnit(plugin string) string { return QualifiedName(plugin, PluginPartsName) }

// IsPluginParts reports whether name is a plugin's parts pseudo-skill.
func IsPluginParts(name string) bool {
	p, s := SplitName(name)
	return p != "" && s == PluginPartsName
}

// CheckQualifiedName checks both parts of a store name.
func CheckQualifiedName(name string) error {
	plugin, skill := SplitName(name)
	if plugin == "" && strings.HasPrefix(name, ":") {
		return &InvalidNameError{Name: name, Reason: "nothing before ':': a plugin's skill is PLUGIN:NAME"}
	}
	if plugin != "" {
		if err := skillfs.CheckName(plugin); err != nil {
			return &InvalidNameError{Name: name, Reason: "plugin id: " + err.(*InvalidNameError).Reason}
		}
		if skill == PluginPartsName {
			return nil
		}
	}
	if err := skillfs.CheckName(skill); err != nil {
		if plugin != "" {
			return &InvalidNameError{Name: name, Reason: err.(*InvalidNameError).Reason}
		}
		return err
	}
	return nil
}
