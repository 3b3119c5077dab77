package main

import (
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// scenarioServers keeps the servers a scenario started, by name, for the
// commands of the same scenario that use them later (githttp, httpjson,
// gitserver, ...); a scenario's servers are forgotten when it ends.
type scenarioServers[T any] struct {
	mu   sync.Mutex
	byTS map[*testscript.TestScript]map[string]T
}

// get returns the server named name in ts's scenario.
func (r *scenarioServers[T]) get(ts *testscript.TestScript, name string) (T, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.byTS[ts][name]
	return v, ok
}

// put records v as the server named name in ts's scenario.
func (r *scenarioServers[T]) put(ts *testscript.TestScript, name string, v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byTS == nil {
		r.byTS = map[*testscript.TestScript]map[string]T{}
	}
	if r.byTS[ts] == nil {
		r.byTS[ts] = map[string]T{}
		ts.Defer(func() {
			r.mu.Lock()
			delete(r.byTS, ts)
			r.mu.Unlock()
		})
	}
	r.byTS[ts][name] = v
}
