package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// UpdateFile replaces a file that lives outside every memory root — an agent
// host's CLAUDE.md or AGENTS.md with a section mf-lsp manages — the way Update
// replaces a note: under lockRoot's lock (a memory root, so that no lock file
// is left beside the user's file), fn computes the new bytes from the current
// ones (nil, false when the file does not exist), and they replace the file
// atomically through a temporary file in the same directory, keeping its
// mode. The file itself must not be a symbolic link (ErrSymlink): writing
// through one would replace a file somewhere else, or the link with a copy.
// When fn returns the current bytes, nothing is written and changed is false.
func UpdateFile(lockRoot, path string, fn func(current []byte, exists bool) ([]byte, error)) (changed bool, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false, err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return false, fmt.Errorf("store: %w", err)
	}
	unlock, err := Lock(lockRoot)
	if err != nil {
		return false, err
	}
	defer unlock()
	// The file's folder is the root every operation goes through: the file is
	// read, and its temporary file created and renamed, in that folder only.
	t := &target{rootReal: dir, dir: dir, base: filepath.Base(abs), display: path}
	if err := t.open(); err != nil {
		return false, err
	}
	defer t.close()
	current, mode, exists, err := t.read()
	if err != nil {
		return false, err
	}
	next, err := fn(current, exists)
	if err != nil {
		return false, err
	}
	if exists && bytes.Equal(next, current) {
		return false, nil
	}
	if !exists {
		mode = 0o644
	}
	if err := writeAtomic(t, next, mode); err != nil {
		return false, err
	}
	return true, nil
}

// LinkTarget says where a symbolic link points, for messages; "" when path is
// not a link.
func LinkTarget(path string) string {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return ""
	}
	t, err := os.Readlink(path)
	if err != nil {
		return "?"
	}
	return t
}
