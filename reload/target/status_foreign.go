package target

import (
	"os"
	"path/filepath"
	"sort"

	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
)

// foreignFolders lists, for target t, the active skills it wants whose
// folder exists there but is not in its export record (recorded, from
// reload.Status): export leaves these alone, so status always names them,
// while sync reports them only the first time. A folder that already holds
// the published version is not listed: the next export adopts it.
func foreignFolders(t Target, active map[string]store.Hash, recorded []reload.SkillStatus) []SkillStatus {
	known := make(map[string]bool, len(recorded))
	for _, st := range recorded {
		if st.State != reload.StateRaced {
			known[st.Skill] = true
		}
	}
	var out []SkillStatus
	for name, head := range active {
		if known[name] || !t.Wants(name) || reload.CheckName(name) != nil {
			continue
		}
		dir := filepath.Join(t.Dir, name)
		info, err := os.Lstat(dir)
		if err != nil {
			continue
		}
		st := reload.SkillStatus{Skill: name, State: reload.StateForeign}
		if info.Mode()&os.ModeSymlink != 0 {
			st.Link, _ = os.Readlink(dir)
		} else if disk, err := reload.ReadTree(dir); err == nil {
			if disk.ID == head {
				continue
			}
			st.Disk = disk.ID
		}
		out = append(out, SkillStatus{Target: t.Name, SkillStatus: st})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Skill < out[j].Skill })
	return out
}
