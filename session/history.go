package session

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/engine/roam"
)

// A note's versions and bringing one back (docs/cli.md#history), for every
// front end: the local history of its memory root (engine) joined with the
// sync remote's (engine/roam) when the data directory syncs.

// HistoryVersion is one version of a note: from the local history (Local)
// or the sync remote's (Remote), exactly one of them set. AlsoLocal: a
// remote version the local history holds too.
type HistoryVersion struct {
	Time      time.Time
	Local     *engine.LocalVersion
	Remote    *roam.Version
	AlsoLocal bool
}

// NoteHistory is a note's history, newest first. FetchErr says why the
// remote could not be fetched (its versions are then as of the last sync).
type NoteHistory struct {
	Versions []HistoryVersion
	FetchErr error
}

// NoHistoryError: the portable path names no note here (NotANote), or one
// whose history holds nothing yet.
type NoHistoryError struct {
	Path     string
	NotANote bool
}

func (e *NoHistoryError) Error() string {
	if e.NotANote {
		return e.Path + " is not a note of this data directory or project"
	}
	return e.Path + " has no history yet (a version is kept when mf-lsp writes the note or sees it change)"
}

// ErrorCode: there is nothing to list.
func (e *NoHistoryError) ErrorCode() errcode.Code { return errcode.NotFound }

// History lists every version of the note at the portable path rel, newest
// first: the local history, and when the data directory syncs the remote's
// (fetched first unless offline). An error reaching the remote fails only
// when the local history is empty.
func History(ctx context.Context, m *engine.Memory, rel string, offline bool) (NoteHistory, error) {
	shown := rel
	rel = strings.TrimPrefix(rel, "/")
	local, file := localHistory(m, rel)
	var out NoteHistory
	var remote []roam.Version
	if roam.Synced(m) {
		vs, fetchErr, err := roam.History(ctx, m, rel, offline)
		if err != nil && len(local) == 0 {
			return NoteHistory{}, err
		}
		out.FetchErr, remote = fetchErr, vs
	}
	if len(local) == 0 && len(remote) == 0 {
		return NoteHistory{}, &NoHistoryError{Path: shown, NotANote: file == ""}
	}
	inLocal := map[string]bool{}
	for i := range local {
		v := &local[i]
		inLocal[v.Blob] = true
		out.Versions = append(out.Versions, HistoryVersion{Time: v.Time, Local: v})
	}
	for i := range remote {
		v := &remote[i]
		out.Versions = append(out.Versions, HistoryVersion{Time: v.Time, Remote: v, AlsoLocal: v.Blob != "" && inLocal[v.Blob]})
	}
	sort.SliceStable(out.Versions, func(a, b int) bool { return out.Versions[a].Time.After(out.Versions[b].Time) })
	return out, nil
}

// localHistory is the local history of the note at the portable path rel,
// newest first, and its file ("" when rel names no note here).
func localHistory(m *engine.Memory, rel string) ([]engine.LocalVersion, string) {
	file, err := m.FileOfRef(rel)
	if err != nil {
		f, ok := roam.FileOf(m, rel)
		if !ok {
			return nil, ""
		}
		file = f
	}
	vs, _ := m.LocalHistory(file)
	if len(vs) == 0 {
		if f, ok := roam.FileOf(m, rel); ok && f != file {
			file = f
			vs, _ = m.LocalHistory(file)
		}
	}
	return vs, file
}

// RestoreRequest names the version of the note at the portable path Path to
// bring back: by Revision, by the local history's Blob id (a prefix), or by
// the sync remote's Commit (a prefix).
type RestoreRequest struct {
	Path     string
	Revision int
	Blob     string
	Commit   string
	Now      time.Time
}

// Restored is what a restore wrote. FromLocal: the version came from the
// local history (Blob, Exact: byte for byte), else from the sync remote
// (Commit). Revision is the version's revision, Written the note's now.
// Synced: the data directory syncs, so the next sync sends it.
type Restored struct {
	FromLocal bool
	Revision  int
	Written   int
	Blob      string
	Exact     bool
	Commit    string
	Synced    bool
}

// Restore brings back the version r names. Without a commit the local
// history is tried first; a version it does not have (or fails to restore)
// comes from the sync remote when the data directory syncs, unless a blob
// named the local version. A stale restore is the store's StaleError.
func Restore(ctx context.Context, m *engine.Memory, r RestoreRequest) (Restored, error) {
	synced := roam.Synced(m)
	if r.Commit == "" {
		local, file := localHistory(m, strings.TrimPrefix(r.Path, "/"))
		if len(local) > 0 {
			res, err := m.RestoreLocal(file, r.Revision, r.Blob, r.Now)
			switch {
			case err == nil:
				return Restored{FromLocal: true, Revision: res.Revision, Written: res.Written, Blob: res.Blob, Exact: res.Exact, Synced: synced}, nil
			case !synced || r.Blob != "":
				return Restored{}, err
			}
		} else if !synced {
			return Restored{}, fmt.Errorf("%s has no history yet (mf-lsp history %s)", r.Path, r.Path)
		}
	}
	v, next, err := roam.Restore(ctx, m, r.Path, r.Revision, r.Commit, r.Now)
	if err != nil {
		return Restored{}, err
	}
	return Restored{Revision: v.Revision, Written: next, Commit: v.Commit, Synced: true}, nil
}
