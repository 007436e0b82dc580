package store

// UpdateConfig replaces a configuration file (magicfrog.json, a project's
// config.json) with what fn returns, under root's lock, atomically, like a note
// but without a revision check: configuration has no revision, and fn reads
// the current bytes under the lock, so two registrations at once both land.
// fn returning nil bytes leaves the file as it is. root must exist.
func UpdateConfig(root, path string, fn func(current []byte, exists bool) ([]byte, error)) error {
	_, err := update(root, path, nil, fn, nil)
	return err
}
