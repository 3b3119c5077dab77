package target

import (
	"sync"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/reload"
)

// Pending is the targets' side of a dry run, as store.DryRun is the
// store's: the writes into target folders a dry run leaves out, kept so
// the steps after it decide as they would after the real writes. Capture
// on a dry-run store records here the folders it would have marked as
// export's own again (reload.AdoptFolders); the export plan that follows
// reads the target's record as that would have left it. A raced edit's
// folder, which capture would delete, matters to no later step.
type Pending struct {
	mu    sync.Mutex
	adopt map[string]*reload.Adoption // by target folder
}

// NewPending returns an empty Pending for one dry run.
func NewPending() *Pending { return &Pending{adopt: map[string]*reload.Adoption{}} }

// addAdoption records what AdoptFolders would have recorded in target.
func (p *Pending) addAdoption(target string, folders map[string][]skillfs.File, origins map[string]reload.Origin) {
	p.mu.Lock()
	defer p.mu.Unlock()
	a := p.adopt[target]
	if a == nil {
		a = &reload.Adoption{Folders: map[string][]skillfs.File{}, Origins: map[string]reload.Origin{}}
		p.adopt[target] = a
	}
	for name, files := range folders {
		a.Folders[name] = files
	}
	for name, o := range origins {
		a.Origins[name] = o
	}
}

// adopted is what the dry run would have adopted in target (nil: none, or
// no dry run).
func (p *Pending) adopted(target string) *reload.Adoption {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.adopt[target]
}
