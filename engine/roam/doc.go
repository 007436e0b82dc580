// Package roam carries the four chain dimensions (account, user, agent, task)
// between a user's machines through a git repository (SPEC §9).
//
// The remote holds the portable tree of SPEC §8, laid out as export writes
// it, so a clone of it is a tree import takes: account/…, user/…, agent/…
// (a journal mounted in place under its prefix, agent/<ID>/journal/…),
// task/… (the notes every task shares) and task/<task ID>/… (the project's
// task IDs), magicfrog.json (the roster) and layers.json. Several projects
// share a remote: each takes its own task IDs' folders and the task-shared
// notes, which are one set for all of them, as SPEC §2 reads them; another
// project's task ID folder is carried along untouched. A remote in the
// layout before (the project's task root under task/<task ID>/) is rewritten
// by the first sync that finds it (layout.go). Device notes and the legacy
// machine/ tree are never read by this package, so they cannot be staged;
// a chain note that carries a machine binding is held back too.
//
// A sync fetches the remote, merges every note against the state of the last
// sync (kept in <data>/sync/), writes what changed locally through
// engine/store (revision-checked, atomic), commits the merged tree on top of
// the remote head and pushes it. Per note, with B the last synced version, L
// the local one and R the remote one (each possibly absent):
//
//   - L = R: nothing to do.
//   - L = B: the remote changed; R is taken (written, or the note removed).
//   - R = B: the local note changed; L is pushed (or its deletion).
//   - both changed, both present: a clean three-way merge of the bodies is
//     written as the next revision; otherwise a conflict.
//   - both changed, one deleted: a conflict.
//
// A conflict leaves the local note as it is and keeps the remote version
// beside the sync state (<data>/sync/conflicts/…), never in the memory tree,
// where it would render; the note neither pushes nor pulls until the user
// resolves it (take theirs, keep mine, or a merge they review).
//
// The remote is not trusted with the views: a roster or layers.json from it
// that would bring a note into a view it is not in now is held (HeldConfig),
// not written, until Accept or Reject. Every file sent is scanned for
// secrets, its path too. A remote entry is judged from its tree entry and
// object header before it is read: a link, a submodule, a bad name or an
// object larger than a note is skipped and reported, and the sync goes on.
//
// Every step is safe to interrupt: local writes are atomic per note, and the
// state is saved last. A sync killed after writing some notes finds them equal
// to the remote next time (L = R); one killed after pushing finds the remote
// equal to what it wrote. Nothing any machine pushed is lost: it stays in the
// remote's history ([History], [Restore]).
//
// The package needs no git binary: it uses go-git, with an in-process
// transport for local (file) remotes that checks the old value of the branch
// under a lock, so two machines pushing to one folder at once cannot lose a
// commit.
package roam
