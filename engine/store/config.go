package store

// UpdateConfig replaces a configuration file (magicfrog.json, a project's
// config.json) with what fn returns, under root's lock, atomically, like a note
// but without a revision check: configuration has no revision, and fn reads
// the current bytes under the lock, so two registrations at once both land.
// fn returning nil bytes leaves the file as it is. root must exist.
func UpdateConfig(root, path string, fn func(current []byte, exists bool) ([]byte, error)) error {
	unlock, err := Lock(root)
	if err != nil {
		return err
	}
	defer unlock()
	t, err := resolve(root, path)
	if err != nil {
		return err
	}
	if err := t.open(); err != nil {
		return err
	}
	defer t.close()
	current, mode, exists, err := t.read()
	if err != nil {
		return err
	}
	next, err := fn(current, exists)
	if err != nil || next == nil {
		return err
	}
	if err := t.mkdirs(); err != nil {
		return err
	}
	if !exists {
		mode = 0o644
	}
	return writeAtomic(t, next, mode)
}
