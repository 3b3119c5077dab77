package plugins

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5/storage"

	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/store"
)

type skillMDSource struct{}

func (skillMDSource) fetch(ctx context.Context, base storage.Storer, src Source, have store.Hash, opts gitfetch.Options) (gitfetch.Fetched, error) {
	return gitfetch.Fetched{}, fmt.Errorf("not yet")
}
func (skillMDSource) name(Source) string { return "" }

type wellKnownSource struct{}

func (wellKnownSource) fetch(ctx context.Context, base storage.Storer, src Source, have store.Hash, opts gitfetch.Options) (gitfetch.Fetched, error) {
	return gitfetch.Fetched{}, fmt.Errorf("not yet")
}
func (wellKnownSource) name(Source) string { return "" }

type npmSource struct{}

func (npmSource) fetch(ctx context.Context, base storage.Storer, src Source, have store.Hash, opts gitfetch.Options) (gitfetch.Fetched, error) {
	return gitfetch.Fetched{}, fmt.Errorf("not yet")
}
func (npmSource) name(Source) string { return "" }
