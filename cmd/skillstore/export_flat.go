package main

import (
	"strings"

	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
)

// folderNote says where a skill is when its folder is not its name (a
// plugin's skill in a flat target) or changed hands; "" otherwise.
func folderNote(r reload.Result) string {
	var parts []string
	switch {
	case r.MovedTo != "":
		parts = append(parts, "folder "+r.Folder+", moved to "+r.MovedTo)
	case r.MovedFrom != "" && r.Folder != "":
		parts = append(parts, "folder "+r.Folder+" (renamed from "+r.MovedFrom+")")
	case r.MovedFrom != "":
		parts = append(parts, "folder "+r.Skill+" (renamed from "+r.MovedFrom+")")
	case r.Folder != "" && r.Folder != shortSkillName(r.Skill) && r.Action != reload.ActionRemoved:
		parts = append(parts, "folder "+r.Folder+" (name adjusted: the short name is taken)")
	case r.Folder != "" && r.Folder != shortSkillName(r.Skill):
		parts = append(parts, "folder "+r.Folder)
	}
	if r.Was != "" {
		parts = append(parts, "folder held "+r.Was+" before")
	}
	if len(parts) == 0 {
		return ""
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// shortSkillName is a store name without its plugin.
func shortSkillName(name string) string {
	_, short := store.SplitName(name)
	return short
}

// statusName is how status names a skill: its store name, and its folder
// when that is another name (a plugin's skill in a flat target).
func statusName(st target.SkillStatus) string {
	if st.Folder != "" && st.Folder != shortSkillName(st.Skill) {
		return st.Skill + " (folder " + st.Folder + ")"
	}
	return st.Skill
}
