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
// store ([store.Tx.MergeDiverged]), accepted or rejected like any other.
// [Clone] makes a new store by a pull into an empty one.
//
// Add, Remove, Push and Pull take an open *store.Store and run inside its
// write transaction (store.Store.Update), so a push or pull holds the
// store lock throughout and a refused remote writes nothing. go-git is used here only
// to speak git's network protocols.
package remote
