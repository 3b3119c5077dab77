package plugins

import (
	"fmt"
	"strings"

	"github.com/skillstore/skillstore/store"
)

// Rename gives plugin cur the id and source of entry: its skills
// ("OLD:NAME" become "NEW:NAME"), candidates, upstream refs and source ref
// move to the new id (same commits, so every merge base stays), its
// skills' records name the new plugin, and the state
// commit says which id it had. Versions written before keep their
// Plugin trailers: history is not rewritten.
func Rename(tx *store.Tx, cur, entry *Plugin, mkt string) error {
	old, nu := cur.ID, entry.ID
	if h, ok := tx.Ref(store.SourceRef(old)); ok {
		tx.SetRef(store.SourceRef(nu), h)
		tx.DeleteRef(store.SourceRef(old))
	}
	if err := movePluginNamespace(tx, old, nu); err != nil {
		return err
	}
	if err := renameProjectOnly(tx.Store(), old, nu); err != nil {
		return err
	}
	next := *cur
	next.ID, next.Source, next.EntrySkills, next.Marketplace = nu, entry.Source, entry.EntrySkills, mkt
	for _, skill := range cur.Skills {
		name := store.QualifiedName(nu, skill)
		if _, ok := tx.Ref(store.SkillRef(name)); !ok {
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
	tx.DeleteRecord(store.PluginRecord(old))
	if err := Put(tx, &next); err != nil {
		return err
	}
	tx.NoteState(fmt.Sprintf("plugin %s: renamed to %s by marketplace %s", old, nu, mkt),
		store.Trailer{Key: store.TrailerPlugin, Value: nu}, store.Trailer{Key: store.TrailerRenamedFrom, Value: old})
	return nil
}

// movePluginNamespace moves every ref and record of plugin id old to id nu:
// published, candidate, upstream and superseded refs, and skill records.
// Deletions are queued before creations, so the one ref update never
// holds a ref that is a directory of another.
func movePluginNamespace(tx *store.Tx, old, nu string) error {
	type move struct {
		from, to string
		h        store.Hash
	}
	var moves []move
	to := store.PluginPrefixes(nu)
	for i, from := range store.PluginPrefixes(old) {
		for _, ref := range tx.RefNames(from) {
			h, _ := tx.Ref(ref)
			moves = append(moves, move{ref, to[i] + strings.TrimPrefix(ref, from), h})
		}
	}
	for _, m := range moves {
		tx.DeleteRef(m.from)
	}
	for _, m := range moves {
		tx.SetRef(m.to, m.h)
	}
	names, err := tx.SkillRecordNames()
	if err != nil {
		return err
	}
	for _, name := range names {
		plugin, skill := store.SplitName(name)
		if plugin != old {
			continue
		}
		rec, err := tx.SkillRecord(name)
		if err != nil {
			return err
		}
		tx.DeleteSkillRecord(name)
		if err := tx.PutSkillRecord(store.QualifiedName(nu, skill), rec); err != nil {
			return err
		}
	}
	return nil
}
