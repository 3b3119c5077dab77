// Package remote shares a store with other stores through a git server:
// remotes, push, pull and clone.
//
// A remote ([Remote]) is a name and a git URL kept in the store
// repository's own git config, so plain git sees it too ([Add], [List],
// [Remove]). [Push] sends the store's published skills, upstream
// snapshots, candidates and state, fast-forward only; [Pull] fetches a
// remote's, checks every fetched object with the store's safety checks
// before any ref points at it, and integrates it skill by skill: two
// diverged published histories become a remote-merge candidate of package
// store/candidates ([candidates.MergeDiverged]), accepted or rejected like any other.
// [Clone] makes a new store by a pull into an empty one. [FetchSkills]
// takes a few skills' histories from a repository that need not be a
// remote of the store (a project's lock's team remote), checked as a pull
// checks them, and publishes nothing.
//
// Add, Remove, Push and Pull take an open *store.Store. Add, Remove and
// Push run inside its write transaction (store.Store.Update). Pull reads
// what it needs under the shared lock, fetches with no lock held, within
// the store's fetch deadlines (store.Options.FetchTimeout), and takes the
// write lock only to store, check and integrate what arrived: a slow or
// hung server never keeps readers or other writers waiting, and a refused
// remote writes nothing. Every URL is put in canonical form
// (gitfetch.CanonicalURL: the form the source policy checks) before use,
// every redirect of a pull passes the policy too, and git's helpers (credential fill, upload-pack and receive-pack for a
// remote on this machine's disk) run in the store with only the user's
// global and system git configuration. go-git is used here only to speak
// git's network protocols.
package remote
