package gitfetch

import (
	"context"
	"fmt"
)

// RefNames lists the branch and tag names (short: "main", "v1.2",
// "feature/x") a remote advertises, without fetching any object. It lets a
// caller tell the ref from the path in an address such as
// .../tree/feature/x/skills, where either may hold a '/'. It has the same
// connect deadline as [Fetch].
func RefNames(ctx context.Context, url string, opts Options) ([]string, error) {
	sess, err := Open(ctx, url, nil, opts)
	if err != nil {
		return nil, fmt.Errorf("list the refs of %s: %w", url, err)
	}
	defer sess.Close()
	adv := sess.Refs()
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
