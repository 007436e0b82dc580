// Package store is the only code in mf-lsp that writes or removes a note.
//
// Its promise is that no code path loses a note: not a crash, not two writers.
// Everything else in the product reads notes freely, but every change to a file
// under a memory root goes through [Update], [Write] or [Remove], which keep four
// guarantees.
//
// # 1. Writes are checked against what the writer read (SPEC §7)
//
// Every write carries an [Expect]: the revision the writer believes is on disk
// (0: the note must not exist yet) and, when the writer has read the note, the
// [Hash] of the bytes it read. Under the lock, the store reads the file and
// compares. If anything differs nothing is written and a [*StaleError] says
// what differed and what is on disk now. Plain text editors change notes
// without touching the revision, which is why the hash is checked when given.
// A note whose revision cannot be trusted — a file without frontmatter
// (revision 0) or one whose frontmatter does not parse — is only ever replaced
// or removed by a writer that proves, with the hash, that it has seen exactly
// those bytes: a broken note is never overwritten silently.
//
// The store checks the precondition; it does not compose the new content. The
// caller sets revision (+1) and updated in what it writes (see
// frontmatter.SetFields). That keeps imports, which carry their own revision,
// on the same path.
//
// # 2. Writers are serialized, across goroutines and processes
//
// A check-then-write is only correct if nobody writes in between. Each memory
// root has an advisory lock file, <root>/.mf-lsp/lock (with a .gitignore of
// "*" beside it, so git never shows it), taken with flock(2)
// (LockFileEx on Windows) through gofrs/flock, and an in-process mutex per
// root, because some platforms' file locks do not exclude two holders in one
// process. Waiting for the lock is bounded (10 s by default): a stuck holder
// makes writes fail with [ErrLockTimeout] instead of hanging an editor. The
// lock is advisory; programs that do not use this package (a text editor) are
// not excluded, which is what the hash check is for.
//
// # 3. Writes are atomic and durable
//
// New content goes to a temporary file in the note's own directory, which is
// fsynced, renamed over the note, and then the directory is fsynced so the
// rename itself survives a power cut. rename(2) within one directory is atomic:
// a reader, or the disk after a crash, sees the old bytes or the new bytes,
// never a mixture and never nothing. The file mode of an existing note is kept.
//
// Temporary files are named ".<note name>.tmp-<random>". Names starting with
// "." are never loaded as notes (docs/architecture.md), so a temporary file a
// crashed writer left behind is invisible to readers. The next writer in that
// directory removes such leftovers once they are older than a minute; younger
// ones may belong to a writer of another process still at work. The store
// refuses to write a path whose last element starts with ".": those names are
// its own (lock, temporary files) and are never notes.
//
// # 4. Writes stay inside the root
//
// The target must lie inside root after resolving symbolic links: ".."
// segments and symlinked parent directories that lead outside are refused, as
// is a symbolic link at the target itself (replacing it would silently turn a
// link into a copy; writing through it would write somewhere else). Missing
// parent directories are created, one by one, only after the checks pass.
// [Remove] also removes parent directories the removal left empty, up to but
// not including root.
//
// # Using it
//
// Every writer of one tree must pass the same root (the memory root:
// <data>/memory or <project>/.magicfrog/memory): the lock lives there, and two
// different roots over overlapping trees would not exclude each other. Update,
// Write and Remove take the root's lock themselves, so do not call them while
// holding [Lock] for the same root: they would wait for it until the lock
// timeout.
//
// Removing a leftover temporary file is safe even in the unlikely case that
// its writer is still alive (suspended for over a minute, say): its rename then
// fails, it reports an error, and the note keeps its old content.
package store
