package pluginsync

import (
	"context"
	"fmt"
	"time"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/safety"
)

// allowed is the risk sync takes in for sk of plugin p, and whether an
// acceptance of this very tree raised it.
func (o Options) allowed(p *plugins.Plugin, sk *skillIn) (safety.RiskLevel, bool) {
	allow := o.AllowRisk
	if allow == safety.RiskNone {
		allow = safety.DefaultAllowedRisk
	}
	if o.RiskCap > 0 {
		allow = min(allow, o.RiskCap)
	}
	if a, ok := o.accepted[store.QualifiedName(p.ID, sk.Name)]; ok && a.Tree == sk.Tree.String() && a.Risk > allow {
		if o.RiskCap > 0 && a.Risk > o.RiskCap {
			return min(allow, o.RiskCap), false // the organisation's cap wins over an acceptance
		}
		return a.Risk, true
	}
	return allow, false
}

// withAccepted returns o with the recorded acceptances (and the held
// memo, see heldName) loaded.
func withAccepted(tx *store.Tx, o Options) (Options, error) {
	m, err := plugins.AcceptedRisks(tx.Reader)
	if err != nil {
		return o, err
	}
	o.accepted, o.held = m, readHeld(tx.Reader)
	return o, nil
}

// TrustSkill accepts the risk of skill (or PluginPartsName) of plugin as
// its source holds it now: the commit the last sync fetched, or the
// folder on disk. It fails with ErrNothingToAccept when that tree is
// within what sync allows, and for a skill that fails validation.
func TrustSkill(ctx context.Context, s *store.Store, plugin, skill string, riskCap safety.RiskLevel) (*plugins.TrustedSkill, error) {
	var out *plugins.TrustedSkill
	err := s.Update(ctx, func(tx *store.Tx) error {
		p, err := plugins.Get(tx.Reader, plugin)
		if err != nil {
			return err
		}
		us, err := plugins.UpstreamNow(ctx, tx, p, skill)
		if err != nil {
			return err
		}
		sk := &skillIn{UpstreamSkill: us}
		if err := intake(tx, sk); err != nil {
			return err
		}
		var previous []store.File
		name := store.QualifiedName(p.ID, skill)
		if head, ok := tx.Ref(store.SkillRef(name)); ok {
			if c, err := tx.Commit(head); err == nil {
				previous = tx.FilesOrNil(c.Tree)
			}
		}
		rep, err := checkUpstream(tx, name, sk, previous, &SkillReport{}, safety.RiskCritical)
		if err != nil {
			return fmt.Errorf("plugin %s, skill %s: %w", plugin, skill, err)
		}
		allow := safety.DefaultAllowedRisk
		if riskCap > 0 {
			allow = min(allow, riskCap)
		}
		if rep.Risk <= allow {
			return fmt.Errorf("plugin %s, skill %s: %w: its upstream's risk is %s, which sync takes in already", plugin, skill, plugins.ErrNothingToAccept, rep.Risk)
		}
		a := plugins.Acceptance{Tree: sk.Tree.String(), Risk: rep.Risk, By: identityString(tx.Identity()), At: time.Now().UTC()}
		for _, f := range rep.Findings {
			if f.Level > allow && !f.Known {
				a.Findings = append(a.Findings, f.String())
			}
		}
		if err := plugins.RecordAcceptance(s, name, a); err != nil {
			return err
		}
		out = &plugins.TrustedSkill{Skill: name, Tree: sk.Tree.String(), Risk: rep.Risk, Findings: rep.Findings}
		return nil
	})
	return out, err
}

// identityString is who accepted a finding, as git writes an author.
func identityString(id store.Identity) string {
	return fmt.Sprintf("%s <%s>", id.Name, id.Email)
}

// allowedByPolicy is the plugins a sync may read: each one whose source
// the policy refuses gets a failed report instead, and is never read (not
// even by the folder reads ahead, which start after this).
func allowedByPolicy(tx *store.Tx, recs []*plugins.Plugin, rep *Report) []*plugins.Plugin {
	out := recs[:0:0]
	for _, p := range recs {
		if p.Disabled || p.Paused {
			out = append(out, p) // skipped anyway, and reported as such
			continue
		}
		if err := plugins.CheckSource(tx.Store(), p.Source, p.Marketplace); err != nil {
			rep.Plugins = append(rep.Plugins, PluginReport{Plugin: p.ID, Source: p.Source.String(), Skills: []SkillReport{}, Error: err.Error(), Err: err})
			continue
		}
		out = append(out, p)
	}
	return out
}
