// Package session is the protocol-free core under every front end: what one
// client (an editor, an agent) has open against memory, and the answers the
// front ends give about it, as plain Go values with byte offsets.
//
// A Session owns, per project it was asked about (the main tree the settings
// name, and a lone tree for each file opened outside it):
//
//   - the loaded *engine.Memory and its watcher (engine/watch), and the reloads
//     they trigger (Options.Changed, Options.Loaded);
//   - the open documents (Document: URI, path, version, bytes), the note parsed
//     from each version of a buffer, and what each buffer was based on on disk
//     (Base: revision, hash, bytes);
//   - the save-conflict state of each buffer (the revision floor, the disk
//     version a conflict found, whether the question is open);
//   - each tree's workspace symbol index;
//   - the client settings (Settings) and the clock (Options.Now).
//
// Nothing grows without bound: closing a document drops its state, and a lone
// tree that no open document is in is dropped with its watcher and index.
//
// The snapshot rule: a snapshot is the one way to memory. Session.Snapshot
// never waits (ErrLoading while a tree loads: a read loop answers at once);
// Session.AwaitSnapshot is the same for work beside the loop, waiting for the
// tree first. Either returns an immutable Snapshot: the tree, the session's
// settings, scope and participant, today, and for a note the note as its open
// buffer has it. Features are plain functions of a snapshot and byte offsets
// returning byte spans: Hover, NoteMarkdown, NoteLens and NoteStanding,
// DocumentSymbols and WorkspaceSymbols, Findings, PromoteActions and
// RollupActions; the commands' answers (Render, RenderInto, View, Describe,
// InfoOf, PlanRollup and RunRollup, Promote, Today…) and the checks of their
// arguments (RenderRequest.Check, PromoteRequest.Promotion,
// RollupRequest.Parse, ParseSettings for the client's settings) are here too,
// so that a front end only decodes, calls and converts. The shell's commands
// call the same layer over a tree they load once (base.OpenMemory):
// base.RenderEach, SkillsFor, PlacePromotion then Promote, Write, EnsureRegistered and
// ImportJournal, Effective, Check and Positions. The save decisions
// (WillSave, TakeDisk, KeepMine, Merge) are Session methods because they move
// a buffer's base. Converting positions, URIs and protocol types is the front
// end's business (package lsp); this package imports no protocol.
//
// Package session/base, beneath it, holds what the hook commands (render,
// append) need and nothing of the checks or the editor's features: loading
// (OpenMemory), the caches, RenderEach and the host-file writes, file URIs.
// The lean binary (cmd/mf-hook) calls it; so do session and mf-lsp.
package session
