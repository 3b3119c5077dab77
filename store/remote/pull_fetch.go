package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/store"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"
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
func (rr *remoteRefs) names(k refKind) []string {
	var out []string
	for name := range rr.refs {
		if kind, _ := classifyRef(name); kind == k {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// splitAdvertised sorts advertised refs into skillstore's (checked) and
// the others. A ref in skillstore's namespaces with a name local input
// could never produce refuses the whole remote.
func splitAdvertised(remote string, adv map[string]store.Hash) (*remoteRefs, error) {
	rr := &remoteRefs{remote: remote, refs: map[string]store.Hash{}}
	var bad, old []string
	for name, h := range adv {
		kind, err := classifyRef(name)
		switch {
		case isLayout1Ref(name):
			old = append(old, name)
		case kind == refOther:
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

// fetchRemote downloads the objects of the remote's skillstore refs into
// the store's object database. It writes no ref: the caller checks what
// arrived and only then points refs at it. Objects that end up
// unreferenced (a refused fetch, a kill) are pruned by gc after its grace
// period.
func (tx remoteTx) fetchRemote(ctx context.Context, conn *remoteConn) (*remoteRefs, error) {
	sess, ar, err := conn.uploadPack(ctx)
	if err != nil {
		return nil, err
	}
	if sess == nil {
		return &remoteRefs{remote: conn.rem.Name, refs: map[string]store.Hash{}}, nil // an empty repository
	}
	defer sess.Close()
	rr, err := splitAdvertised(conn.rem.Name, advertisedRefs(ar))
	if err != nil {
		return nil, err
	}
	seen := map[store.Hash]bool{}
	var wants []store.Hash
	for _, h := range rr.refs {
		if !seen[h] && !tx.HasObject(h) {
			wants = append(wants, h)
		}
		seen[h] = true
	}
	if len(wants) == 0 {
		return rr, nil
	}
	sort.Slice(wants, func(i, j int) bool { return wants[i].String() < wants[j].String() })
	req := packp.NewUploadPackRequestFromCapabilities(ar.Capabilities)
	if ar.Capabilities.Supports(capability.NoProgress) {
		_ = req.Capabilities.Set(capability.NoProgress)
	}
	req.Wants = toGitAll(wants)
	req.Haves = toGitAll(tx.haves(conn.rem.Name))
	reader, err := sess.UploadPack(ctx, req)
	if errors.Is(err, transport.ErrEmptyUploadPackRequest) {
		return rr, nil
	}
	if err != nil {
		return nil, conn.wrap("fetch from", err)
	}
	defer reader.Close()
	in := sidebandReader(req.Capabilities, reader)
	if err := tx.StorePack(&cappedReader{r: in, left: maxFetchBytes}); err != nil {
		return nil, conn.wrap("fetch from", err)
	}
	for _, h := range wants {
		if !tx.HasObject(h) {
			return nil, fmt.Errorf("fetch from %s: the remote did not send %s", conn.rem.Name, h)
		}
	}
	return rr, nil
}

// haves are the commits this store can tell the server it has: the tips
// of its own travelling refs and of what it last saw on the remote.
func (tx remoteTx) haves(remote string) []store.Hash {
	seen := map[store.Hash]bool{}
	var out []store.Hash
	add := func(prefix string) {
		for _, name := range tx.RefNames(prefix) {
			if kind, _ := classifyRef(name); kind == refOther && prefix != RemoteRefPrefix+remote+"/" {
				continue
			}
			h, _ := tx.Ref(name)
			if !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	add("refs/heads/")
	add(store.UpstreamRefPrefix)
	add(store.StateRef)
	add(RemoteRefPrefix + remote + "/")
	return out
}

func sidebandReader(caps *capability.List, r io.Reader) io.Reader {
	switch {
	case caps.Supports(capability.Sideband64k):
		return sideband.NewDemuxer(sideband.Sideband64k, r)
	case caps.Supports(capability.Sideband):
		return sideband.NewDemuxer(sideband.Sideband, r)
	}
	return r
}

// cappedReader fails once more than left bytes were read.
type cappedReader struct {
	r    io.Reader
	left int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n, fmt.Errorf("the remote sent more than %d bytes", int64(maxFetchBytes))
	}
	return n, err
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
