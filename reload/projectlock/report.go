package projectlock

import (
	"fmt"
	"strings"

	"github.com/skillstore/skillstore/internal/problem"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/reload/target"
)

// Report is what an install did.
type Report struct {
	Lock   string `json:"lock"`
	Frozen bool   `json:"frozen,omitempty"`
	// Problems are the parts of the lock file that were refused.
	Problems []Problem `json:"problems,omitempty"`
	// Remote is what the team remote gave, when it was used.
	Remote  *RemoteUse        `json:"remote,omitempty"`
	Plugins []PluginResult    `json:"plugins"`
	Skills  []SkillResult     `json:"skills"`
	Targets []TargetResult    `json:"targets"`
	Export  []target.Exported `json:"export,omitempty"`
	// Differences are the folders that do not hold the lock's version
	// after the export.
	Differences []target.PinMismatch `json:"differences,omitempty"`
}

// RemoteUse is the team remote's part of an install.
type RemoteUse struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	// Versions are the versions taken from it (NAME@vN), for the
	// project's targets only: no published skill of the store moved.
	Versions []string `json:"versions"`
	// Remembered is set when the install recorded it as a remote of the
	// store (InstallOptions.RememberRemote).
	Remembered bool   `json:"remembered,omitempty"`
	Error      string `json:"error,omitempty"`
}

// PluginResult is a locked plugin's part of an install.
type PluginResult struct {
	ID     string `json:"id"`
	Commit string `json:"commit,omitempty"`
	// Added is set when the install added the plugin, at the locked commit.
	Added bool `json:"added,omitempty"`
	// ProjectOnly is set when the plugin's skills go to this project's
	// targets only (a lock added it: plugins.ProjectOnly), not to the
	// user's other targets.
	ProjectOnly bool `json:"project_only,omitempty"`
	// Moved says where upstream is now when it moved since the lock.
	Moved string `json:"moved,omitempty"`
	Note  string `json:"note,omitempty"`
	Error string `json:"error,omitempty"`
}

// SkillResult is a locked skill's part of an install: the version of this
// store with the lock's tree, or why there is none.
type SkillResult struct {
	Name    string `json:"name"`
	Tree    string `json:"tree"`
	Version int    `json:"version,omitempty"` // in this store
	Error   string `json:"error,omitempty"`
	// Because names the plugin whose failure the skill's error follows
	// from: reports count such skills under the plugin's error instead
	// of a line each (the cause first, its consequences counted).
	Because string `json:"because,omitempty"`
}

// Consequences are the skills not installed because plugin id
// failed.
func (r *Report) Consequences(id string) []string {
	var out []string
	for _, s := range r.Skills {
		if s.Because == id {
			out = append(out, s.Name)
		}
	}
	return out
}

// WithConsequences is a plugin's error with the count and names of the
// skills that were not installed because of it.
func WithConsequences(msg string, skills []string) string {
	switch len(skills) {
	case 0:
		return msg
	case 1:
		return msg + " (so " + skills[0] + " was not installed)"
	}
	return fmt.Sprintf("%s (so %d skills were not installed: %s)", msg, len(skills), nameList(skills, 5))
}

// nameList is "a, b and N more", at most max names.
func nameList(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:max], ", ") + fmt.Sprintf(" and %d more", len(names)-max)
}

// TargetResult is a locked target's part of an install.
type TargetResult struct {
	Name  string `json:"name"`
	Dir   string `json:"dir"`
	Added bool   `json:"added,omitempty"`
	// Skills are the locked skills the target receives (those restored).
	Skills []string `json:"skills"`
	Error  string   `json:"error,omitempty"`
}

// Failed reports whether some part of the lock was not restored (a
// refused entry, a plugin, skill or target that failed, an export
// failure), or, in a frozen install, some folder differs from the lock.
func (r *Report) Failed() bool {
	if len(r.Problems) > 0 || (r.Frozen && len(r.Differences) > 0) || (r.Remote != nil && r.Remote.Error != "") {
		return true
	}
	for _, p := range r.Plugins {
		if p.Error != "" {
			return true
		}
	}
	for _, s := range r.Skills {
		if s.Error != "" {
			return true
		}
	}
	for _, t := range r.Targets {
		if t.Error != "" {
			return true
		}
	}
	for _, e := range r.Export {
		if e.Error != "" {
			return true
		}
		for _, res := range e.Results {
			if res.Action == reload.ActionFailed {
				return true
			}
		}
	}
	return false
}

// FrozenError is a frozen install that did not match the lock: every
// difference, one a line.
type FrozenError struct {
	Lock        string
	Differences []string
	// NothingWritten is set when the rehearsal found the differences,
	// before anything was written (a folder whose export failed is found
	// only once written).
	NothingWritten bool
}

func (e *FrozenError) Error() string { return problem.Format(e.Summary(), e.Details()) }

// Summary says what failed.
func (e *FrozenError) Summary() string {
	diffs := fmt.Sprintf("%d differences", len(e.Differences))
	if len(e.Differences) == 1 {
		diffs = "1 difference"
	}
	written := ""
	if e.NothingWritten {
		written = "; nothing was written"
	}
	return fmt.Sprintf("install --frozen: the project's skills do not match %s (%s)%s", e.Lock, diffs, written)
}

// Details are the differences.
func (e *FrozenError) Details() []string { return e.Differences }

// unwrite makes the report of a rehearsal that failed say what it is: the
// lock's parts that failed and why, and nothing added, taken, recorded or
// exported, since nothing was.
func (r *Report) unwrite() {
	for i := range r.Plugins {
		r.Plugins[i].Added, r.Plugins[i].ProjectOnly = false, false
	}
	if r.Remote != nil {
		r.Remote.Versions, r.Remote.Remembered = []string{}, false
	}
	for i := range r.Targets {
		r.Targets[i].Added, r.Targets[i].Skills = false, []string{}
	}
	r.Export = nil
}

// frozenError lists every difference between the lock and what the
// install could restore or found in the folders.
func (in *installer) frozenError(nothingWritten bool) error {
	var diffs []string
	for _, p := range in.rep.Problems {
		diffs = append(diffs, p.Error())
	}
	if r := in.rep.Remote; r != nil && r.Error != "" {
		diffs = append(diffs, "team remote "+r.Name+": "+r.Error)
	}
	for _, p := range in.rep.Plugins {
		if p.Error != "" {
			diffs = append(diffs, WithConsequences(p.Error, in.rep.Consequences(p.ID)))
		}
	}
	for _, s := range in.rep.Skills {
		if s.Error != "" && s.Because == "" {
			diffs = append(diffs, s.Error)
		}
	}
	for _, t := range in.rep.Targets {
		if t.Error != "" {
			diffs = append(diffs, "target "+t.Name+": "+t.Error)
		}
	}
	for _, e := range in.rep.Export {
		if e.Error != "" {
			diffs = append(diffs, "target "+e.Target+": export: "+e.Error)
		}
		for _, res := range e.Results {
			if res.Action == reload.ActionFailed {
				diffs = append(diffs, "target "+e.Target+": "+res.Skill+": export failed: "+res.Error)
			}
		}
	}
	for _, d := range in.rep.Differences {
		where := d.Target + "/" + d.Skill
		if d.Folder != "" && d.Folder != d.Skill {
			where += " (folder " + d.Folder + ")"
		}
		diffs = append(diffs, where+": "+d.Problem)
	}
	if len(diffs) == 0 {
		return nil
	}
	return &FrozenError{Lock: in.rep.Lock, Differences: diffs, NothingWritten: nothingWritten}
}
