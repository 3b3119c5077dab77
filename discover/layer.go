package discover

import (
	"fmt"
	"strings"
)

// Layer is where a skill root comes from. Layers are ordered by priority:
// a skill in a higher layer shadows one with the same name in a lower layer.
type Layer int

const (
	// LayerCLI roots are given on the command line (--skill-dir).
	LayerCLI Layer = iota + 1
	// LayerEnv roots come from $SKILLSTORE_PATH.
	LayerEnv
	// LayerManifest roots are the folders a project lists in its
	// ManifestFile, from the working directory up to the repository root.
	LayerManifest
	// LayerProject roots are the agents' project folders (.claude/skills,
	// .agents/skills, ...; see Agents) from the working directory up to
	// the repository root.
	LayerProject
	// LayerConfig is the user's own skillstore folder,
	// $XDG_CONFIG_HOME/skillstore/skills.
	LayerConfig
	// LayerUser roots are the agents' user folders (~/.claude/skills,
	// ~/.agents/skills, ~/.codex/skills, ...; see Agents).
	LayerUser
	// LayerPlugin roots are the skills folders of installed Claude Code
	// plugins; their skills are named plugin:skill.
	LayerPlugin
	// LayerSystem roots are machine-wide (/etc/skillstore/skills).
	LayerSystem
)

var layerNames = []string{LayerCLI: "cli", LayerEnv: "env", LayerManifest: "manifest", LayerProject: "project",
	LayerConfig: "config", LayerUser: "user", LayerPlugin: "plugin", LayerSystem: "system"}

func (l Layer) String() string {
	if l >= LayerCLI && l <= LayerSystem {
		return layerNames[l]
	}
	return fmt.Sprintf("layer(%d)", int(l))
}

// MarshalText writes the layer's name in JSON.
func (l Layer) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a layer name.
func (l *Layer) UnmarshalText(b []byte) error {
	for i, n := range layerNames {
		if n != "" && strings.EqualFold(n, string(b)) {
			*l = Layer(i)
			return nil
		}
	}
	return fmt.Errorf("unknown layer %q", b)
}
