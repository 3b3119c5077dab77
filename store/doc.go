// Package store is the embedded git repository in which every skill version
// is a commit: published skills, upstream snapshots, candidates and the
// store's own state are refs that plain git can read.
//
// A store is a bare git repository (see [Init] and [Open]) plus a
// "skillstore" directory inside it for the lock and derived caches:
//
//   - refs/heads/skills/NAME: the published history of skill NAME. Each
//     version is a commit whose tree is the skill folder, numbered by its
//     Skill-Version trailer ([Version], [Tx.CommitVersion]).
//   - refs/skillstore/state: a commit whose tree holds JSON records
//     ("skills/NAME.json", ...); its history is the audit log ([Reader.Record],
//     [Tx.PutRecord]).
//   - refs/upstream/..., refs/heads/candidates/...: snapshots and candidates
//     written by sync on top of the same building blocks.
//
// Every read runs inside [Store.View] (the shared side of the store lock) and
// every write inside [Store.Update] (the exclusive side, one writer across
// processes). A write transaction ([Tx]) buffers its objects and ref
// updates; when its function returns nil, objects are written and fsynced
// first (loose, or one packfile for bulk writes), then refs, each ref file
// replaced atomically. A process killed at any moment leaves every ref at its
// old or its new value. Then, still under the lock, the packs the write added
// are merged into one, and past git's gc.auto limits the small packs too
// (autopack.go). The git formats themselves (objects, packs, refs,
// the stat cache) are package internal/gitdb's; the store decides what its
// refs and commits mean.
//
// Trees are handled flat as [File] lists ([Tx.WriteTree], [Reader.Files],
// [WriteTreeDir]; skill folders on disk are read by package
// internal/folderscan); the safety check (package store/safety)
// decides whether a tree may become a version and with which risk level.
// Versions are named "NAME", "NAME@v3" or "NAME@<commit prefix>"
// ([Reader.Resolve]).
//
// This package is the repository core. The concepts built on it live beside
// it and take its handles ([Store], [Reader], [Tx]) as arguments:
//
//   - store/plugins: plugin records, their sources, layouts and
//     marketplaces, skill selection, trust and risk acceptances, link,
//     re-add, status and the plugin's parts;
//   - store/pluginsync: sync (prefetch, fetch, classification, apply) and
//     plugin and marketplace add, which sync what they add;
//   - store/candidates: the one candidate-commit builder, supersede,
//     accept, reject and resolve, local-edit merges and the merges of two
//     diverged histories;
//   - store/remote: sharing a store with others through a git server
//     (remotes, push, pull, clone), through this package's transactions
//     ([Reader.IsAncestor], [Tx.StorePack], ...).
//
// Dependencies point one way: pluginsync imports plugins and candidates,
// plugins imports candidates, and each imports this package; this package
// imports none of them.
package store
