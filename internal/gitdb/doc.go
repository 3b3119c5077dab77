// Package gitdb reads and writes a git repository's object database and
// refs in git's own on-disk formats, so that plain git reads whatever it
// writes and it reads whatever git writes. It knows nothing of what the
// repository holds; object ids are [skillfs.ID].
//
// The pieces:
//
//   - Objects: [Object] and [ObjectType]; loose object files ([ReadLoose],
//     [WriteLoose]); packs, read through their version 2 index
//     ([DB.ReadPacked], deltas resolved) and written with one ([WritePack],
//     [StreamPack] for the wire); [DB] reads both; [Buffer] queues a
//     transaction's new objects and writes them in one go ([Buffer.Flush]);
//     [ListLoose] and [PackIDs] take stock for a repack.
//   - Packing: gc in two steps ([PrepareGC], [GC.Finish]: every reachable
//     object in one pack, with a delta search), and the cheap step a write
//     ends with: [MergePacks] copies chosen packs and the loose objects
//     into one pack without a delta search, and [AutoPack] runs it past
//     git's gc.auto and gc.autoPackLimit ([ReadAutoLimits]), merging the
//     smallest packs so that the rest grow geometrically.
//   - Commits: [Commit], [Signature] and [Trailer], decoded and encoded as
//     git does ([ParseCommit], [Commit.Encode], [BuildMessage]).
//   - Refs: [ReadRefs] resolves packed-refs overlaid with loose ref files;
//     [ApplyRefUpdates] writes a batch of [RefUpdate]s.
//
// The invariants that make a killed writer harmless:
//
//   - Objects are written and fsynced, and their folders synced, before
//     any ref points at them: [Buffer.Flush] and [WritePack] return only
//     once everything is durable, and [ApplyRefUpdates] expects it done.
//   - A loose object or pack appears under its final name only when
//     complete: it is written to a tmp_obj_, tmp_pack_ or tmp_idx_ file
//     (names git fsck ignores) and renamed; [RemoveStaleTemps] clears what
//     a crash left.
//   - A pack's index is renamed into place before the pack: go-git lists
//     packs by their .pack file and fails on one without an index, while
//     git and [DB] find packs by their .idx and skip one whose pack is
//     missing.
//   - Each ref file is replaced atomically, and a bulk update rewrites
//     packed-refs (atomically too) before removing the loose files it
//     replaces, so every ref is at its old or its new value at any moment.
//
// Nothing here locks: the caller serializes writers (and readers that need
// a consistent view of refs).
package gitdb
