// Package candidates holds the workflows of reviewing pending updates:
// list, show and diff a candidate, check it out or edit it in a work
// folder, run a merge tool on its conflicts, and accept, reject or
// resolve it. The candidate commits themselves are the store's.
package candidates
