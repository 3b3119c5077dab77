package app

import (
	"context"
	"errors"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
)

// SetPluginOptions are plugin set's: the new URL, the new ref, or both
// (nil: unchanged).
type SetPluginOptions struct {
	Global
	Output
	ID       string
	URL, Ref *string
}

// SetPlugin changes a plugin's ref or URL; the next sync follows it.
func SetPlugin(ctx context.Context, opts SetPluginOptions) error {
	id := opts.ID
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	ch, err := plugins.SetSource(ctx, s, id, opts.URL, opts.Ref)
	if err != nil && !errors.Is(err, store.ErrNoChange) {
		return err
	}
	if opts.JSON {
		return cliout.JSON(opts.Stdout, ch)
	}
	if err != nil {
		cliout.Printf(opts.Stdout, "plugin %s already follows %s\n", id, sourceText(ch.After))
		return nil
	}
	cliout.Printf(opts.Stdout, "plugin %s: %s; the next sync follows it ('skillstore sync %s')\n", id, ch.Describe(), id)
	return nil
}

// sourceText renders a source with its ref: "URL at REF".
func sourceText(s plugins.Source) string {
	var b strings.Builder
	b.WriteString(s.String())
	if s.Kind == plugins.SourceGit {
		ref := s.Ref
		if ref == "" {
			ref = "HEAD"
		}
		b.WriteString(" at " + ref)
	}
	return b.String()
}
