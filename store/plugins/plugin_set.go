package plugins

import (
	"context"
	"fmt"
	"strings"

	"github.com/skillstore/skillstore/store"
)

// SourceChange is what SetPluginSource changed.
type SourceChange struct {
	Plugin string `json:"plugin"`
	Before Source `json:"before"`
	After  Source `json:"after"`
}

// Describe says what changed, as the state commit records it:
// "ref v1 -> v2", "url A -> B".
func (c *SourceChange) Describe() string {
	var parts []string
	if c.Before.URL != c.After.URL || c.Before.Kind != c.After.Kind {
		parts = append(parts, fmt.Sprintf("url %s -> %s", c.Before.URL, c.After.URL))
	}
	if c.Before.Ref != c.After.Ref {
		parts = append(parts, fmt.Sprintf("ref %s -> %s", refText(c.Before), refText(c.After)))
	}
	if c.Before.Selector != c.After.Selector {
		parts = append(parts, fmt.Sprintf("marketplace plugin %q -> %q", c.Before.Selector, c.After.Selector))
	}
	return strings.Join(parts, ", ")
}

func refText(s Source) string {
	switch {
	case s.Ref != "":
		return s.Ref
	case s.Tags != "":
		return "releases " + s.Tags
	case s.Kind == SourceGit:
		return "HEAD"
	}
	return "(" + string(s.Kind) + ")"
}

// SetSource moves plugin id's pin: url (nil: keep), ref (nil: keep;
// "": the remote HEAD) or both. Nothing is fetched: the next sync reads
// the new source and classifies its skills against what was accepted,
// as any upstream update. A new url keeps the "#plugin" of the old source
// unless it names one, and keeps the old ref unless ref is given or the
// url is a folder. A ref on a folder source is refused. The change is a
// state commit; setting what is already set is ErrNoChange.
func SetSource(ctx context.Context, s *store.Store, id string, url, ref *string) (*SourceChange, error) {
	var ch *SourceChange
	err := s.Update(ctx, func(tx *store.Tx) error {
		var err error
		ch, err = setSource(tx, id, url, ref)
		return err
	})
	return ch, err
}

// SetSourceIn is [SetSource] inside tx, for a caller that changes
// several plugins in one transaction.
func SetSourceIn(tx *store.Tx, id string, url, ref *string) (*SourceChange, error) {
	return setSource(tx, id, url, ref)
}

// setSource is [SetSource] inside a transaction.
func setSource(tx *store.Tx, id string, url, ref *string) (*SourceChange, error) {
	if url == nil && ref == nil {
		return nil, fmt.Errorf("plugin %s: nothing to set: give a url or a ref", id)
	}
	p, err := Get(tx.Reader, id)
	if err != nil {
		return nil, err
	}
	next := p.Source
	if url != nil {
		r := ""
		if ref != nil {
			r = *ref
		}
		src, err := ParseSource(*url, r) // refuses a ref on a folder
		if err != nil {
			return nil, err
		}
		if ref == nil && src.Kind == SourceGit && src.Ref == "" && src.Tags == "" {
			src.Ref, src.Tags = p.Source.Ref, p.Source.Tags
		}
		if src.Selector == "" {
			src.Selector = p.Source.Selector
		}
		next = src
	} else {
		if p.Source.Kind == SourceFolder && *ref != "" {
			return nil, fmt.Errorf("plugin %s reads the folder %s: --ref needs a git source (give --url a git repository)", id, p.Source.URL)
		}
		if p.Source.Kind != SourceGit && p.Source.Kind != SourceFolder {
			return nil, fmt.Errorf("plugin %s is a %s source (%s): --ref needs a git source", id, p.Source.Kind, p.Source)
		}
		// A ref replaces the release range a source followed: the
		// user named what to follow.
		next.Ref, next.Tags = *ref, ""
	}
	if err := CheckSource(tx.Store(), next, p.Marketplace); err != nil {
		return nil, fmt.Errorf("plugin %s: %w", id, err)
	}
	ch := &SourceChange{Plugin: id, Before: p.Source, After: next}
	if next == p.Source {
		return ch, fmt.Errorf("plugin %s already has the source %s at ref %s: %w", id, next, refText(next), store.ErrNoChange)
	}
	p.Source = next
	if next.Kind == SourceFolder {
		if _, ok := tx.Ref(store.SourceRef(id)); ok {
			tx.DeleteRef(store.SourceRef(id))
		}
	}
	tx.NoteState(fmt.Sprintf("plugin %s: %s (from the next sync)", id, ch.Describe()),
		store.Trailer{Key: store.TrailerPlugin, Value: id}, store.Trailer{Key: store.TrailerSourceURL, Value: next.String()})
	return ch, Put(tx, p)
}
