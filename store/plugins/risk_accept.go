package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// Accepting a finding. A plugin's skill whose risk is above what sync
// allows is left out (or held at its published version). A person who has
// read its findings accepts them with 'plugin trust PLUGIN:SKILL': the
// acceptance names the skill and the upstream tree it was given for, so
// the next sync takes that tree in (and publishes an update of it rather
// than holding it for review), and any change upstream asks again.
//
// Acceptances are this machine's, like the approval of a plugin from a
// remote (plugin_trust.go): a local file, never pushed, so a teammate's
// store cannot accept a finding for this one.

// acceptedName is the local file of acceptances, by skill.
const acceptedName = "accepted-risks.json"

// Acceptance is a person's acceptance of one upstream tree's risk.
type Acceptance struct {
	// Tree is the upstream tree (intake applied) the acceptance covers.
	Tree string `json:"tree"`
	// Risk is the level accepted.
	Risk safety.RiskLevel `json:"risk"`
	// By is who accepted it ("Name <email>", the store's identity), At
	// when, and Findings the findings they read and accepted (those above
	// what sync allows, one line each as reports print them).
	By       string    `json:"by,omitempty"`
	At       time.Time `json:"at,omitzero"`
	Findings []string  `json:"findings,omitempty"`
}

// TrustedSkill is what 'plugin trust PLUGIN:SKILL' accepted.
type TrustedSkill struct {
	Skill    string           `json:"skill"`
	Tree     string           `json:"tree"`
	Risk     safety.RiskLevel `json:"risk"`
	Findings []safety.Finding `json:"findings"`
}

// ErrNothingToAccept is wrapped when a skill's upstream has no risk above
// what sync allows.
var ErrNothingToAccept = errors.New("nothing to accept")

func readAccepted(path string) (map[string]Acceptance, error) {
	return readRecordMap[Acceptance](path, "accepted risks")
}

// AcceptedRisks reads the acceptances 'plugin trust PLUGIN:SKILL' made, by
// skill ("PLUGIN:SKILL").
func AcceptedRisks(r *store.Reader) (map[string]Acceptance, error) {
	return readAccepted(r.Store().LocalPath(acceptedName))
}

// UpstreamNow reads skill (or the plugin's parts) of plugin p as sync
// would see it now, without fetching: at the commit the last sync fetched
// for a git source, from disk for a folder.
func UpstreamNow(ctx context.Context, tx *store.Tx, p *Plugin, skill string) (*UpstreamSkill, error) {
	var up *Upstream
	var err error
	if p.Source.Kind == SourceFolder {
		up, err = ReadFolder(p.Source, nil)
	} else {
		tip, ok := tx.Ref(store.SourceRef(p.ID))
		if !ok {
			return nil, fmt.Errorf("plugin %s was never fetched: run 'skillstore sync %s' first", p.ID, p.ID)
		}
		up, err = UpstreamAt(tx, p, gitfetch.Stored(objectsOf(tx.Reader), tip))
	}
	if err != nil {
		return nil, err
	}
	if skill == store.PluginPartsName {
		_, hasUnit := tx.Ref(store.SkillRef(store.PluginPartsUnit(p.ID)))
		sk, err := ReadParts(tx, p, up, hasUnit)
		if err == nil && sk == nil {
			err = fmt.Errorf("plugin %s has no parts upstream", p.ID)
		}
		return sk, err
	}
	sk, ok := up.Skills[skill]
	if !ok || !p.Selects(skill) && !p.Owns(skill) {
		return nil, fmt.Errorf("plugin %s: %w upstream (or not selected)", p.ID, &store.UnknownSkillError{Name: store.QualifiedName(p.ID, skill)})
	}
	return sk, nil
}

// RecordAcceptance records on this machine that a person accepted the
// risk of skill name ("PLUGIN:SKILL") for one upstream tree (see
// [AcceptedRisks]); an acceptance recorded before for the skill is
// replaced. The caller holds the write lock.
func RecordAcceptance(s *store.Store, name string, a Acceptance) error {
	path := s.LocalPath(acceptedName)
	m, err := readAccepted(path)
	if err != nil {
		return err
	}
	m[name] = a
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // "Name <email>" stays readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b.Bytes(), 0o644)
}
