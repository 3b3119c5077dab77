package target

import (
	"os"
	"path/filepath"
	"sort"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
)

// foreignFolders lists, for target t, the active skills it wants (placed
// in their folders by p) whose folder exists there but is not in its
// export record (recorded, from reload.Status): export leaves these alone,
// so status always names them, while sync reports them only the first
// time. A folder that already holds the version export would write is not
// listed: the next export adopts it. renamed computes that version for a
// renamed plugin skill.
func foreignFolders(t Target, p placement, active map[string]store.Hash, recorded []reload.SkillStatus,
	renamed func(tree skillfs.ID, folder string) (skillfs.ID, error)) []SkillStatus {
	known := make(map[string]bool, len(recorded))
	for _, st := range recorded {
		if st.State != reload.StateRaced {
			if st.Folder != "" {
				known[st.Folder] = true
			} else {
				known[st.Skill] = true
			}
		}
	}
	var out []SkillStatus
	for name, folder := range p.folder {
		head := active[name]
		if known[folder] || reload.CheckName(folder) != nil {
			continue
		}
		dir := filepath.Join(t.Dir, folder)
		info, err := os.Lstat(dir)
		if err != nil {
			continue
		}
		st := reload.SkillStatus{Skill: name, State: reload.StateForeign}
		if folder != name {
			st.Folder = folder
		}
		if info.Mode()&os.ModeSymlink != 0 {
			st.Link, _ = os.Readlink(dir)
		} else if disk, err := reload.ReadTree(dir); err == nil {
			want := head
			if p.renamed[name] {
				if want, err = renamed(head, folder); err != nil {
					want = skillfs.ID{}
				}
			}
			if disk.ID == want {
				continue
			}
			st.Disk = disk.ID
		}
		out = append(out, SkillStatus{Target: t.Name, SkillStatus: st})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Skill < out[j].Skill })
	return out
}
