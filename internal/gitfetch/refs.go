package gitfetch

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing/transport"
)

// RefNames lists the branch and tag names (short: "main", "v1.2",
// "feature/x") a remote advertises, without fetching any object. It lets a
// caller tell the ref from the path in an address such as
// .../tree/feature/x/skills, where either may hold a '/'. It has the same
// connect deadline as [Fetch].
func RefNames(ctx context.Context, url string, opts Options) ([]string, error) {
	ep, err := transport.NewEndpoint(url)
	if err != nil {
		return nil, fmt.Errorf("list the refs of %s: %w", url, err)
	}
	w := newWatchdog(ctx, url, opts.timeout())
	defer w.stop()
	sess, err := openSession(w, ep)
	if err != nil {
		return nil, fmt.Errorf("list the refs of %s: %w", url, w.explain(err))
	}
	defer sess.Close()
	w.progress("listing refs")
	adv, err := sess.AdvertisedReferencesContext(w.ctx)
	if err != nil {
		return nil, fmt.Errorf("list the refs of %s: %w", url, w.explain(err))
	}
	refs, err := advertisedRefs(adv)
	if err != nil {
		return nil, fmt.Errorf("list the refs of %s: %w", url, err)
	}
	var names []string
	for _, r := range refs {
		if n := r.Name(); n.IsBranch() || n.IsTag() {
			names = append(names, n.Short())
		}
	}
	return names, nil
}
