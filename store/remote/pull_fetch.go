package remote

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
)

// maxFetchBytes caps what one fetch may download, so a hostile server
// cannot fill the disk: far above any store (a 1,000-skill store with ten
// versions each is a few megabytes).
const maxFetchBytes = 4 << 30

// remoteRefs is what a remote advertised in skillstore's namespaces.
type remoteRefs struct {
	remote string
	refs   map[string]store.Hash
	// ignored lists refs outside skillstore's namespaces (a forge's
	// refs/pull/*, a reviewer's own branches): never fetched.
	ignored []string
}

// names returns the sorted names of the refs of kind k.
func (rr *remoteRefs) names(k store.RefKind) []string {
	var out []string
	for name := range rr.refs {
		if kind, _ := store.ClassifyRef(name); kind == k {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// leaveOut drops every ref of the refused skills, so nothing of them is
// integrated or tracked: the next pull fetches and checks them again.
func (rr *remoteRefs) leaveOut(refused []RefusedSkill) {
	if len(refused) == 0 {
		return
	}
	out := map[string]bool{}
	for _, r := range refused {
		out[r.Skill] = true
	}
	for name := range rr.refs {
		if out[refSkill(name)] {
			delete(rr.refs, name)
		}
	}
}

// splitAdvertised sorts advertised refs into skillstore's (checked) and
// the others. A ref in skillstore's namespaces with a name local input
// could never produce refuses the whole remote.
func splitAdvertised(remote string, adv map[string]store.Hash) (*remoteRefs, error) {
	rr := &remoteRefs{remote: remote, refs: map[string]store.Hash{}}
	var bad, old []string
	for name, h := range adv {
		kind, err := store.ClassifyRef(name)
		switch {
		case isLayout1Ref(name):
			old = append(old, name)
		case kind == store.RefOther:
			rr.ignored = append(rr.ignored, name)
		case err != nil:
			bad = append(bad, fmt.Sprintf("%s: %v", name, err))
		default:
			rr.refs[name] = h
		}
	}
	sort.Strings(rr.ignored)
	if len(old) > 0 {
		sort.Strings(old)
		return nil, &RemoteLayoutError{Remote: remote, Layout: 1, Refs: old}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return nil, &BadRefError{Remote: remote, Refs: bad}
	}
	return rr, nil
}

// pullSnapshot is what a pull reads of the store, under the shared
// lock, before it goes on the network with no lock held.
type pullSnapshot struct {
	rem   Remote
	haves []store.Hash
	// known are the skills this store has a ref of (published, candidate
	// or upstream snapshot): a skill not among them is one the pull
	// creates.
	known map[string]bool
}

// snapshot reads the remote named name ("": the only one, or
// DefaultRemote) and what the store can offer it.
func snapshot(ctx context.Context, s *store.Store, name string) (*pullSnapshot, error) {
	snap := &pullSnapshot{known: map[string]bool{}}
	err := s.View(ctx, func(r *store.Reader) error {
		rem, err := find(s, name)
		if err != nil {
			return err
		}
		snap.rem, snap.haves = rem, haves(r, rem.Name)
		for _, ref := range r.RefNames("refs/") {
			if skill, ok := skillOfAnyRef(ref); ok {
				snap.known[skill] = true
			}
		}
		return nil
	})
	return snap, err
}

// pullFetch is what the network phase of a pull brought: the remote's
// refs, and the pack of the objects this store lacked, spooled to an
// unlinked temporary file (nil when nothing was asked).
type pullFetch struct {
	rr    *remoteRefs
	wants []store.Hash
	pack  *os.File
}

func (f *pullFetch) close() {
	if f != nil && f.pack != nil {
		f.pack.Close()
	}
}

// fetchUnlocked connects to the remote, reads its refs, refuses a remote
// with refs skillstore never writes or that would create more skills
// than the pull allows, and receives the pack of what this store lacks.
// It holds no store lock, as sync's fetches do (store.Prefetch): readers
// and writers go on while a slow server is waited for, and the fetch
// deadlines (store.Options.FetchTimeout) fail a server that accepts and
// never answers. The pack passes a gitdb.PackGuard as it arrives: an
// object over the size cap ends the transfer there, and a local
// remote's git process is killed and reaped, not waited for.
func fetchUnlocked(ctx context.Context, s *store.Store, snap *pullSnapshot, opts PullOptions) (*pullFetch, error) {
	// A remote is a source of skills like a plugin's: the source policy
	// decides whether it may be read.
	if err := plugins.CheckSource(s, plugins.Source{Kind: plugins.SourceGit, URL: snap.rem.URL}, ""); err != nil {
		return nil, fmt.Errorf("pull from %s: %w", snap.rem.Name, err)
	}
	conn, err := dialRemote(snap.rem, s.FetchOptions())
	if err != nil {
		return nil, err
	}
	sess, err := conn.openFetch(ctx)
	if err != nil {
		return nil, err
	}
	if sess == nil {
		return &pullFetch{rr: &remoteRefs{remote: snap.rem.Name, refs: map[string]store.Hash{}}}, nil // an empty repository
	}
	defer sess.Close()
	rr, err := splitAdvertised(snap.rem.Name, advertisedRefs(sess.Refs()))
	if err != nil {
		return nil, err
	}
	if err := checkNewSkills(rr, snap.known, opts.maxNewSkills()); err != nil {
		return nil, err
	}
	f := &pullFetch{rr: rr, wants: missingObjects(s.Dir(), rr)}
	if len(f.wants) == 0 {
		return f, nil
	}
	req := packp.NewUploadPackRequestFromCapabilities(sess.Refs().Capabilities)
	if sess.Refs().Capabilities.Supports(capability.NoProgress) {
		_ = req.Capabilities.Set(capability.NoProgress)
	}
	req.Wants = toGitAll(f.wants)
	req.Haves = toGitAll(snap.haves)
	spool, err := newPullSpool()
	if err != nil {
		return nil, err
	}
	if err := sess.FetchPack(req, spool); err != nil {
		spool.file.Close()
		return nil, conn.wrap("fetch from", err)
	}
	if err := spool.finish(); err != nil {
		spool.file.Close()
		return nil, conn.wrap("fetch from", err)
	}
	f.pack = spool.file
	return f, nil
}

// missingObjects are the advertised ref values the store at gitDir does
// not hold, sorted. Objects never change once written, so they are read
// without the lock (as sync's prefetch reads them): one gc may delete
// meanwhile is only asked for again.
func missingObjects(gitDir string, rr *remoteRefs) []store.Hash {
	db := gitdb.Open(gitDir)
	defer db.Close()
	seen := map[store.Hash]bool{}
	var wants []store.Hash
	for _, h := range rr.refs {
		if !seen[h] && !db.Has(h) {
			wants = append(wants, h)
		}
		seen[h] = true
	}
	sort.Slice(wants, func(i, j int) bool { return wants[i].String() < wants[j].String() })
	return wants
}

// pullSpool is where the pack of a pull is received: an unlinked
// temporary file, behind a size cap and a gitdb.PackGuard, so that the
// pack is stored (tx.StorePack) once the lock is taken.
type pullSpool struct {
	file  *os.File
	guard *gitdb.PackGuard
	left  int64
}

func newPullSpool() (*pullSpool, error) {
	f, err := os.CreateTemp("", "skillstore-pull-*.pack")
	if err != nil {
		return nil, fmt.Errorf("spool the fetched pack: %w", err)
	}
	os.Remove(f.Name()) // nothing is left behind, even on a crash
	return &pullSpool{file: f, guard: gitdb.NewPackGuard(), left: maxFetchBytes}, nil
}

// Write fails at once on a refusal: the transfer stops there.
func (s *pullSpool) Write(p []byte) (int, error) {
	if s.left -= int64(len(p)); s.left < 0 {
		return 0, fmt.Errorf("the remote sent more than %d bytes", int64(maxFetchBytes))
	}
	if _, err := s.guard.Write(p); err != nil {
		if gerr := s.guard.Close(); gerr != nil {
			return 0, gerr
		}
		return 0, err
	}
	return s.file.Write(p)
}

// finish takes the guard's verdict and rewinds the file for reading.
func (s *pullSpool) finish() error {
	if err := s.guard.Close(); err != nil {
		return err
	}
	_, err := s.file.Seek(0, io.SeekStart)
	return err
}

// haves are the commits this store can tell the server it has: the tips
// of its own travelling refs and of what it last saw on the remote.
func haves(r *store.Reader, remote string) []store.Hash {
	seen := map[store.Hash]bool{}
	var out []store.Hash
	add := func(prefix string) {
		for _, name := range r.RefNames(prefix) {
			if kind, _ := store.ClassifyRef(name); kind == store.RefOther && prefix != store.RemoteRefPrefix+remote+"/" {
				continue
			}
			h, _ := r.Ref(name)
			if !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	add("refs/heads/")
	add(store.UpstreamRefPrefix)
	add(store.StateRef)
	add(store.RemoteRefPrefix + remote + "/")
	return out
}

// packNames lists the packs of the repository by file name.
func packNames(gitDir string) map[string]bool {
	out := map[string]bool{}
	entries, _ := os.ReadDir(filepath.Join(gitDir, "objects", "pack"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "pack-") && strings.HasSuffix(e.Name(), ".pack") {
			out[e.Name()] = true
		}
	}
	return out
}

// discardPacks removes the packs that are not in before: those a failed
// fetch wrote. The caller holds the write lock and no ref points into
// them. The .pack goes first, since readers find packs by it.
func discardPacks(gitDir string, before map[string]bool) {
	dir := filepath.Join(gitDir, "objects", "pack")
	for name := range packNames(gitDir) {
		if before[name] {
			continue
		}
		base := filepath.Join(dir, strings.TrimSuffix(name, ".pack"))
		if os.Remove(base+".pack") == nil {
			os.Remove(base + ".idx")
		}
	}
}
