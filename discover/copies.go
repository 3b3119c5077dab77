package discover

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// CopyKind says what kind of place holds a skill folder, which decides the
// canonical copy when one skill is found in several places (an npx skills
// install links or copies the same folder into every agent's directory).
// Lower kinds are preferred.
type CopyKind int

const (
	// CopyRepository is a folder inside a git work tree or a plugin (a
	// folder holding .git, .claude-plugin or .codex-plugin), outside any
	// agent or installer folder: where the skill is written.
	CopyRepository CopyKind = iota + 1
	// CopyInstaller is an installer's canonical copy: .agents/skills (npx
	// skills) or Claude Code's plugin cache (.claude/plugins).
	CopyInstaller
	// CopyAgent is an agent's own folder: .claude/skills, .codex/skills.
	CopyAgent
	// CopyOther is anything else.
	CopyOther
)

var copyNames = []string{CopyRepository: "repository", CopyInstaller: "installer", CopyAgent: "agent", CopyOther: "other"}

func (k CopyKind) String() string {
	if k >= CopyRepository && k <= CopyOther {
		return copyNames[k]
	}
	return fmt.Sprintf("copy(%d)", int(k))
}

// MarshalText writes the kind's name in JSON.
func (k CopyKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// classifyCopy ranks the skill folder dir. Installer and agent folders are
// recognised by their path even inside a repository: a project's
// .agents/skills is an installed copy, not the source.
func classifyCopy(dir string, inRepo bool) CopyKind {
	parts := strings.Split(filepath.ToSlash(dir), "/")
	kind := CopyOther
	if inRepo {
		kind = CopyRepository
	}
	for i := 0; i+1 < len(parts); i++ {
		switch {
		case parts[i] == ".agents" && parts[i+1] == "skills",
			parts[i] == ".claude" && parts[i+1] == "plugins":
			return CopyInstaller
		case (parts[i] == ".claude" || parts[i] == ".codex") && parts[i+1] == "skills":
			kind = CopyAgent
		}
	}
	return kind
}

// SkillDir is a skill folder found by Locate, its SKILL.md not yet read.
type SkillDir struct {
	// Dir is the folder's path as reached from the root (absolute).
	Dir string `json:"dir"`
	// RelDir is Dir relative to the root, with forward slashes.
	RelDir string   `json:"rel_dir"`
	Copy   CopyKind `json:"copy"`
}

// Locate finds the skill folders under root with the same walk as
// Discover (depth bound, skip list, hidden containers, symlinks kept inside
// the root, a folder reached twice listed once) without reading any
// SKILL.md, so a re-import of unchanged skills stays cheap. Folders come in
// canonical-copy order: by CopyKind, then by path, so among folders holding
// the same skill the preferred one comes first. Walk problems (a skill past
// the depth bound, a symlink out of the root) are diagnostics; the error
// is for a root that cannot be walked at all and for cancellation.
func Locate(ctx context.Context, root string, opts Options) ([]SkillDir, []Diagnostic, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, nil, fmt.Errorf("find skills in %s: %w", root, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return nil, nil, fmt.Errorf("find skills in %s: %w", root, unwrapPathError(err))
	}
	if !info.IsDir() {
		return nil, nil, fmt.Errorf("find skills in %s: not a folder", root)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, nil, fmt.Errorf("find skills in %s: %w", root, unwrapPathError(err))
	}
	w := newRootWalk(ctx, Root{Path: abs, Layer: LayerCLI, Label: cliLabel(1), Exists: true}, 0, real, opts, &syncSet{m: map[string]bool{}})
	w.locate = true
	if err := w.run(); err != nil {
		return nil, nil, fmt.Errorf("find skills in %s: %w", root, err)
	}
	out := make([]SkillDir, len(w.skills))
	for i, s := range w.skills {
		out[i] = SkillDir{Dir: s.Dir, RelDir: s.RelDir, Copy: s.Copy}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Copy != out[j].Copy {
			return out[i].Copy < out[j].Copy
		}
		return out[i].Dir < out[j].Dir
	})
	SortDiagnostics(w.diags)
	return out, w.diags, nil
}
