package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/engine/roam"
	"github.com/magicfrog/mf-lsp/session"
)

// Exit codes of sync (docs/cli.md).
const (
	exitConflict = 4 // notes in conflict wait for the user
	exitSecret   = 5 // notes held back because a secret was found in them
	exitHeldConf = 6 // configuration from the remote that widens a view waits for sync accept or reject
)

func runSync(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "status":
			return runSyncStatus(args[1:], stdout, stderr)
		case "resolve":
			return runSyncResolve(args[1:], stdout, stderr)
		case "accept", "reject":
			return runSyncDecide(args[0], args[1:], stdout, stderr)
		}
	}
	c := newCLI("sync", "mf-lsp sync [--remote URL] | mf-lsp sync status | mf-lsp sync resolve PATH --keep mine|theirs | mf-lsp sync accept|reject PATH", `
Roam: fetch the remote git repository, merge it note by note with this
machine's memory, commit and push, in one step. The account, user and agent
notes, the roster (magicfrog.json), layers.json, journals mounted in place
(init --journal) and the project's task notes roam, in the remote as export
writes them: task/… for the notes every task shares, task/<task ID>/… for
each of the project's task IDs (unless the project's own git repository
tracks .magicfrog/: then they roam with the project). A git clone of the
remote is a tree mf-lsp import takes. Device notes never leave the machine.

--remote is remembered after the first sync. It may be a folder (an empty or
missing one becomes a bare repository), file://, ssh://, git:// or https://.

Per note, against the last sync: a note changed on one side only is taken
from that side; changed on both, the bodies are merged line by line as the
next revision, or, when the changes overlap (or one side deleted it), it is a
conflict: the local note stays as it is and the remote version is kept in
<data>/sync/conflicts/. Resolve with 'mf-lsp sync resolve PATH --keep
mine|theirs'. Every note about to leave is scanned for secrets (gitleaks'
rules); a note with a finding is held back unless the line carries
"gitleaks:allow". Configuration from the remote (magicfrog.json,
layers.json) that would bring notes into a view they are not in now is held,
not written: 'sync accept PATH' takes it, 'sync reject PATH' keeps yours.

Subcommands: 'sync status' says what would move, what conflicts, and when
the last sync ran, without changing anything; 'sync resolve' ends a conflict.

Exit codes: 4 when notes are in conflict, else 5 when notes were held back
for secrets, else 6 when configuration from the remote is held.`, stdout, stderr)
	remote := c.FS.String("remote", "", "the git repository `URL` (default: the one of the last sync)")
	asJSON := c.FS.Bool("json", false, "print the report as JSON")
	if _, code, done := c.Parse(args, 0, 0); done {
		return code
	}
	m, err := c.OpenDataDir()
	if err != nil {
		return c.Fail("%v", err)
	}
	rep, err := session.Sync(context.Background(), m, *remote)
	return reportSync(c, stdout, rep, err, false, *asJSON)
}

// reportSync prints a sync's (or, with status, its dry run's) report as text
// or JSON; the exit code says what it found.
func reportSync(c *cli, stdout io.Writer, rep *roam.Report, err error, status, asJSON bool) int {
	if err != nil {
		return c.Fail("%v", err)
	}
	if asJSON {
		printJSON(stdout, rep)
	} else {
		printSyncReport(stdout, rep, status)
	}
	return syncExit(rep)
}

func syncExit(rep *roam.Report) int {
	if len(rep.Conflicts) > 0 {
		return exitConflict
	}
	for _, h := range rep.Held {
		if len(h.Findings) > 0 {
			return exitSecret
		}
	}
	if len(rep.HeldConfig) > 0 {
		return exitHeldConf
	}
	return exitOK
}

func printJSON(w io.Writer, v any) {
	b, _ := json.MarshalIndent(v, "", "  ")
	fmt.Fprintf(w, "%s\n", b)
}

// printSyncReport writes a sync's (or a status's) report for people.
func printSyncReport(w io.Writer, rep *roam.Report, status bool) {
	sent, got := "sent", "received"
	if status {
		sent, got = "to send", "to receive"
	}
	if rep.MadeRemote {
		fmt.Fprintf(w, "made a bare repository at %s\n", rep.Remote)
	}
	if status {
		fmt.Fprintf(w, "remote: %s\n", rep.Remote)
		if rep.LastSync.IsZero() {
			fmt.Fprintln(w, "last sync: never")
		} else {
			fmt.Fprintf(w, "last sync: %s (%s ago)\n", rep.LastSync.Format(time.RFC3339), time.Since(rep.LastSync).Round(time.Second))
		}
		if rep.Unreachable != nil {
			fmt.Fprintf(w, "remote unreachable (%v): as of the last fetch\n", rep.Unreachable)
		}
	} else {
		fmt.Fprintf(w, "synced with %s: %s %d, %s %d, conflicts %d, held back %d\n", rep.Remote, sent, len(rep.Pushed), got, len(rep.Pulled), len(rep.Conflicts), len(rep.Held))
	}
	if rep.Rewritten != "" {
		fmt.Fprintf(w, "rewritten: %s\n", rep.Rewritten)
	}
	if rep.Migrated != "" {
		fmt.Fprintf(w, "migrated: %s\n", rep.Migrated)
	}
	change := func(verb string, c roam.Change) {
		fmt.Fprintf(w, "%s: %s %s", verb, c.Op, shown(c.Path))
		if c.Revision > 0 {
			fmt.Fprintf(w, " (revision %d)", c.Revision)
		}
		fmt.Fprintln(w)
	}
	for _, c := range rep.Pushed {
		change(sent, c)
	}
	for _, c := range rep.Pulled {
		change(got, c)
	}
	for _, h := range rep.Held {
		if len(h.Findings) == 0 {
			fmt.Fprintf(w, "held back: %s: %s\n", shown(h.Path), h.Reason)
		}
		for _, f := range h.Findings {
			if f.Line == 0 {
				fmt.Fprintf(w, "held back: %s: secret in the file name (%s); rename it\n", shown(h.Path), f.Rule)
				continue
			}
			fmt.Fprintf(w, "held back: %s:%d: secret (%s); remove it, or end the line with \"gitleaks:allow\" if it is not one\n", shown(h.Path), f.Line, f.Rule)
		}
	}
	printHeldConfig(w, rep.HeldConfig)
	for _, h := range rep.Ignored {
		fmt.Fprintf(w, "not taken: %s: %s\n", shown(h.Path), shown(h.Reason))
	}
	for _, h := range rep.Failed {
		fmt.Fprintf(w, "not written now (the next sync tries again): %s: %s\n", shown(h.Path), h.Reason)
	}
	for _, c := range rep.Conflicts {
		fmt.Fprintf(w, "conflict: %s: %s\n", shown(c.Path), c.Reason)
		if c.Local != "" {
			fmt.Fprintf(w, "  yours:  %s\n", shown(c.Local))
		} else {
			fmt.Fprintln(w, "  yours:  (deleted)")
		}
		if c.File != "" {
			fmt.Fprintf(w, "  theirs: %s\n", shown(c.File))
		} else {
			fmt.Fprintln(w, "  theirs: (deleted)")
		}
		fmt.Fprintf(w, "  resolve: mf-lsp sync resolve %s --keep mine|theirs\n", shown(c.Path))
	}
	if rep.TaskNote != "" {
		fmt.Fprintf(w, "task notes: %s\n", rep.TaskNote)
	}
	if status {
		fmt.Fprintf(w, "%s %d, %s %d, conflicts %d, held back %d\n", sent, len(rep.Pushed), got, len(rep.Pulled), len(rep.Conflicts), len(rep.Held))
	}
}

func runSyncStatus(args []string, stdout, stderr io.Writer) int {
	c := newCLI("sync status", "mf-lsp sync status [--offline] [--json]", `
Say what a sync would do, changing nothing: the notes it would send and
receive, the conflicts, the notes held back, and when the last sync ran. It
fetches first; --offline (or an unreachable remote, which it says) compares
with the remote as of the last fetch. Exit codes as for sync: 4 with
conflicts, else 5 with notes held back for secrets.`, stdout, stderr)
	offline := c.FS.Bool("offline", false, "do not fetch: compare with the remote as of the last sync")
	asJSON := c.FS.Bool("json", false, "print the report as JSON")
	if _, code, done := c.Parse(args, 0, 0); done {
		return code
	}
	m, err := c.OpenDataDir()
	if err != nil {
		return c.Fail("%v", err)
	}
	rep, err := session.SyncStatus(context.Background(), m, *offline)
	return reportSync(c, stdout, rep, err, true, *asJSON)
}

func runSyncResolve(args []string, stdout, stderr io.Writer) int {
	c := newCLI("sync resolve", "mf-lsp sync resolve PATH --keep mine|theirs", `
End a sync conflict. PATH is the note's portable path as sync prints it
(user/style.md, agent/larry/notes/x.md, task/T-7/progress.md). --keep mine
keeps this machine's note (or its deletion); --keep theirs takes the remote
version kept in <data>/sync/conflicts/ (or its deletion). The kept version is
written as the next revision after both, and the next sync sends it. To merge
by hand, edit your note first, then keep mine.`, stdout, stderr)
	keep := c.FS.String("keep", "", "`mine` or `theirs` (required)")
	pos, code, done := c.Parse(args, 1, 1)
	if done {
		return code
	}
	if *keep != "mine" && *keep != "theirs" {
		return c.UsageError("--keep mine or --keep theirs is required")
	}
	m, err := c.OpenDataDir()
	if err != nil {
		return c.Fail("%v", err)
	}
	if err := session.ResolveSyncConflict(context.Background(), m, pos[0], *keep, time.Now()); err != nil {
		return c.Fail("%v", err)
	}
	fmt.Fprintf(stdout, "resolved %s: kept %s; mf-lsp sync sends it\n", pos[0], *keep)
	return exitOK
}

func runHistory(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("history", "mf-lsp history PATH [--offline]", `
List every version of a note, newest first: the local history of this machine
(every version mf-lsp wrote or saw, kept in the memory root; docs/cli.md#history)
and, when the data directory syncs, every version the sync remote ever held. PATH
is the portable path (user/style.md, agent/larry/notes/x.md, task/T-7/progress.md,
device/laptop.md). With a remote it fetches first; --offline lists the remote's
history as of the last sync. Bring a version back with mf-lsp restore.`, stdout, stderr)
	offline := c.FS.Bool("offline", false, "do not fetch: the remote's history as of the last sync")
	pos, code, done := c.Parse(args, 1, 1)
	if done {
		return code
	}
	m, err := c.OpenDataDir()
	if err != nil {
		return c.Fail("%v", err)
	}
	h, err := session.History(context.Background(), m, pos[0], *offline)
	if err != nil {
		return c.Fail("%v", err)
	}
	if h.FetchErr != nil {
		fmt.Fprintf(stderr, "mf-lsp history: warning: %v; the remote's history as of the last sync\n", h.FetchErr)
	}
	for _, v := range h.Versions {
		fmt.Fprintln(stdout, historyLine(v))
	}
	return exitOK
}

// historyLine is one version as history prints it: a local one with how it
// came (and what an overwrite replaced), a remote one with its commit.
func historyLine(hv session.HistoryVersion) string {
	if v := hv.Local; v != nil {
		switch v.How {
		case "deleted":
			return fmt.Sprintf("%-12s %-9s %s  local", "deleted", "", v.Time.UTC().Format(time.RFC3339))
		case "overwrite":
			return fmt.Sprintf("%-12s %-9s %s  local  blob %s  overwrote revision %d", fmt.Sprintf("revision %d", v.Revision), v.How, v.Time.UTC().Format(time.RFC3339), v.Blob[:12], v.LostRevision)
		default:
			return fmt.Sprintf("%-12s %-9s %s  local  blob %s", fmt.Sprintf("revision %d", v.Revision), v.How, v.Time.UTC().Format(time.RFC3339), v.Blob[:12])
		}
	}
	v := hv.Remote
	what := fmt.Sprintf("revision %d", v.Revision)
	if v.Blob == "" {
		what = "deleted"
	}
	text := fmt.Sprintf("%-12s synced %s from machine %s  commit %s", what, v.Time.UTC().Format(time.RFC3339), v.Machine, v.Commit[:12])
	if v.Updated != "" {
		text += "  updated " + v.Updated
	}
	if hv.AlsoLocal {
		text += "  (also local)"
	}
	return text
}

func runRestore(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("restore", "mf-lsp restore PATH [REV] [--revision N] [--blob ID] [--commit HASH]", `
Bring back a version of a note (mf-lsp history PATH lists them). From the local
history: a version whose revision is above the note's on disk (an overwrite took
the note back) is written byte for byte; any other comes back as the note's next
revision. A version only the sync remote holds (--commit, or a revision the local
history lacks) comes back as the next revision, and the next sync sends it like
any edit. Nothing is overwritten that is not itself in the history. When two
machines wrote the same revision differently, --commit picks one.`, stdout, stderr)
	rev := c.FS.Int("revision", 0, "the revision `N` to bring back (or REV)")
	blob := c.FS.String("blob", "", "the local history's blob `ID` (a prefix) of the version")
	commit := c.FS.String("commit", "", "the commit `HASH` (a prefix) of the version, when the revision is ambiguous")
	pos, code, done := c.Parse(args, 1, 2)
	if done {
		return code
	}
	if len(pos) == 2 {
		n, err := strconv.Atoi(pos[1])
		if err != nil || n <= 0 {
			return c.UsageError("REV %q: want a revision, 1 or more", pos[1])
		}
		*rev = n
	}
	if *rev <= 0 && *commit == "" && *blob == "" {
		return c.UsageError("REV (1 or more), --revision N, --blob ID or --commit HASH is required")
	}
	m, err := c.OpenDataDir()
	if err != nil {
		return c.Fail("%v", err)
	}
	r, err := session.Restore(context.Background(), m, session.RestoreRequest{Path: pos[0], Revision: *rev, Blob: *blob, Commit: *commit, Now: time.Now()})
	if err != nil {
		if errcode.Of(err) == errcode.Stale {
			fmt.Fprintf(stderr, "mf-lsp restore: %v\n", err)
			return exitStale
		}
		return c.Fail("%v", err)
	}
	if !r.FromLocal {
		fmt.Fprintf(stdout, "restored %s revision %d (commit %s) as revision %d; mf-lsp sync sends it\n", pos[0], r.Revision, r.Commit[:12], r.Written)
		return exitOK
	}
	how := "as revision " + strconv.Itoa(r.Written)
	if r.Exact {
		how = "byte for byte"
	}
	if r.Synced {
		how += "; mf-lsp sync sends it"
	}
	fmt.Fprintf(stdout, "restored %s revision %d (blob %s) from the local history %s\n", pos[0], r.Revision, r.Blob[:12], how)
	return exitOK
}

// printHeldConfig lists configuration from the remote that sync did not
// write because it would widen a view, with what it would open up.
func printHeldConfig(w io.Writer, held []roam.HeldConfig) {
	for _, h := range held {
		fmt.Fprintf(w, "held (widens a view): %s: the remote's version is not written here\n", shown(h.Path))
		for _, e := range h.Exposes {
			fmt.Fprintf(w, "  %s\n", shown(e))
		}
		if h.More > 0 {
			fmt.Fprintf(w, "  … and %d more\n", h.More)
		}
		fmt.Fprintf(w, "  decide: mf-lsp sync accept %s | mf-lsp sync reject %s\n", shown(h.Path), shown(h.Path))
	}
}

func runSyncDecide(verb string, args []string, stdout, stderr io.Writer) int {
	help := `
Take (accept) or refuse (reject) configuration from the sync remote that sync
held because it would bring notes into a view they are not in now (a roster
that demotes an agent to a shared folder, a changed layer prefix). PATH is
magicfrog.json or layers.json, as sync and sync status print it. accept
writes the remote's version (or the merge with yours) to the live file;
reject keeps yours, and the next sync sends it over the remote's.`
	c := newCLI("sync "+verb, "mf-lsp sync "+verb+" PATH", help, stdout, stderr)
	pos, code, done := c.Parse(args, 1, 1)
	if done {
		return code
	}
	m, err := c.OpenDataDir()
	if err != nil {
		return c.Fail("%v", err)
	}
	decide := session.RejectHeldConfig
	if verb == "accept" {
		decide = session.AcceptHeldConfig
	}
	if err := decide(context.Background(), m, pos[0]); err != nil {
		return c.Fail("%v", err)
	}
	if verb == "accept" {
		fmt.Fprintf(stdout, "accepted %s: the remote's version is the live one\n", pos[0])
	} else {
		fmt.Fprintf(stdout, "rejected %s: yours stays, and mf-lsp sync sends it\n", pos[0])
	}
	return exitOK
}

// shown is a path (or a line naming one) as the sync report prints it:
// quoted when it holds a control character, so a name a remote chose can
// neither split a line nor send escape sequences to the terminal.
func shown(p string) string {
	if strings.ContainsFunc(p, unicode.IsControl) {
		return strconv.Quote(p)
	}
	return p
}
