package remote

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/problem"
	"github.com/skillstore/skillstore/store"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
)

// PushOptions tune a push.
type PushOptions struct {
	// Remote names the remote; "" is the only one, or DefaultRemote.
	Remote string
	// DryRun computes and checks the updates without sending anything.
	DryRun bool
}

// PushAction is what push does with one ref.
type PushAction string

// What push does with a remote ref.
const (
	PushCreate      PushAction = "create"
	PushFastForward PushAction = "fast-forward"
	// PushReplace replaces a remote candidate this store superseded,
	// accepted or rejected, only while the remote still holds the value
	// this store last fetched (force-with-lease).
	PushReplace PushAction = "replace"
	// PushDelete deletes a remote candidate this store accepted or
	// rejected, under the same lease.
	PushDelete PushAction = "delete"
	// PushSkip leaves an upstream snapshot ref that both sides moved.
	PushSkip PushAction = "skip"
)

// PushReport is what a push sent (or, with DryRun, would send).
type PushReport struct {
	Remote  string       `json:"remote"`
	URL     string       `json:"url"` // redacted
	Updates []PushUpdate `json:"updates"`
	Objects int          `json:"objects"`
	DryRun  bool         `json:"dry_run,omitempty"`
}

// PushUpdate is one remote ref push changes or leaves.
type PushUpdate struct {
	Ref    string     `json:"ref"`
	Action PushAction `json:"action"`
	Old    string     `json:"old,omitempty"`
	New    string     `json:"new,omitempty"`
	Reason string     `json:"reason,omitempty"`
}

// PushRefusedError refuses a push that would overwrite something on the
// remote: a published skill, the state or a candidate the remote has
// changed. Nothing was sent.
type PushRefusedError struct {
	Remote string
	Refs   []PushUpdate // Action is "refused", Reason says why
}

func (e *PushRefusedError) Error() string { return problem.Format(e.Summary(), e.Details()) }

// Summary names the remote.
func (e *PushRefusedError) Summary() string {
	return "push to " + e.Remote + " refused, nothing was sent"
}

// Details are the refused refs, "ref: reason" each.
func (e *PushRefusedError) Details() []string {
	out := make([]string, len(e.Refs))
	for i, r := range e.Refs {
		out[i] = r.Ref + ": " + r.Reason
	}
	return out
}

// LocalRecordsError refuses to push a state that holds records of this
// machine (target folders, which older skillstore releases kept there): they
// must move out of the state first (package target does it on first use).
type LocalRecordsError struct {
	Records []string
}

func (e *LocalRecordsError) Error() string {
	return fmt.Sprintf("the state holds records of this machine that must not be pushed (%s); nothing was sent", strings.Join(e.Records, ", "))
}

// ErrRemoteRejected is wrapped when the server refused the update after
// receiving it: a ref moved since it was read (someone pushed meanwhile:
// the server's compare-and-swap failed), or a hook or branch protection
// declined it. With an atomic push nothing changed on the server.
var ErrRemoteRejected = errors.New("the server refused the update")

// Push sends published skills, upstream snapshots, candidates, superseded
// candidates and the state to the remote. Published skills and the state
// only fast-forward: a remote that has versions this store lacks refuses
// the whole push with a *PushRefusedError (pull first). Nothing on the
// remote is overwritten, except a candidate this store superseded,
// accepted or rejected, and only while the remote still holds what this
// store last fetched. The update is atomic where the server supports it,
// and the server refuses it if a ref moved since it was read.
func Push(ctx context.Context, s *store.Store, opts PushOptions) (*PushReport, error) {
	var rep *PushReport
	err := s.Update(ctx, func(tx *store.Tx) error {
		rem, err := find(s, opts.Remote)
		if err != nil {
			return err
		}
		if local, err := (remoteTx{tx}).localRecordsInState(); err != nil || len(local) > 0 {
			if err == nil {
				err = &LocalRecordsError{Records: local}
			}
			return err
		}
		conn, err := dialRemote(rem, s.FetchOptions())
		if err != nil {
			return err
		}
		// A refusal by the server's compare-and-swap means a ref moved
		// since it was advertised; planning again from the new values
		// either finds the push done already, sends what is still
		// missing, or refuses it as a non-fast-forward.
		for attempt := 0; ; attempt++ {
			rep, err = remoteTx{tx}.push(ctx, conn, opts)
			if !errors.Is(err, ErrRemoteRejected) || attempt == 2 {
				return err
			}
			s.Logger().Debug("push refused by the server, planning again", "err", err)
		}
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

func (tx remoteTx) push(ctx context.Context, conn *remoteConn, opts PushOptions) (*PushReport, error) {
	defer tx.KeepPacksOpen()()
	rem := conn.rem
	sess, ar, err := conn.receivePack(ctx)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	adv := advertisedRefs(ar)
	rep := &PushReport{Remote: rem.Name, URL: rem.Redacted(), Updates: []PushUpdate{}, DryRun: opts.DryRun}
	updates, refused := tx.planPush(rem.Name, adv)
	if len(refused) > 0 {
		return nil, &PushRefusedError{Remote: rem.Name, Refs: refused}
	}
	var cmds []*packp.Command
	var wants []store.Hash
	for _, u := range updates {
		rep.Updates = append(rep.Updates, u)
		if u.Action == PushSkip {
			continue
		}
		cmd := &packp.Command{Name: refName(u.Ref)}
		if h, ok := store.ParseHash(u.Old); ok {
			cmd.Old = toGit(h)
		}
		if h, ok := store.ParseHash(u.New); ok {
			cmd.New = toGit(h)
			wants = append(wants, h)
		}
		cmds = append(cmds, cmd)
	}
	if len(cmds) == 0 || opts.DryRun {
		if !opts.DryRun {
			tx.updateTracking(rem.Name, &remoteRefs{remote: rem.Name, refs: travelling(adv)})
		}
		return rep, nil
	}
	var haves []store.Hash
	for _, h := range adv {
		if tx.HasObject(h) {
			haves = append(haves, h)
		}
	}
	objReader := newPackedReader(tx.Tx)
	defer objReader.close()
	listStart := time.Now()
	objects, err := objReader.objectsToPush(wants, haves)
	tx.Store().Logger().Debug("push: objects listed", "objects", len(objects), "took", time.Since(listStart))
	if err != nil {
		return nil, fmt.Errorf("push to %s: list objects: %w", rem.Name, err)
	}
	rep.Objects = len(objects)
	req := packp.NewReferenceUpdateRequestFromCapabilities(ar.Capabilities)
	if ar.Capabilities.Supports(capability.Atomic) {
		_ = req.Capabilities.Set(capability.Atomic)
	}
	req.Commands = cmds
	if len(wants) > 0 {
		pr, pw := io.Pipe()
		req.Packfile = pr
		go func() {
			// Buffered: the encoder writes object by object, in pieces of a
			// few bytes, and each would otherwise be one write on the wire.
			bw := bufio.NewWriterSize(pw, 1<<16)
			err := gitdb.StreamPack(bw, objects, objReader.object)
			if err == nil {
				err = bw.Flush()
			}
			pw.CloseWithError(err)
		}()
	}
	sendStart := time.Now()
	status, err := sess.ReceivePack(ctx, req)
	tx.Store().Logger().Debug("push: pack sent and refs updated", "took", time.Since(sendStart))
	if err == nil && status != nil {
		err = status.Error()
	}
	if err != nil && status != nil {
		return nil, fmt.Errorf("push to %s: %w: %s", rem.Name, ErrRemoteRejected, redactIn(err.Error(), rem.URL))
	}
	if err != nil {
		return nil, conn.wrap("push to", err)
	}
	after := travelling(adv)
	for _, c := range cmds {
		if c.New.IsZero() {
			delete(after, c.Name.String())
		} else {
			after[c.Name.String()] = fromGit(c.New)
		}
	}
	tx.updateTracking(rem.Name, &remoteRefs{remote: rem.Name, refs: after})
	return rep, nil
}

// travelling keeps the advertised refs in skillstore's namespaces.
func travelling(adv map[string]store.Hash) map[string]store.Hash {
	out := map[string]store.Hash{}
	for name, h := range adv {
		if kind, err := store.ClassifyRef(name); kind != store.RefOther && err == nil {
			out[name] = h
		}
	}
	return out
}

// planPush decides, ref by ref, what push does, and what it refuses.
func (tx remoteTx) planPush(remote string, adv map[string]store.Hash) (updates, refused []PushUpdate) {
	var local []string
	for _, prefix := range []string{store.SkillRefPrefix, store.PluginRefPrefix, store.UpstreamRefPrefix, store.CandidateRefPrefix, store.SupersededRefPrefix, store.StateRef} {
		local = append(local, tx.RefNames(prefix)...)
	}
	sort.Strings(local)
	isLocal := map[string]bool{}
	for _, name := range local {
		isLocal[name] = true
		kind, err := store.ClassifyRef(name)
		if err != nil {
			continue // verify reports it; it never travels
		}
		l, _ := tx.Ref(name)
		r, onRemote := adv[name]
		u := PushUpdate{Ref: name, New: l.String()}
		switch {
		case onRemote && r == l:
			continue
		case !onRemote:
			u.Action = PushCreate
			updates = append(updates, u)
			continue
		}
		u.Old = r.String()
		if tx.HasObject(r) && tx.IsAncestor(r, l) {
			u.Action = PushFastForward
			updates = append(updates, u)
			continue
		}
		switch kind {
		case store.RefSkill:
			u.Reason = "the remote has versions this store does not have: run 'skillstore pull' first"
			if c, ok := tx.Ref(store.CandidateRef(store.SkillOfRef(name))); ok && tx.HasObject(r) && tx.IsAncestor(r, c) {
				u.Reason = "the merge with the remote's versions waits as a candidate: accept it, then push"
			}
		case store.RefState:
			u.Reason = "the remote's state changed: run 'skillstore pull' first"
		case store.RefUpstream:
			u.Action, u.Reason = PushSkip, "both sides took different snapshots; the remote's stays"
			updates = append(updates, u)
			continue
		case store.RefSuperseded:
			continue // named by its value: the same on both sides
		case store.RefCandidate:
			if tx.leaseHolds(remote, name, r) {
				u.Action, u.Reason = PushReplace, "this store superseded, accepted or rejected the remote's candidate"
				updates = append(updates, u)
				continue
			}
			u.Reason = "the remote's candidate changed since this store last pulled (a reviewer's commits?): run 'skillstore pull' first"
		}
		u.Action = "refused"
		refused = append(refused, u)
	}
	var remoteOnly []string
	for name := range adv {
		if !isLocal[name] && strings.HasPrefix(name, store.CandidateRefPrefix) {
			remoteOnly = append(remoteOnly, name)
		}
	}
	sort.Strings(remoteOnly)
	for _, name := range remoteOnly {
		if r := adv[name]; tx.leaseHolds(remote, name, r) {
			updates = append(updates, PushUpdate{Ref: name, Action: PushDelete, Old: r.String(), Reason: "accepted or rejected in this store"})
		}
	}
	return updates, refused
}

// leaseHolds reports whether this store may replace or delete the remote
// candidate ref name at value r: it is what the last pull or push saw,
// and this store is done with that candidate.
func (tx remoteTx) leaseHolds(remote, name string, r store.Hash) bool {
	seen, ok := tx.Ref(store.TrackingRef(remote, name))
	return ok && seen == r && tx.candidateDone(store.SkillOfRef(name), r)
}

func refName(name string) plumbing.ReferenceName { return plumbing.ReferenceName(name) }
