package discover

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/internal/safefile"
)

// claudePluginsFile is where Claude Code records the plugins it installed,
// relative to the home directory.
const claudePluginsFile = ".claude/plugins/installed_plugins.json"

// installedPlugin is one install of a plugin in installed_plugins.json.
// Only the fields discovery needs are read.
type installedPlugin struct {
	Scope       string `json:"scope"`
	InstallPath string `json:"installPath"`
	Version     string `json:"version"`
	ProjectPath string `json:"projectPath"`
}

// readInstalledPlugins returns a root for the skills folder of every
// Claude Code plugin listed in file: {"plugins": {"plugin@marketplace":
// [install, ...]}} (an install object instead of the list is read too).
// A plugin installed for a project counts only when wd is inside that
// project. A missing file means no plugins.
func readInstalledPlugins(file, wd string) ([]Root, []Diagnostic) {
	data, err := safefile.ReadFile(file, safefile.RecordLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	fail := func(format string, args ...any) ([]Root, []Diagnostic) {
		return nil, []Diagnostic{warningAt(file, 0, "cannot read Claude Code's installed plugins: %s; plugin skills are not listed", fmt.Sprintf(format, args...))}
	}
	if err != nil {
		return fail("%v", unwrapPathError(err))
	}
	var doc struct {
		Plugins map[string]json.RawMessage `json:"plugins"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return fail("%v", err)
	}
	keys := make([]string, 0, len(doc.Plugins))
	for k := range doc.Plugins {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var roots []Root
	var diags []Diagnostic
	for _, key := range keys {
		installs, err := decodeInstalls(doc.Plugins[key])
		if err != nil {
			diags = append(diags, warningAt(file, 0, "plugin %q: %v; its skills are not listed", key, err))
			continue
		}
		name := key
		if i := strings.LastIndex(key, "@"); i > 0 {
			name = key[:i]
		}
		for _, in := range installs {
			if (in.Scope == "project" || in.Scope == "local") && (wd == "" || in.ProjectPath == "" || !within(filepath.Clean(wd), filepath.Clean(in.ProjectPath))) {
				continue
			}
			if !filepath.IsAbs(in.InstallPath) {
				diags = append(diags, warningAt(file, 0, "plugin %q: installPath %q is not absolute; its skills are not listed", key, in.InstallPath))
				continue
			}
			roots = append(roots, Root{Path: filepath.Join(in.InstallPath, "skills"), Layer: LayerPlugin,
				Label: "plugin:" + key, Agent: AgentClaudeCode, Plugin: name})
		}
	}
	return roots, diags
}

// decodeInstalls reads a plugin's entry: a list of installs, or one.
func decodeInstalls(raw json.RawMessage) ([]installedPlugin, error) {
	var list []installedPlugin
	if err := json.Unmarshal(raw, &list); err == nil {
		return list, nil
	}
	var one installedPlugin
	if err := json.Unmarshal(raw, &one); err != nil {
		return nil, fmt.Errorf("not an install record or a list of them")
	}
	return []installedPlugin{one}, nil
}
