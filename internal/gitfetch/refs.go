package gitfetch

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/storage/memory"
)

// RefNames lists the branch and tag names (short: "main", "v1.2",
// "feature/x") a remote advertises, without fetching any object. It lets a
// caller tell the ref from the path in an address such as
// .../tree/feature/x/skills, where either may hold a '/'.
func RefNames(ctx context.Context, url string) ([]string, error) {
	remote := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "skillstore", URLs: []string{url}})
	refs, err := remote.ListContext(ctx, &git.ListOptions{})
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
