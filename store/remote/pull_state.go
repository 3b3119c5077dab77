package remote

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
)

// StateAction is what pull did with the state ref.
type StateAction string

// How pull merged the state ref.
const (
	StateUpToDate    StateAction = "up-to-date"
	StateLocalAhead  StateAction = "local-ahead"
	StateFastForward StateAction = "fast-forward"
	StateMerged      StateAction = "merged"
)

// localRecordKinds are state records that describe this machine, not the
// store: a target is a folder on this machine's disk. Target records now
// live outside the state (package target moves old ones out); pull never
// takes them from a remote (a remote must not choose where export writes,
// and an older remote may still hold some), and push refuses a state that
// still holds them.
var localRecordKinds = []string{"targets/"}

// StateMerge is how pull merged the state ref, record by record: a record
// changed on one side only takes that change; changed identically on both,
// it is kept; changed differently on both (or changed on one side and
// deleted on the other) it is a conflict and this store's record stays.
type StateMerge struct {
	Action    StateAction     `json:"action,omitempty"`
	Taken     []string        `json:"taken,omitempty"` // records taken from the remote
	Conflicts []StateConflict `json:"conflicts,omitempty"`
	// Untrusted are plugins whose record or source came from the remote:
	// sync fetches them only after 'skillstore plugin trust' on this
	// machine.
	Untrusted []string `json:"untrusted,omitempty"`
	// Refused are plugins this machine never syncs although their records
	// are taken (so that a push keeps them for the machine they belong to):
	// a local source from a remote (a folder, a path or file:// URL of a
	// git repository: store.Source.IsLocal) would make this machine mirror,
	// and push, files of its own disk. They stay untrusted for good.
	Refused []StateConflict `json:"refused,omitempty"`
}

// StateConflict is a record both sides changed differently.
type StateConflict struct {
	Record string `json:"record"`
	Reason string `json:"reason"`
}

// mergeState merges the remote's state commit into this store's.
func (tx remoteTx) mergeState(remote store.Hash, rem Remote) (StateMerge, error) {
	local, hasLocal := tx.Ref(store.StateRef)
	switch {
	case hasLocal && local == remote:
		return StateMerge{Action: StateUpToDate}, nil
	case hasLocal && tx.IsAncestor(remote, local):
		return StateMerge{Action: StateLocalAhead}, nil
	}
	var base store.Hash
	if hasLocal {
		var err error
		if base, err = tx.MergeBase(local, remote); err != nil {
			return StateMerge{}, err
		}
	}
	records := func(commit store.Hash) (map[string]store.Hash, store.Hash, error) {
		if commit.IsZero() {
			return map[string]store.Hash{}, store.ZeroHash, nil
		}
		c, err := tx.Commit(commit)
		if err != nil {
			return nil, store.ZeroHash, fmt.Errorf("state %s: %w", short(commit), err)
		}
		files, err := tx.Files(c.Tree)
		if err != nil {
			return nil, store.ZeroHash, fmt.Errorf("state %s: %w", short(commit), err)
		}
		out := map[string]store.Hash{}
		for _, f := range files {
			out[f.Path] = f.ID
		}
		return out, c.Tree, nil
	}
	b, _, err := records(base)
	if err != nil {
		return StateMerge{}, err
	}
	o, oTree, err := records(local)
	if err != nil {
		return StateMerge{}, err
	}
	t, tTree, err := records(remote)
	if err != nil {
		return StateMerge{}, err
	}

	sm := StateMerge{}
	paths := map[string]bool{}
	for _, m := range []map[string]store.Hash{b, o, t} {
		for p := range m {
			paths[p] = true
		}
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	var merged []store.File
	untrusted := map[string]plugins.Source{}
	for _, p := range sorted {
		bh, oh, th := b[p], o[p], t[p]
		keep := oh
		record := strings.TrimSuffix(p, recordExt)
		switch {
		case isLocalRecord(p), oh == th, th == bh:
		case oh == bh:
			if reason := tx.pluginFromRemote(p, oh, th, untrusted); reason != "" {
				sm.Refused = append(sm.Refused, StateConflict{Record: record, Reason: reason})
			}
			keep = th
			sm.Taken = append(sm.Taken, record)
		default:
			reason := "changed differently on both sides"
			switch {
			case oh.IsZero():
				reason = "deleted here, changed on the remote"
			case th.IsZero():
				reason = "changed here, deleted on the remote"
			case bh.IsZero():
				reason = "added differently on both sides"
			}
			sm.Conflicts = append(sm.Conflicts, StateConflict{Record: record, Reason: reason + "; this store's is kept"})
		}
		if !keep.IsZero() {
			merged = append(merged, store.File{Path: p, Mode: skillfs.Regular, ID: keep})
		}
	}
	tree, err := tx.WriteTree(merged)
	if err != nil {
		return StateMerge{}, fmt.Errorf("merge state: %w", err)
	}
	if err := plugins.MarkUntrusted(tx.Tx, untrusted); err != nil {
		return StateMerge{}, err
	}
	for id := range untrusted {
		sm.Untrusted = append(sm.Untrusted, id)
	}
	sort.Strings(sm.Untrusted)
	switch {
	case hasLocal && tree == oTree && tx.IsAncestor(remote, local):
		sm.Action = StateLocalAhead
		return sm, nil
	case tree == tTree && (!hasLocal || tx.IsAncestor(local, remote)):
		tx.SetRef(store.StateRef, remote)
		sm.Action = StateFastForward
		return sm, nil
	}
	parents := []store.Hash{remote}
	if hasLocal {
		parents = []store.Hash{local, remote}
	}
	var body []string
	for _, c := range sm.Conflicts {
		body = append(body, "Conflict: "+c.Record+": "+c.Reason)
	}
	merge := tx.CommitTree(tree, parents, "state: merge "+rem.Name, strings.Join(body, "\n"),
		store.Trailer{Key: store.TrailerRemote, Value: rem.Name})
	tx.SetRef(store.StateRef, merge)
	sm.Action = StateMerged
	return sm, nil
}

// localRecordsInState lists the records of the current state that belong
// to this machine only (see localRecordKinds).
func (r remoteTx) localRecordsInState() ([]string, error) {
	var out []string
	for _, kind := range localRecordKinds {
		keys, err := r.RecordKeys(strings.TrimSuffix(kind, "/"))
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			out = append(out, kind+k)
		}
	}
	return out, nil
}

func isLocalRecord(path string) bool {
	for _, k := range localRecordKinds {
		if strings.HasPrefix(path, k) {
			return true
		}
	}
	return false
}

// pluginFromRemote looks at a plugin record pull is about to take from the
// remote (path, this store's blob local and the remote's remote): a new
// plugin or a changed source is added to untrusted, to wait for approval;
// for a local source, which can never be approved, the reason is
// returned too.
func (tx remoteTx) pluginFromRemote(path string, local, remote store.Hash, untrusted map[string]plugins.Source) string {
	id, ok := strings.CutPrefix(strings.TrimSuffix(path, recordExt), "plugins/")
	if !ok || remote.IsZero() {
		return ""
	}
	source := func(h store.Hash) (plugins.Source, bool) {
		if h.IsZero() {
			return plugins.Source{}, false
		}
		data, err := tx.Blob(h)
		var rec struct {
			Source plugins.Source `json:"source"`
		}
		if err != nil || json.Unmarshal(data, &rec) != nil {
			return plugins.Source{}, false
		}
		return rec.Source, true
	}
	theirs, _ := source(remote)
	ours, ok := source(local)
	if theirs.IsLocal() && (!ok || ours != theirs) {
		untrusted[id] = theirs
		what := "a local folder"
		if theirs.Kind == plugins.SourceGit {
			what = "a repository on this machine's disk"
		}
		return fmt.Sprintf("never synced here: its source is %s (%s), and a remote cannot make this machine read its own files; add it with 'skillstore plugin add' if it is yours", what, theirs.URL)
	}
	if !ok || ours != theirs {
		untrusted[id] = theirs
	}
	return ""
}
