package store

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/internal/pluginfmt"
)

// TrailerRenamedFrom names a plugin's old id on the state commit that
// renamed it.
const TrailerRenamedFrom = "Renamed-From"

// followRenames applies a marketplace's "renames" (old -> new) when the
// marketplace is added again: a plugin of the store named old, added from
// this marketplace, that the marketplace now lists as new becomes new,
// keeping its history. It returns the new ids renamed, whose entries need
// nothing more. A rename whose new id is taken is reported as a failure.
func (tx *Tx) followRenames(renames map[string]string, src Source, entries []marketEntry, rep *SyncReport) (map[string]bool, error) {
	done := map[string]bool{}
	mkt := marketplaceName(src)
	for _, old := range slices.Sorted(maps.Keys(renames)) {
		nu := renames[old]
		i := slices.IndexFunc(entries, func(e marketEntry) bool { return e.name == nu && e.plugin.ID == nu })
		if i < 0 {
			continue
		}
		cur, err := tx.Plugin(old)
		if err != nil || !addedFrom(cur, src, mkt, old) {
			continue
		}
		if other, err := tx.Plugin(nu); err == nil {
			err := fmt.Errorf("the marketplace renames %q to %q, and plugin %q exists already (from %s): remove one of them", old, nu, nu, other.Source)
			rep.Plugins = append(rep.Plugins, failedReport(nu, mkt, &pluginfmt.EntryError{Plugin: nu, Line: entries[i].line, Err: err}))
			done[nu] = true
			continue
		}
		if err := tx.renamePlugin(cur, entries[i].plugin, mkt); err != nil {
			return nil, err
		}
		rep.Renamed = append(rep.Renamed, PluginRename{From: old, To: nu})
		done[nu] = true
	}
	return done, nil
}

// addedFrom reports whether plugin p (id old) was added from the
// marketplace src: recorded so, or (records written before plugins kept
// their marketplace) picked from the same source by its old name.
func addedFrom(p *Plugin, src Source, mkt, old string) bool {
	if p.Marketplace != "" {
		return p.Marketplace == mkt
	}
	return p.Source.Kind == src.Kind && p.Source.URL == src.URL && p.Source.Path == src.Path && p.Source.Selector == old
}

// renamePlugin gives plugin cur the id and source of entry: its skills
// ("OLD:NAME" become "NEW:NAME"), candidates, upstream refs and source ref
// move to the new id (same commits, so every merge base stays), its
// skills' records name the new plugin, and the state
// commit says which id it had. Versions written before keep their
// Plugin trailers: history is not rewritten.
func (tx *Tx) renamePlugin(cur, entry *Plugin, mkt string) error {
	old, nu := cur.ID, entry.ID
	if h, ok := tx.Ref(SourceRef(old)); ok {
		tx.SetRef(SourceRef(nu), h)
		tx.DeleteRef(SourceRef(old))
	}
	if err := tx.movePluginNamespace(old, nu); err != nil {
		return err
	}
	next := *cur
	next.ID, next.Source, next.EntrySkills, next.Marketplace = nu, entry.Source, entry.EntrySkills, mkt
	for _, skill := range cur.Skills {
		name := QualifiedName(nu, skill)
		if _, ok := tx.Ref(SkillRef(name)); !ok {
			continue
		}
		rec, err := tx.SkillRecord(name)
		if err != nil {
			return err
		}
		rec.Source = next.Label()
		if err := tx.PutSkillRecord(name, rec); err != nil {
			return err
		}
	}
	tx.DeleteRecord(pluginRecord(old))
	if err := tx.putPlugin(&next); err != nil {
		return err
	}
	tx.NoteState(fmt.Sprintf("plugin %s: renamed to %s by marketplace %s", old, nu, mkt),
		Trailer{Key: TrailerPlugin, Value: nu}, Trailer{Key: TrailerRenamedFrom, Value: old})
	return nil
}

// movePlugin makes plugin cur follow the source its marketplace now gives
// it (entry): the next sync fetches from there.
func (tx *Tx) movePlugin(cur, entry *Plugin, rep *SyncReport) error {
	next := *cur
	next.Source, next.EntrySkills = entry.Source, entry.EntrySkills
	if err := tx.putPlugin(&next); err != nil {
		return err
	}
	tx.NoteState(fmt.Sprintf("plugin %s: source %s -> %s (marketplace %s)", cur.ID, pinnedText(cur.Source), pinnedText(entry.Source), cur.Marketplace),
		Trailer{Key: TrailerPlugin, Value: cur.ID})
	rep.Moved = append(rep.Moved, PluginMove{Plugin: cur.ID, From: pinnedText(cur.Source), To: pinnedText(entry.Source)})
	return nil
}

// pinnedText is a source with its ref, which String leaves out.
func pinnedText(s Source) string {
	if s.Ref == "" {
		return s.String()
	}
	return s.String() + " at " + s.Ref
}

// movePluginNamespace moves every ref and record of plugin id old to id nu:
// published, candidate, upstream and superseded refs, and skill records.
// Deletions are queued before creations, so the one ref update never
// holds a ref that is a directory of another.
func (tx *Tx) movePluginNamespace(old, nu string) error {
	type move struct {
		from, to string
		h        Hash
	}
	var moves []move
	for _, pair := range [][2]string{
		{PluginRefPrefix + old + "/", PluginRefPrefix + nu + "/"},
		{PluginCandidateRefPrefix + old + "/", PluginCandidateRefPrefix + nu + "/"},
		{UpstreamRefPrefix + old + "/", UpstreamRefPrefix + nu + "/"},
		{SupersededRefPrefix + "plugins/" + old + "/", SupersededRefPrefix + "plugins/" + nu + "/"},
	} {
		for _, ref := range tx.RefNames(pair[0]) {
			h, _ := tx.Ref(ref)
			moves = append(moves, move{ref, pair[1] + strings.TrimPrefix(ref, pair[0]), h})
		}
	}
	for _, m := range moves {
		tx.DeleteRef(m.from)
	}
	for _, m := range moves {
		tx.SetRef(m.to, m.h)
	}
	kind := pluginSkillRecordKind + "/" + old
	keys, err := tx.RecordKeys(kind)
	if err != nil {
		return err
	}
	for _, k := range keys {
		var rec SkillRecord
		if _, err := tx.Record(kind+"/"+k, &rec); err != nil {
			return err
		}
		tx.DeleteRecord(kind + "/" + k)
		if err := tx.PutSkillRecord(QualifiedName(nu, k), rec); err != nil {
			return err
		}
	}
	return nil
}
